import Foundation
import Testing
@testable import UbiquitySimulation

/// The report in a real browser: headless Chromium lays the page out with real fonts, and a
/// script added to a copy of the page measures what it drew. No label overlaps another, the
/// layout's estimate of each text's width is never short, every band text stays inside its
/// segment, and nothing runs off the page sideways (the summary wraps). The about line and a
/// row per expectation are on the page; every conflict and fault plan of the run is a glyph in
/// the plot of its lane, above the band, clear of every text.
@Suite("Scenario report in a browser")
struct TimelineBrowserTests {
    static let chromium: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["chromium", "chromium-browser"] {
            for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        return nil
    }()

    /// What the page's script measured (CSS pixels; SVG user units for the SVG's parts).
    struct Measured: Decodable {
        struct Text: Decodable {
            var text: String
            var x, y, width, height: Double
        }
        struct Segment: Decodable {
            var text: String
            var boxX, boxWidth, textX, textWidth: Double
        }
        /// A glyph in a lane, and where that lane's band starts (`nil`: it has none).
        struct Glyph: Decodable {
            var lane: String
            var x, y, width, height: Double
            var bandTop: Double?
        }
        var labels: [Text]
        /// Every text of the SVG.
        var texts: [Text]
        var segments: [Segment]
        var pageWidth: Double
        var viewportWidth: Double
        var summaryScrollWidth: Double
        var summaryWidth: Double
        /// The page's about line and its expectation rows (CSS pixels).
        var about: Text?
        var expectationRows: [Text]
        var conflicts: [Glyph]
        var plans: [Glyph]
    }

    static let script = """
        <pre id="browser-check"></pre><script>
        (function () {
          const svg = document.querySelector('svg.timeline');
          const box = t => {
            const b = t.getBBox();
            return { text: t.lastChild.textContent, x: b.x, y: b.y, width: b.width, height: b.height };
          };
          const labels = Array.from(svg.querySelectorAll('text.label')).map(box);
          const texts = Array.from(svg.querySelectorAll('text')).map(box);
          const segments = Array.from(svg.querySelectorAll('g.segment')).filter(g => g.querySelector('text')).map(g => {
            const r = g.querySelector('rect').getBBox(), t = g.querySelector('text').getBBox();
            return { text: g.querySelector('text').textContent, boxX: r.x, boxWidth: r.width, textX: t.x, textWidth: t.width };
          });
          const summary = document.querySelector('pre.summary') || document.body;
          const rect = e => {
            const r = e.getBoundingClientRect();
            return { text: e.textContent, x: r.x, y: r.y, width: r.width, height: r.height };
          };
          const glyphs = name => Array.from(svg.querySelectorAll('g.lane .' + name)).map(g => {
            const b = g.getBBox(), lane = g.closest('g.lane'), band = lane.querySelector('rect.segment-box');
            return { lane: lane.dataset.lane, x: b.x, y: b.y, width: b.width, height: b.height, bandTop: band ? band.getBBox().y : null };
          });
          const about = document.querySelector('p.about');
          document.getElementById('browser-check').textContent = JSON.stringify({
            labels, texts, segments, pageWidth: document.documentElement.scrollWidth, viewportWidth: window.innerWidth,
            summaryScrollWidth: summary.scrollWidth, summaryWidth: summary.clientWidth,
            about: about ? rect(about) : null,
            expectationRows: Array.from(document.querySelectorAll('table.expectations tr')).slice(1).map(rect),
            conflicts: glyphs('conflict'), plans: glyphs('fault-plan') });
        })();
        </script>
        """

