import ArgumentParser
import Foundation
import Ubiquity

struct EncryptionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encryption",
        abstract: "Encrypt the account's content in the cloud, give a device the passphrase, change it.",
        discussion: """
            The passphrase comes from $UBIQUITY_PASSPHRASE, --passphrase-file FILE or a prompt on the terminal; \
            never from the command line. Example: UBIQUITY_PASSPHRASE=… ubiq encryption enable --device ./phone
            """,
        subcommands: [EncryptionStatusCommand.self, EncryptionEnableCommand.self, EncryptionUnlockCommand.self,
                      EncryptionChangePassphraseCommand.self])
}

/// `--scrypt-log-n`, `--scrypt-r`, `--scrypt-p`: the cost of deriving the key from the passphrase.
struct ScryptOptions: ParsableArguments {
    @Option(name: .customLong("scrypt-log-n"), help: "log2 of scrypt's rounds, 10 to 20 (default 15: 32 MiB, about 0.1 s); at most 256 MiB with r.") var logN: Int?
    @Option(name: .customLong("scrypt-r"), help: "scrypt's block size, 1 to 16 (default 8).") var r: Int?
    @Option(name: .customLong("scrypt-p"), help: "scrypt's parallelism, 1 to 4 (default 1).") var p: Int?

    var isGiven: Bool { logN != nil || r != nil || p != nil }

    func parameters(from base: ScryptParameters = .standard) -> ScryptParameters {
        ScryptParameters(logN: logN ?? base.logN, r: r ?? base.r, p: p ?? base.p)
    }
}

struct EncryptionStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Whether the content is encrypted, whether this device holds the key, and what is still plaintext.",
        discussion: "Example: ubiq encryption status --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let status = try global.withPeer { peer in try peer.encryptionStatus() }
        guard json else {
            Console.out(status.line)
            return
        }
        var fields: [String: JSONValue] = ["state": .string(status.state.name), "plaintextFiles": .array(status.plaintextFiles.map(JSONValue.string))]
        if let parameters = status.parameters {
            fields["scrypt"] = .object(["logN": .int(Int64(parameters.logN)), "r": .int(Int64(parameters.r)), "p": .int(Int64(parameters.p))])
        }
        if case let .sealed(keyID) = status.state { fields["keyID"] = .string(keyID) }
        fields["created"] = status.created.map { .double($0.timeIntervalSince1970) } ?? .null
        fields["passphraseChanged"] = status.passphraseChanged.map { .double($0.timeIntervalSince1970) } ?? .null
        Console.out(JSONValue.object(fields).text())
    }
}

struct EncryptionEnableCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Turn encryption on for the account's content: from now on every file written into the cloud is sealed.",
        discussion: "Example: ubiq encryption enable --passphrase-file ~/.ubiquity-passphrase --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Option(help: "A file whose first line is the passphrase (else $UBIQUITY_PASSPHRASE, else a prompt).") var passphraseFile: String?
    @OptionGroup var scrypt: ScryptOptions

    func run() throws {
        let passphrase = try PassphraseSource(variable: "UBIQUITY_PASSPHRASE", file: passphraseFile, prompt: "New passphrase: ", confirm: true).read()
        try global.withPeer { peer in
            try peer.enableEncryption(passphrase: passphrase, parameters: scrypt.parameters())
            Console.out(try peer.encryptionStatus().line)
        }
    }
}

struct EncryptionUnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Give this device the key of encrypted content (kept on the device; daily commands need no passphrase).",
        discussion: "Example: UBIQUITY_PASSPHRASE=… ubiq encryption unlock --device ./laptop")

    @OptionGroup var global: GlobalOptions
    @Option(help: "A file whose first line is the passphrase (else $UBIQUITY_PASSPHRASE, else a prompt).") var passphraseFile: String?

    func run() throws {
        let passphrase = try PassphraseSource(variable: "UBIQUITY_PASSPHRASE", file: passphraseFile, prompt: "Passphrase: ", confirm: false).read()
        try global.withPeer { peer in
            try peer.unlockEncryption(passphrase: passphrase)
            Console.out(try peer.encryptionStatus().line)
        }
    }
}

struct EncryptionChangePassphraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-passphrase",
        abstract: "Wrap the content key under a new passphrase (no log is rewritten; devices holding the key go on).",
        discussion: """
            The current passphrase comes as for 'enable', the new one from $UBIQUITY_NEW_PASSPHRASE, \
            --new-passphrase-file or a prompt. Example: ubiq encryption change-passphrase --device ./phone
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "A file whose first line is the current passphrase.") var passphraseFile: String?
    @Option(help: "A file whose first line is the new passphrase.") var newPassphraseFile: String?
    @OptionGroup var scrypt: ScryptOptions

    func run() throws {
        let current = try PassphraseSource(variable: "UBIQUITY_PASSPHRASE", file: passphraseFile, prompt: "Current passphrase: ", confirm: false).read()
        let new = try PassphraseSource(variable: "UBIQUITY_NEW_PASSPHRASE", file: newPassphraseFile, prompt: "New passphrase: ", confirm: true).read()
        try global.withPeer { peer in
            let base = try peer.encryptionStatus().parameters ?? .standard
            try peer.changePassphrase(from: current, to: new, parameters: scrypt.isGiven ? scrypt.parameters(from: base) : nil)
            Console.out("the passphrase is changed; devices that hold the key go on as they were")
        }
    }
}
