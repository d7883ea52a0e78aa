import ArgumentParser
import Ubiquity

struct DeviceInitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a device directory, signed in to an account.",
        discussion: """
            A new device is signed in to the account 'default' unless --account or --signed-out \
            says otherwise, and belongs to the cloud --cloud names, else ./ubiquity-cloud (later \
            commands use it when given no cloud, and refuse another one; 'ubiq device move-cloud' \
            moves it). Prints the device's peer ID and account.

            Example: ubiq device init --device ./phone --user alice --account work
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The device's user name (part of its peer ID).", valueName: "name"))
    var user = "user"

    @Option(help: ArgumentHelp("The identity token of the iCloud account to sign in to.", valueName: "token"))
    var account: String?

    @Flag(help: "Create the device signed out (it keeps a local store and does not sync).")
    var signedOut = false

    func run() throws {
        if signedOut && account != nil { throw CLIError("--account and --signed-out exclude each other") }
        let device = try Device.create(at: global.devicePath, userName: user,
                                       identityToken: signedOut ? nil : account ?? Device.defaultAccount, cloud: global.newDeviceCloudPath)
        Console.out("peer ID: \(device.peerID())")
        Console.out("account: \(device.identityToken ?? "none (signed out)")")
    }
}