    @Test(.enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium): the report is not checked in a browser"))
    func theReportReadsInARealBrowser() throws {
        var options = try ScenarioFixtures.options()
        options.transport = .fileSync
        let accountSwitch = try ScenarioFixtures.run(try ScenarioFixtures.builtIn("account-switch"), options)
        // Conflicts on two lanes, and a fault plan on each.
        let offlineEdits = try ScenarioFixtures.run(try ScenarioFixtures.builtIn("offline-edits"), try ScenarioFixtures.options())
        #expect(accountSwitch.passed && offlineEdits.passed)
        let pages = [TimelineReportTests.crowded(), accountSwitch, offlineEdits].flatMap { result in
            // The SVG alone, as `--report FILE.svg` writes it, in a page of its own.
            [(result.scenario, result, TimelineReport.html(result), true),
             (result.scenario + " (SVG alone)", result, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\(TimelineReport.svg(result))</body></html>", false)]
        }
        for (name, result, page, whole) in pages {
            let measured = try Self.measure(page)
            if whole { Self.checkAboutAndExpectations(measured, of: result, name) }
            Self.checkGlyphs(measured, of: result, name)
            #expect(!measured.labels.isEmpty && !measured.segments.isEmpty, "\(name): nothing measured")
            for first in measured.labels {
                // The layout's estimate errs wide, so its spacing holds in the real font.
                #expect(first.width <= TextMetrics.width(first.text, size: TimelineLayout.labelSize) + 0.5,
                        "\(name): '\(first.text)' is \(first.width) wide, estimated \(TextMetrics.width(first.text, size: TimelineLayout.labelSize))")
            }
            // No two texts overlap: labels, names, the legend, the band, the axis, the title.
            for (index, first) in measured.texts.enumerated() {
                for second in measured.texts[(index + 1)...] {
                    let apart = first.x + first.width <= second.x || second.x + second.width <= first.x
                        || first.y + first.height <= second.y || second.y + second.height <= first.y
                    #expect(apart, "\(name): '\(first.text)' \(first) overlaps '\(second.text)' \(second)")
                }
            }
            for segment in measured.segments {
                #expect(segment.textX >= segment.boxX && segment.textX + segment.textWidth <= segment.boxX + segment.boxWidth,
                        "\(name): '\(segment.text)' runs out of its segment: \(segment)")
            }
            #expect(measured.pageWidth <= measured.viewportWidth, "\(name): the page scrolls sideways")
            #expect(measured.summaryScrollWidth <= measured.summaryWidth, "\(name): the summary is cut off sideways")
        }
    }

    /// The about line says what the scenario wrote, and each expectation has its row; neither
    /// runs off the window.
    static func checkAboutAndExpectations(_ measured: Measured, of result: ScenarioResult, _ name: String) {
        if result.about.isEmpty {
            #expect(measured.about == nil, "\(name)")
        } else if let about = measured.about {
            #expect(about.text == result.about.joined(separator: " ") && about.height > 0, "\(name): \(about)")
            #expect(about.x + about.width <= measured.viewportWidth, "\(name): the about line runs off the window")
        } else {
            Issue.record("\(name): no about line")
        }
        #expect(measured.expectationRows.count == result.expectations.count, "\(name): \(measured.expectationRows.count) rows")
        for row in measured.expectationRows {
            #expect(row.height > 0 && row.x + row.width <= measured.viewportWidth, "\(name): '\(row.text)' \(row)")
        }
    }

    /// Every conflict and fault plan of the run is drawn: in the plot, above its lane's band,
    /// over no text.
    static func checkGlyphs(_ measured: Measured, of result: ScenarioResult, _ name: String) {
        let marks = result.timeline.marks
        #expect(measured.conflicts.count == marks.filter { $0.kind == .conflict }.count, "\(name): conflicts drawn")
        #expect(measured.plans.count == marks.filter { $0.kind == .faultPlan }.count, "\(name): fault plans drawn")
        if result.scenario == "offline-edits" {
            #expect(Set(measured.conflicts.map(\.lane)) == ["iphone", "mac"] && Set(measured.plans.map(\.lane)) == ["iphone", "mac"], "\(name)")
        }
        for glyph in measured.conflicts + measured.plans {
            #expect(glyph.width > 0 && glyph.height > 0, "\(name): \(glyph)")
            #expect(glyph.x >= TimelineLayout.plotLeft - 5 && glyph.x + glyph.width <= TimelineLayout.width - TimelineLayout.right + 5, "\(name): \(glyph) leaves the plot")
            if let band = glyph.bandTop { #expect(glyph.y + glyph.height <= band, "\(name): \(glyph) runs into the band") }
            for text in measured.texts {
                let apart = glyph.x + glyph.width <= text.x || text.x + text.width <= glyph.x || glyph.y + glyph.height <= text.y || text.y + text.height <= glyph.y
                #expect(apart, "\(name): \(glyph) lies over '\(text.text)' \(text)")
            }
        }
    }

    /// Lays `page` out in headless Chromium (1400 pixels wide) with the measuring script added.
    static func measure(_ page: String) throws -> Measured {
        let chromium = try #require(chromium)
        let folder = NSTemporaryDirectory() + "/ubiquity-report-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/report.html"
        try page.replacingOccurrences(of: "</body>", with: script + "</body>").write(toFile: file, atomically: true, encoding: .utf8)
        let run = try UbiqProcess(binary: chromium, arguments: [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(folder)/profile", "--window-size=1400,900",
            "--dump-dom", "file://\(file)",
        ], directory: folder).wait(timeout: 120)
        #expect(run.succeeded, "\(run)")
        let dom = run.stdout
        guard let start = dom.range(of: "<pre id=\"browser-check\">"), let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex) else {
            throw TimelineDrawing.ParseError(description: "the page's script left no measurements: \(run)")
        }
        let json = dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode(Measured.self, from: Data(json.utf8))
    }
}
