import ArgumentParser
import Ubiquity
import UbiquitySimulation

/// The device side of `--processes`: one device's app, driven over stdin and stdout.
struct ScenarioDeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Serve one scenario device over stdin/stdout (started by 'scenario run --processes').",
        shouldDisplay: false)

    func run() throws { try DeviceServer.serve() }
}
