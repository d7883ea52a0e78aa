import ArgumentParser
import Ubiquity

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
