import ArgumentParser
import Ubiquity

struct EncryptionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encryption",
        abstract: "Encrypt the account's content in the cloud, give a device the passphrase, change it, repair its key record.",
        discussion: """
            The passphrase comes from $UBIQUITY_PASSPHRASE, --passphrase-file FILE or a prompt on the terminal; \
            never from the command line. Example: UBIQUITY_PASSPHRASE=… ubiq encryption enable --device ./phone
            """,
        subcommands: [EncryptionStatusCommand.self, EncryptionEnableCommand.self, EncryptionUnlockCommand.self,
                      EncryptionChangePassphraseCommand.self, EncryptionRepairCommand.self])
}
