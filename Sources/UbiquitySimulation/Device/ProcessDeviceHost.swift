import Foundation

/// A device in its own OS process: `ubiq scenario device`, with its own SQLite connections,
/// locks and memory, as a real device would have. Requests go to its stdin and answers come
/// from its stdout, one JSON value per line; its log lines go to a file.
final class ProcessDeviceHost: DeviceHost {
    let name: String
    private let process = Process()
    private let channel: LineChannel
    private let toChild = Pipe(), fromChild = Pipe()

    /// Starts `executable scenario device` and hands it `setup`; its stderr goes to `logFile`.
    /// A `launcher` (such as `ip netns exec NAME`, found on `$PATH`) runs it on another host.
    init(setup: DeviceSetup, executable: String, logFile: String, launcher: [String] = []) throws {
        name = setup.name
        if launcher.isEmpty {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["scenario", "device"]
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = launcher + [executable, "scenario", "device"]
        }
        process.standardInput = toChild
        process.standardOutput = fromChild
        guard FileManager.default.createFile(atPath: logFile, contents: nil) else { throw SimulationError("cannot create the device log \(logFile)") }
        process.standardError = FileHandle(forWritingAtPath: logFile)
        channel = LineChannel(input: fromChild.fileHandleForReading.fileDescriptor, output: toChild.fileHandleForWriting.fileDescriptor)
        do { try process.run() } catch { throw SimulationError("cannot start the device process \(executable): \(error)") }
        try channel.send(setup)
        guard let ready = try channel.receive(DeviceReply.self) else { throw exited() }
        if let error = ready.error { throw SimulationError("device \(name) did not start: \(error)") }
    }

    func send(_ request: DeviceRequest) throws -> DeviceReply {
        try channel.send(request)
        guard let reply = try channel.receive(DeviceReply.self) else { throw exited() }
        return reply
    }

    func close() {
        try? toChild.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private func exited() -> SimulationError {
        process.waitUntilExit()
        return SimulationError("the process of device \(name) exited with status \(process.terminationStatus)")
    }
}

/// The device side of `ProcessDeviceHost`: reads the setup, then requests until stdin ends.
public enum DeviceServer {
    public static func serve(input: Int32 = 0, output: Int32 = 1) throws {
        let channel = LineChannel(input: input, output: output)
        guard let setup = try channel.receive(DeviceSetup.self) else { return }
        let session: DeviceSession
        do {
            session = try DeviceSession(setup: setup)
        } catch {
            var reply = DeviceReply()
            reply.error = "\(error)"
            try channel.send(reply)
            return
        }
        defer { session.close() }
        try channel.send(DeviceReply())
        while let request = try channel.receive(DeviceRequest.self) {
            try channel.send(session.handle(request))
        }
    }
}
