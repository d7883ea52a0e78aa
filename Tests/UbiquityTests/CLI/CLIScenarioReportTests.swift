import Foundation
import Testing

/// `ubiq scenario run --report FILE`: the page is written and the run says where, last on
/// stdout, or on stderr beside `--json` so that stdout stays one JSON document.
@Suite("CLI scenario report")
struct CLIScenarioReportTests {
    @Test func theRunSaysWhereTheReportWasWritten() throws {
        let sandbox = try CLISandbox()
        let page = sandbox.root + "/report.html"
        let run = try UbiqProcess(binary: sandbox.binary, arguments: ["scenario", "run", "first-launch", "--report", "report.html"],
                                  directory: sandbox.root).wait(timeout: 120)
        #expect(run.succeeded && run.stdout.contains("PASSED"), "\(run)")
        #expect(run.stdoutLines.last == "report written to \(page)", "\(run)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<p class=\"about\">A newcomer works on a fallback store"), "the page has the scenario's about line")

        let svg = sandbox.root + "/timeline.svg"
        let json = try UbiqProcess(binary: sandbox.binary, arguments: ["scenario", "run", "first-launch", "--json", "--report", svg],
                                   directory: sandbox.root).wait(timeout: 120)
        #expect(json.succeeded && json.stderrLines == ["report written to \(svg)"], "\(json)")
        #expect((try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8))) is [String: Any], "stdout is the JSON alone: \(json)")
        #expect(try String(contentsOfFile: svg, encoding: .utf8).hasPrefix("<svg"))
    }
}
