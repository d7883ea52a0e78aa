import ArgumentParser
import Ubiquity

struct DeviceMoveCloudCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move-cloud",
        abstract: "Make another cloud folder this device's cloud (after the cloud moved).",
        discussion: """
            A device remembers the cloud it was made with and refuses another --cloud, so a \
            mistyped path never starts a new, empty cloud. When the cloud folder really moved (or \
            the device should join another cloud), say so once with this command.

            Example: ubiq device move-cloud /mnt/shared/cloud --device ./phone
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The cloud folder the device belongs to from now on.", valueName: "dir"))
    var newCloud: String

    func run() throws {
        let device = try Device.moveCloud(to: GlobalOptions.absolute(newCloud), at: global.devicePath)
        Console.out("cloud: \(device.cloud ?? GlobalOptions.absolute(newCloud))")
    }
}
