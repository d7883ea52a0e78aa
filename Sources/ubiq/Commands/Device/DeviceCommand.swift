import ArgumentParser
import Ubiquity

/// `ubiq device …`: the local directory that plays one iOS device or Mac.
struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Create a device, or move it to another cloud.",
        discussion: "Example: ubiq device init --device ./phone --user alice",
        subcommands: [DeviceInitCommand.self, DeviceMoveCloudCommand.self])
}
