import ArgumentParser
import Foundation
import Ubiquity

struct BugReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bug-report",
        abstract: "Write one zip archive for a bug report: the device, its container, status, doctor, model, versions and a level-3 sync log.",
        discussion: """
            Nothing of the device or the container is changed: it is read as 'status' reads it, the stores are copied consistently \
            (also while another process owns the device), and the sync whose level-3 log the \
            archive holds runs on a copy of what was archived. --redact replaces every stored \
            value (in the stores, logs and baselines) by a hash of it; see Docs/CLI.md, \
            "Reporting a bug". 'ubiq scenario replay ARCHIVE' runs the report again.
            Example: ubiq bug-report --output report.zip --device ./phone
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("The archive to write (default: ubiq-bug-report-<date>.zip here).", valueName: "file"))
    var output: String?
    @Flag(help: "Replace every stored value by a hash of it.") var redact = false

    func run() throws {
        let path = GlobalOptions.absolute(output ?? Self.defaultName(Date()))
        let written = try BugReport.write(configuration: try global.unlockedConfiguration(), to: path, redact: redact)
        Console.out("wrote the bug report of \(written.peerID) to \(written.path) (\(written.size) bytes, \(written.files.count) files\(redact ? ", redacted" : ""))")
    }

    static func defaultName(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return "ubiq-bug-report-\(formatter.string(from: date)).zip"
    }
}
