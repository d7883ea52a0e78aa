import ArgumentParser
import Ubiquity

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
        try global.withPeer(unlocking: false) { peer in
            let base = try peer.encryptionStatus().parameters ?? .standard
            try peer.changePassphrase(from: current, to: new, parameters: scrypt.isGiven ? scrypt.parameters(from: base) : nil)
            Console.out("the passphrase is changed; devices that hold the key go on as they were")
        }
    }
}
