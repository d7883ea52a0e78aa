import ArgumentParser
import Ubiquity

struct EncryptionRepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Put the content's key record back when it was altered in the cloud or lost.",
        discussion: """
            A record whose key ID was changed is put back by a device holding the key, without a passphrase \
            (its next sync does it too). Otherwise the passphrase ($UBIQUITY_PASSPHRASE, --passphrase-file, \
            or a prompt when it is needed) opens the record under the key the content's files are sealed under, \
            or, on a device holding the key whose record is gone or altered past that, wraps the key anew under it. \
            Example: ubiq encryption repair --device ./phone
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "A file whose first line is the passphrase (else $UBIQUITY_PASSPHRASE, else a prompt when one is needed).") var passphraseFile: String?

    func run() throws {
        let source = PassphraseSource(variable: "UBIQUITY_PASSPHRASE", file: passphraseFile, prompt: "Passphrase: ", confirm: true)
        let given = try source.readIfGiven()
        let repair = try global.withPeer { peer in
            do {
                return try peer.repairKeyRecord(passphrase: given)
            } catch EncryptionError.passphraseNeeded where given == nil && PassphraseSource.canPrompt {
                return try peer.repairKeyRecord(passphrase: try source.read())
            }
        }
        Console.out(repair.line)
    }
}
