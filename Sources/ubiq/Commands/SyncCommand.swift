import ArgumentParser
import Ubiquity

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Export waiting logs, import other peers' logs, and print what happened.",
        discussion: """
            Exits with status 1 when the export or the import step failed (the summary line is \
            printed first, and the error names the step).

            Example: ubiq sync --device ./phone
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let summary = try global.withPeer { peer in try peer.sync(reportingImportFailure: true) }
        Console.out(json ? summary.jsonValue.text() : summary.line)
        if let exportError = summary.exportError { throw CLIError("the export step failed: \(exportError)") }
        if let importError = summary.importError { throw CLIError("the import step failed: \(importError)") }
    }
}
