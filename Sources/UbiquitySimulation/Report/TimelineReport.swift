import Foundation

/// The report a person reads at a glance: a failing run's violations first, what the scenario
/// is about, then one lane per device (and machine, and the cloud when something happened
/// there) over simulated time — transitions by name, saves, imports, transfers, faults and the
/// fault plans apart, conflicts recorded, offline windows, the device's knowledge, and under
/// each lane a band with the account and store the app was on — then each expectation and
/// whether it held, the run's summary and every event in order. Plain HTML and SVG: no
/// script, nothing fetched. `TimelineLayout` places everything, `TimelineSVG` draws it.
public enum TimelineReport {
    /// A standalone HTML page: the verdict, the violations, the about line, the SVG timeline,
    /// the expectations, the summary and the events.
    public static func html(_ result: ScenarioResult) -> String {
        let escape = TimelineSVG.escape
        let limit = 5_000
        let rows = result.timeline.marks.prefix(limit).map { mark in
            "<tr class=\"\(mark.kind.rawValue)\"><td>+\(SimulatedDuration.text(mark.time))</td><td>\(escape(mark.lane))</td><td>\(mark.kind.rawValue)</td><td>\(escape(mark.text))</td></tr>"
        }.joined(separator: "\n")
        let more = result.timeline.marks.count > limit ? "<p>… and \(result.timeline.marks.count - limit) more events.</p>" : ""
        let verdict = result.passed ? "passed" : "FAILED"
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(escape(result.scenario)) — \(verdict)</title>
            <style>
            body { font: 14px \(TextMetrics.fontFamily); margin: 24px; color: #222; max-width: 1240px; }
            h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
            .passed { color: #1a7f37; } .failed { color: #c62828; }
            .run { color: #555; margin: 0 0 16px; }
            .violations { border: 2px solid #c62828; background: #fdecea; color: #8e1b1b; padding: 10px 14px; margin: 0 0 16px; border-radius: 4px; }
            .violations h2 { color: #c62828; margin: 0 0 6px; }
            .violations p { margin: 4px 0; overflow-wrap: anywhere; }
            .violations .where { font-weight: bold; }
            .violations code { background: #fff; padding: 0 4px; border-radius: 3px; }
            .figure { overflow-x: auto; }
            svg.timeline { max-width: 100%; height: auto; }
            pre.summary { background: #f6f8fa; padding: 12px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
            table { border-collapse: collapse; font-size: 12px; } td { padding: 2px 8px; border-bottom: 1px solid #eee; vertical-align: top; overflow-wrap: anywhere; }
            th { text-align: left; padding: 2px 8px; }
            tr.violation td { color: #c62828; font-weight: bold; } tr.fault td { color: #b35900; }
            tr.fault-plan td { color: #9a6700; } tr.conflict td { color: #bf3989; }
            .about { margin: 0 0 6px; max-width: 900px; }
            table.expectations td:first-child { font-weight: bold; text-align: center; }
            table.expectations tr.held td:first-child { color: #1a7f37; }
            table.expectations tr.failed td { color: #c62828; font-weight: bold; }
            table.expectations tr.not-reached td { color: #777; }
            </style></head><body>
            <h1>\(escape(result.scenario)) <span class="\(result.passed ? "passed" : "failed")">\(verdict)</span></h1>
            \(violations(result))\(about(result))<p class="run">\(escape(runLine(result)))</p>
            <div class="figure">
            \(TimelineSVG.draw(TimelineLayout(result, standalone: false)))
            </div>
            \(expectations(result))
            <h2>Summary</h2>
            <pre class="summary">\(escape(result.text))</pre>
            <h2>Events</h2>
            <table><tr><th>time</th><th>lane</th><th>kind</th><th>what</th></tr>
            \(rows)
            </table>\(more)
            </body></html>

            """
    }

    /// The timeline alone, as SVG: with the verdict, a failing run's violations and the about
    /// line above the lanes, and the expectations under them.
    public static func svg(_ result: ScenarioResult) -> String {
        TimelineSVG.draw(TimelineLayout(result, standalone: true))
    }

    /// A failing run's violations, each with where it happened: the scenario's line, the
    /// simulated time and the step.
    private static func violations(_ result: ScenarioResult) -> String {
        guard !result.violations.isEmpty else { return "" }
        let escape = TimelineSVG.escape
        let items = result.violations.map { violation in
            let place = violation.line > 0 ? "\(violation.source), line \(violation.line)" : violation.source
            let step = violation.step.isEmpty ? "" : ", step <code>\(escape(violation.step))</code>"
            return "<p><span class=\"where\">\(escape(place)) at +\(escape(SimulatedDuration.text(violation.time)))</span>\(step):</p>\n<p class=\"message\">\(escape(violation.message))</p>"
        }
        let title = result.violations.count == 1 ? "Violation" : "\(result.violations.count) violations"
        return "<section class=\"violations\">\n<h2>\(title)</h2>\n\(items.joined(separator: "\n"))\n</section>\n"
    }

    /// The scenario's `about` lines, in its author's words.
    private static func about(_ result: ScenarioResult) -> String {
        guard !result.about.isEmpty else { return "" }
        return "<p class=\"about\">\(TimelineSVG.escape(result.about.joined(separator: " ")))</p>\n"
    }

    /// Each expectation line of the scenario and how it went: held (how often, for a line run
    /// more than once), failed (when), or not reached (after a violation, or a line of a
    /// `random` block never drawn).
    private static func expectations(_ result: ScenarioResult) -> String {
        guard !result.expectations.isEmpty else {
            return "<h2>Expectations</h2>\n<p class=\"expectations\">The scenario states no expectation: the run checks the invariants after every step and at the end.</p>"
        }
        let escape = TimelineSVG.escape
        let rows = result.expectations.map { expectation in
            let reason = expectation.failure.map { ": " + escape($0) } ?? ""
            return "<tr class=\"\(expectation.outcome)\"><td>\(expectation.sign)</td><td>line \(expectation.line)</td><td>\(escape(expectation.text))</td><td>\(escape(expectation.outcomeText))\(reason)</td></tr>"
        }
        return """
            <h2>Expectations: \(ExpectationOutcome.counts(result.expectations))</h2>
            <table class="expectations"><tr><th></th><th>where</th><th>expectation</th><th>outcome</th></tr>
            \(rows.joined(separator: "\n"))
            </table>
            """
    }

    /// `seed 5, in-process, 3 devices, 56 steps, 31m58s simulated`.
    private static func runLine(_ result: ScenarioResult) -> String {
        var parts = ["seed \(result.seed)", result.mode]
        if result.transport == ScenarioTransport.fileSync.rawValue {
            parts.append("file-sync on \(result.machines.count) machine\(result.machines.count == 1 ? "" : "s")")
        } else if result.transport != ScenarioTransport.icloud.rawValue {
            parts.append(result.transport)
        }
        parts.append("\(result.devices.count) device\(result.devices.count == 1 ? "" : "s")")
        parts.append("\(result.steps) steps")
        parts.append("\(SimulatedDuration.text(result.simulatedSeconds)) simulated")
        return parts.joined(separator: ", ")
    }
}
