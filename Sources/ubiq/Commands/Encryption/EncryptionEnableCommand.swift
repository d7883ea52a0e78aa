import ArgumentParser
import Ubiquity

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
        try global.withPeer(unlocking: false) { peer in
            try peer.enableEncryption(passphrase: passphrase, parameters: scrypt.parameters())
            Console.out(try peer.encryptionStatus().line)
        }
    }
}
