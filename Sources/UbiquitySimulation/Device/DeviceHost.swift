/// Where a scenario's device runs: inside the runner's process, or in a process of its own.
/// Either way the runner sends requests one at a time and waits for each answer.
protocol DeviceHost: AnyObject {
    var name: String { get }
    func send(_ request: DeviceRequest) throws -> DeviceReply
    /// Quits the app (and ends the process, if it has one).
    func close()
}

/// A device in the runner's own process.
final class InProcessDeviceHost: DeviceHost {
    let session: DeviceSession

    init(setup: DeviceSetup) throws { session = try DeviceSession(setup: setup) }

    var name: String { session.setup.name }

    func send(_ request: DeviceRequest) throws -> DeviceReply { session.handle(request) }

    func close() { session.close() }
}
