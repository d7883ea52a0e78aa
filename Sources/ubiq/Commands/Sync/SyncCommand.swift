import ArgumentParser
import Ubiquity

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Export waiting logs, import other peers' logs, and print what happened.",
        discussion: """
            Exits with status 1 when the export or the import step failed (the summary line is \
            printed first, and the error names the step).

            --import-resolver use-loser saves the losing value of every concurrent overwrite this \
            import finds again, as a new transaction every peer takes (Docs/MergePolicies.md, \
            "Conflicts between peers"); keep-winner, the default, keeps the larger stamp's.

            Example: ubiq sync --device ./phone
            Example: ubiq sync --import-resolver use-loser --device ./phone
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var resolver: ImportResolverOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let summary = try global.withPeer(adjust: resolver.adjust) { peer in try peer.syncRecordingState(reportingImportFailure: true) }
        Console.out(json ? summary.jsonValue.text() : summary.line(wordingRemedies: \.command))
        if let exportError = summary.exportError { throw CLIError("the export step failed: " + exportError.advice.worded(\.command)) }
        if let importError = summary.importError { throw CLIError("the import step failed: \(importError)") }
    }
}
