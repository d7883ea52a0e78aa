import Foundation

/// A fresh temporary cloud and device folders for one test, driven through the `ubiq` binary.
final class CLISandbox: Sendable {
    let root: String
    let binary: String
    var cloud: String { root + "/cloud" }

    init() throws {
        binary = try UbiqBinary.path()
        root = NSTemporaryDirectory() + "ubiq-cli-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/cloud", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func device(_ name: String) -> String { root + "/devices/" + name }

    /// The arguments with this sandbox's cloud and, when given, a device appended.
    func arguments(_ arguments: [String], device: String?) -> [String] {
        arguments + ["--cloud", cloud] + (device.map { ["--device", self.device($0)] } ?? [])
    }

    /// `environment`: variables for this process only (see `UbiqProcess`).
    func start(_ arguments: [String], device: String?, environment: [String: String] = [:]) throws -> UbiqProcess {
        try UbiqProcess(binary: binary, arguments: self.arguments(arguments, device: device), directory: root, environment: environment)
    }

    func run(_ arguments: [String], device: String?, timeout: Double = 60, environment: [String: String] = [:]) throws -> UbiqResult {
        try start(arguments, device: device, environment: environment).wait(timeout: timeout)
    }

    /// Runs a command that must succeed; a failure is thrown with everything the process said.
    @discardableResult
    func succeed(_ arguments: [String], device: String?, timeout: Double = 60, environment: [String: String] = [:]) throws -> UbiqResult {
        let result = try run(arguments, device: device, timeout: timeout, environment: environment)
        guard result.succeeded else { throw CommandFailed(result: result) }
        return result
    }

    /// Creates a device and returns its peer ID (from `device init`'s output).
    @discardableResult
    func initDevice(_ name: String, user: String? = nil) throws -> String {
        let result = try succeed(["device", "init", "--user", user ?? name], device: name)
        guard let line = result.stdoutLines.first(where: { $0.hasPrefix("peer ID: ") }) else { throw CommandFailed(result: result) }
        return String(line.dropFirst("peer ID: ".count))
    }

    func dump(_ device: String) throws -> String {
        try succeed(["dump", "--json"], device: device).stdout
    }

    struct CommandFailed: Error, CustomStringConvertible {
        let result: UbiqResult
        var description: String { "command failed: \(result)" }
    }
}

/// The global IDs in a `dump --json` or `fetch --json` text.
func objectIDs(inJSON text: String) throws -> [String] {
    let objects = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] ?? []
    return objects.compactMap { $0["id"] as? String }
}
