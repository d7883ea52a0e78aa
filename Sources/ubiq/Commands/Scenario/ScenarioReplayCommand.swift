import ArgumentParser
import Foundation
import Ubiquity

struct ScenarioReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run a bug report ('ubiq bug-report') again: its device and cloud rebuilt, a sync, the doctor's findings.",
        discussion: """
            The archive is unpacked into the work directory (default: a new one under the system's \
            temporary folder), its device folder and its part of the cloud are put back there as \
            they were, and the device syncs at --log-level (the library's lines on stderr). The \
            sync's summary and the doctor's findings print on stdout; the rebuilt device stays in \
            the work directory for any other command (--device DIR/device).
            Example: ubiq scenario replay report.zip --log-level 3
            """)

    @Argument(help: ArgumentHelp("The bug report's zip archive.", valueName: "archive")) var archive: String
    @Option(help: ArgumentHelp("Where to unpack and rebuild it (new or empty).", valueName: "dir")) var work: String?
    @Option(name: .customLong("log-level"), help: ArgumentHelp("0 errors … 3 verbose (default: 0).", valueName: "n")) var logLevel: Int = 0
    @Flag(help: "Print JSON: the sync's summary and the findings.") var json = false

    func run() throws {
        guard let level = LogLevel(rawValue: logLevel) else { throw CLIError("the log level must be 0, 1, 2 or 3, not \(logLevel)") }
        let path = GlobalOptions.absolute(archive)
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("no bug report at \(path)") }
        let directory = GlobalOptions.absolute(work ?? NSTemporaryDirectory() + "ubiq-replay-" + UUID().uuidString)
        let replay = try BugReportReplay.run(archive: path, workDirectory: directory, logger: UbiquityLogger(level: level))
        if json {
            Console.out(replay.jsonValue.text())
            return
        }
        let manifest = replay.manifest
        Console.out("replayed the bug report of \(manifest.peerID) (written \(ISO8601DateFormatter().string(from: manifest.written))\(manifest.redacted ? ", redacted" : "")) in \(replay.workDirectory)")
        Console.out("sync: \(replay.sync.line)")
        if replay.findings.isEmpty { Console.out("no problems found") }
        for finding in replay.findings {
            Console.out("problem: \(finding.message)")
            Console.out("  repair: \(finding.repair)")
        }
    }
}
