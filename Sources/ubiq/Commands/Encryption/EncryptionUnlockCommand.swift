import ArgumentParser
import Ubiquity

struct EncryptionUnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Give this device the key of encrypted content (kept on the device; daily commands need no passphrase).",
        discussion: """
            Works beside a process that owns the device (a 'ubiq watch', an app): the key is kept \
            on the device, and that process imports with it from its next round.
            Example: UBIQUITY_PASSPHRASE=… ubiq encryption unlock --device ./laptop
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "A file whose first line is the passphrase (else $UBIQUITY_PASSPHRASE, else a prompt).") var passphraseFile: String?

    func run() throws {
        let passphrase = try PassphraseSource(variable: "UBIQUITY_PASSPHRASE", file: passphraseFile, prompt: "Passphrase: ", confirm: false).read()
        do {
            // Not unlocked from the environment first: this command is that unlock.
            try global.withPeer(unlocking: false) { peer in
                if let repair = try peer.unlockEncryption(passphrase: passphrase) { Console.out(repair.line) }
                Console.out(try peer.encryptionStatus().line)
            }
        } catch PeerError.device(.inUse(_, let owner)) {
            // A watch or an app owns the device: the key is kept on the device all the same,
            // and the owner's next round (a live import's comes within a second) takes it up.
            try UbiquityPeer.unlockEncryption(configuration: try global.configuration(), passphrase: passphrase)
            Console.out("this device holds the key now; \(owner), which owns it, imports with it from its next round")
        }
    }
}
