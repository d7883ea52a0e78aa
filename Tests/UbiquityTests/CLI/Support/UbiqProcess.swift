import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What one finished `ubiq` process did.
struct UbiqResult: CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    /// Ended by a signal (a trap, or our SIGKILL) rather than `exit`.
    let signaled: Bool
    let timedOut: Bool
    let stdout: String
    let stderr: String
    /// Standard output byte for byte (`get --raw` writes data that is not text).
    var stdoutBytes: [UInt8] = []

    var succeeded: Bool { status == 0 && !signaled && !timedOut }
    /// Complete lines only: a process killed mid-write may leave a fragment at the end.
    var stdoutLines: [String] { Self.completeLines(stdout) }
    var stderrLines: [String] { Self.completeLines(stderr) }

    static func completeLines(_ text: String) -> [String] {
        var lines = text.components(separatedBy: "\n")
        lines.removeLast()  // empty after a final newline, or an unfinished fragment
        return lines
    }

    var description: String {
        "ubiq \(arguments.joined(separator: " ")) → \(signaled ? "signal" : "status") \(status)\(timedOut ? " (timed out)" : "")"
            + "\n  stdout: \(stdout.prefix(600))\n  stderr: \(stderr.prefix(600))"
    }
}

/// One running `ubiq` process. Output goes to files, not pipes: nothing can block on a full
/// pipe, and what a killed process printed before dying is still there to read.
final class UbiqProcess {
    let arguments: [String]
    private let process = Process()
    private let stdoutPath: String
    private let stderrPath: String
    private var timedOut = false

    /// `environment` adds variables for this process only (`UBIQUITY_PASSPHRASE`), on top of
    /// the test's environment without the tool's own variables.
    init(binary: String, arguments: [String], directory: String, environment extra: [String: String] = [:]) throws {
        self.arguments = arguments
        let stem = directory + "/.out-" + UUID().uuidString
        stdoutPath = stem + ".stdout"
        stderrPath = stem + ".stderr"
        for path in [stdoutPath, stderrPath] where !FileManager.default.createFile(atPath: path, contents: nil) {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        // The tests say everything explicitly: the caller's environment must not steer the tool.
        var environment = ProcessInfo.processInfo.environment
        for name in ["UBIQUITY_CLOUD", "UBIQUITY_DEVICE", "UBIQUITY_LOG_LEVEL", "UBIQUITY_PASSPHRASE", "UBIQUITY_NEW_PASSPHRASE"] { environment[name] = nil }
        process.environment = environment.merging(extra) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    /// What the process has printed so far.
    var stdoutSoFar: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` (e.g. SIGTERM, to ask for a clean stop).
    func send(_ signal: Int32) {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, signal)
    }

    func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the end; after `timeout` seconds the process is killed and marked timed out,
    /// so a hanging command fails its test instead of hanging the suite.
    func wait(timeout: Double = 60) -> UbiqResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                kill()
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        defer {
            try? FileManager.default.removeItem(atPath: stdoutPath)
            try? FileManager.default.removeItem(atPath: stderrPath)
        }
        return UbiqResult(arguments: arguments, status: process.terminationStatus,
                          signaled: process.terminationReason == .uncaughtSignal, timedOut: timedOut,
                          stdout: stdoutSoFar, stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "",
                          stdoutBytes: FileManager.default.contents(atPath: stdoutPath).map { [UInt8]($0) } ?? [])
    }
}
