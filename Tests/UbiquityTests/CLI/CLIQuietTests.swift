import Foundation
import Testing

/// Level 0 is errors and the changes of store Apple always logged; `--quiet` silences the
/// library at every level; a scenario prints its report alone unless asked for the devices' lines.
@Suite("CLI log lines: --quiet, and scenarios' devices")
struct CLIQuietTests {
    @Test("--quiet leaves the command's output and drops the library's lines")
    func quietDropsTheLibrarysLines() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        let loud = try sandbox.succeed(["store"], device: "phone")
        #expect(loud.stderr.contains("Using local storage: 1"), "\(loud)")
        try sandbox.initDevice("tablet")
        let quiet = try sandbox.succeed(["store", "--quiet"], device: "tablet")
        #expect(quiet.stderr.isEmpty, "\(quiet)")
        #expect(!quiet.stdout.isEmpty && quiet.stdout.split(separator: "\n").count == loud.stdout.split(separator: "\n").count,
                "the command's own output is as without --quiet: \(quiet)")
        let synced = try sandbox.succeed(["sync", "-q"], device: "tablet")
        #expect(synced.stderr.isEmpty && synced.stdout.hasPrefix("exported "), "\(synced)")
    }

    @Test func quietAndALogLevelAreRefusedTogether() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        let both = try sandbox.run(["sync", "--quiet", "--log-level", "2"], device: "phone")
        #expect(both.status != 0 && both.stderr.contains("--quiet and --log-level"), "\(both)")
    }

    @Test("a scenario run prints the report, not the devices' lines, unless --log-level asks")
    func scenarioRunsPrintTheReportAlone() throws {
        let sandbox = try CLISandbox()
        let plain = try UbiqProcess(binary: sandbox.binary, arguments: ["scenario", "run", "first-launch"], directory: sandbox.root).wait(timeout: 120)
        #expect(plain.succeeded && !plain.stderr.contains("Using local storage") && plain.stdout.contains("PASSED"), "\(plain)")
        let asked = try UbiqProcess(binary: sandbox.binary, arguments: ["scenario", "run", "first-launch", "--log-level", "0"],
                                    directory: sandbox.root).wait(timeout: 120)
        #expect(asked.succeeded && asked.stderr.contains("Using local storage: 1"), "\(asked)")
    }
}
