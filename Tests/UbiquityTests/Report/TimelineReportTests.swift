import Foundation
import Testing
@testable import UbiquitySimulation

/// The report reads at a glance, checked by reading back what it draws (no browser): no two
/// labels overlap, transitions are named, every lane drawn has something on it, the band under
/// a device's lane names the account and store, and a failing run's violation comes first.
@Suite("Scenario report")
struct TimelineReportTests {
    // MARK: A made-up run, crowded on purpose

    /// Two devices, a device that never ran, a cloud that saw only the violation; transitions at
    /// one moment, a burst too dense for three rows of labels, one at the right edge.
    static func crowded() -> ScenarioResult {
        var result = ScenarioResult(scenario: "crowded", seed: 1, mode: "in-process")
        var timeline = Timeline()
        timeline.lanes = ["iphone", "ipad", "never", "cloud"]
        func events(_ time: Double, _ lane: String, _ texts: String...) {
            for text in texts { timeline.mark(time, lane, .transition, text) }
        }
        events(0, "iphone", "did-change:added:fallback", "will-change:initialImportCompleted", "did-change:initialImportCompleted:account")
        events(600, "iphone", "will-change:accountAdded", "did-change:accountAdded:fallback")
        events(610, "iphone", "will-change:initialImportCompleted", "did-change:initialImportCompleted:account")
        for second in 0..<12 { events(1_800 + Double(second), "iphone", "will-change:contentRemoved") }
        events(3_590, "iphone", "will-change:accountRemoved", "did-change:accountRemoved:local")
        timeline.mark(300, "ipad", .save, "saved account transaction 1 (1 objects)")
        timeline.mark(130, "ipad", .importChanges, "did-import:1")
        timeline.mark(130, "ipad", .upload, "upload a.cdt")
        events(140, "ipad", "did-change:added:account", "will-change-save-failed:disk full")
        timeline.mark(1_800, "cloud", .violation, "iphone has 2 notes; the scenario expects 3")
        for (time, store) in [(0.0, "fallback (alice)"), (0, "account (alice)"), (600, "fallback (bob)"), (610, "account (bob)"), (3_590, "local")] {
            timeline.sample("iphone", time: time, knowledge: Int64(time / 100), store: store)
        }
        timeline.sample("ipad", time: 300, knowledge: 1, store: "account (alice)")
        timeline.sample("ipad", time: 2_000, knowledge: nil, store: nil)
        timeline.duration = 3_600
        result.timeline = timeline
        result.devices = ["iphone", "ipad", "never"].map { DeviceSummary(name: $0, peerID: $0) }
        result.violations = [Violation(source: "crowded.scenario", line: 7, step: "iphone expect count Note 3", time: 1_800,
                                       message: "iphone has 2 live Note objects; the scenario expects 3")]
        return result
    }

    @Test func crowdedLabelsAreStackedOrLeftToTheirTooltipsNeverOverlapping() throws {
        let drawing = try TimelineDrawing(svg: TimelineReport.svg(Self.crowded()))
        try Self.checkReadable(drawing)
        #expect(drawing.laneNames == ["iphone", "ipad"], "the device that never ran and the cloud that saw only the violation are left out")
        let iphone = try #require(drawing.lanes.first { $0.attributes["data-lane"] == "iphone" })
        let shown = iphone.all { $0.classes.contains("label") }.count
        let markers = iphone.all { $0.classes.contains("marker") }.count
        // 2 at launch, 2 for the switch, 12 in the burst, 1 at the end: every one keeps its marker.
        #expect(markers == 17)
        #expect(shown < markers, "the burst does not fit in three rows")
        let note = iphone.all { $0.classes.contains("lane-subtitle") }.map(\.visibleText)
        #expect(note == ["\(markers - shown) labels in tooltips"])
        // The label at the right edge is drawn to the left of its marker, inside the plot.
        let last = try #require(drawing.labels.first { $0.visibleText == "will/did accountRemoved" })
        #expect(TimelineDrawing.box(of: last).maxX <= TimelineLayout.width - TimelineLayout.right)
        let empty = drawing.root.all { $0.classes.contains("empty-lanes") }.map(\.visibleText)
        #expect(empty == ["Not drawn, since nothing happened on them: never, cloud"])
    }

    @Test func transitionsAreNamedAndTheirNumbersAreInTheTooltips() throws {
        let drawing = try TimelineDrawing(svg: TimelineReport.svg(Self.crowded()))
        let texts = Set(drawing.labels.filter { $0.classes.contains("transition") }.map(\.visibleText))
        #expect(texts.isSuperset(of: ["store added", "will/did initialImportCompleted", "will/did accountAdded", "will contentRemoved"]))
        let tooltips = drawing.root.all { $0.classes.contains("marker") }.compactMap(\.tooltip)
        #expect(tooltips.contains("+10m iphone: will-change, then did-change: accountAdded (NSPersistentStoreUbiquitousTransitionType 1), now on the fallback store"))
        #expect(tooltips.contains("+0s iphone: did-change: a store added at launch (no transition type), now on the fallback store"))
        #expect(tooltips.contains { $0.contains("contentRemoved (NSPersistentStoreUbiquitousTransitionType 3)") })
        let failure = drawing.labels.filter { $0.classes.contains("failure") }.map(\.visibleText)
        #expect(failure == ["save in will-change failed"])
    }

    @Test func theBandNamesTheAccountAndStoreWhereTheyChange() throws {
        let drawing = try TimelineDrawing(svg: TimelineReport.svg(Self.crowded()))
        let iphone = drawing.segments(of: "iphone")
        // The fallback of the first launch lasted no time: it is in the labels, not in the band.
        #expect(iphone.map(\.tooltip) == [
            "iphone, +0s to +10m: alice · account store", "iphone, +10m to +10m10s: bob · fallback store",
            "iphone, +10m10s to +59m50s: bob · account store", "iphone, +59m50s to +1h: signed out · local store",
        ])
        #expect(iphone[0].text == "alice · account store" && iphone[2].text == "bob · account store")
        #expect(iphone[1].text == "" && iphone[3].text == "", "too narrow to say it: the tooltip does")
        let ipad = drawing.segments(of: "ipad").map(\.text)
        #expect(ipad == ["not running", "alice · account store", "not running"])
    }

    @Test func aFailingRunsViolationComesFirstInRedWithItsStep() throws {
        let result = Self.crowded()
        let page = TimelineReport.html(result)
        let heading = try #require(page.range(of: "<h1>"))
        let block = try #require(page.range(of: "<section class=\"violations\">"))
        let figure = try #require(page.range(of: "<svg"))
        let summary = try #require(page.range(of: "<pre class=\"summary\">"))
        #expect(heading.upperBound < block.lowerBound && block.upperBound < figure.lowerBound && figure.upperBound < summary.lowerBound)
        let between = page[heading.upperBound..<block.lowerBound]
        #expect(between.contains("FAILED") && !between.contains("<p") && !between.contains("<div"), "nothing stands between the verdict and the violation")
        let section = page[block.lowerBound..<figure.lowerBound]
        #expect(section.contains("crowded.scenario, line 7 at +30m"))
        #expect(section.contains("step <code>iphone expect count Note 3</code>"))
        #expect(section.contains("iphone has 2 live Note objects; the scenario expects 3"))
        #expect(page.contains(".violations { border: 2px solid #c62828;"), "the block is red")
        #expect(page.contains("pre.summary { background: #f6f8fa; padding: 12px; white-space: pre-wrap;"), "the summary wraps")

        // The SVG alone says it under its title, in red, and marks the moment across the lanes.
        let drawing = try TimelineDrawing(svg: TimelineReport.svg(result))
        let texts = drawing.root.all { $0.name == "text" }
        #expect(texts.first?.visibleText.hasSuffix("FAILED") == true)
        #expect(texts.dropFirst().first?.classes.contains("violation-text") == true)
        #expect(texts.dropFirst().first?.attributes["fill"] == TimelineSVG.Colour.violation)
        #expect(texts.dropFirst().first?.visibleText.hasPrefix("✗ crowded.scenario:7 at +30m (iphone expect count Note 3):") == true)
        #expect(drawing.labels.filter { $0.classes.contains("violation") }.map(\.visibleText) == ["violation, line 7"])
    }

    @Test func aRunThatPassedHasNoViolationBlock() throws {
        var result = Self.crowded()
        result.violations = []
        result.timeline.marks.removeAll { $0.kind == .violation }
        let page = TimelineReport.html(result)
        #expect(!page.contains("class=\"violations\"") && !page.contains("violation, line"))
        #expect(page.contains("<span class=\"passed\">passed</span>"))
    }

    @Test func textIsMeasuredWideAndShortenedToFit() {
        // Wider than Helvetica's own widths (556 thousandths for a digit, 500 for "v").
        #expect(TextMetrics.width("0", size: 10) >= 5.56)
        #expect(TextMetrics.width("will/did initialImportCompleted", size: 10) > 140)
        #expect(TextMetrics.truncate("a very long device name indeed", toFit: 60, size: 12).hasSuffix("…"))
        #expect(TextMetrics.width(TextMetrics.truncate("a very long device name indeed", toFit: 60, size: 12), size: 12) <= 60)
        #expect(TextMetrics.truncate("iphone", toFit: 60, size: 12) == "iphone")
        #expect(TimelineLayout.wrap("one two three four five six", width: TextMetrics.width("one two three", size: 10), size: 10)
                == ["one two three", "four five six"])
    }

    // MARK: Real runs, on both transports

    @Test(arguments: [ScenarioTransport.icloud, .fileSync])
    func theAccountSwitchShowsEachLanesAccountsOnBothTransports(transport: ScenarioTransport) throws {
        var options = try ScenarioFixtures.options()
        options.transport = transport
        let result = try ScenarioFixtures.run(try ScenarioFixtures.builtIn("account-switch"), options)
        #expect(result.passed, "\(result.text)")
        for drawing in [try TimelineDrawing(html: TimelineReport.html(result)), try TimelineDrawing(svg: TimelineReport.svg(result))] {
            try Self.checkReadable(drawing)
            let machines = transport == .fileSync ? ["machine 1", "machine 2", "machine 3"] : []
            #expect(drawing.laneNames == ["iphone", "ipad", "mac"] + machines)
            // The iPhone goes alice → bob → alice → bob; the iPad signs out and back.
            let iphone = drawing.segments(of: "iphone").map(\.text).filter { $0.hasSuffix("account store") }
            #expect(iphone == ["alice · account store", "bob · account store", "alice · account store"], "the last stretch is too short to name")
            #expect(drawing.segments(of: "iphone").last?.tooltip.hasSuffix("bob · account store") == true)
            let ipad = drawing.segments(of: "ipad").map(\.text)
            #expect(ipad == ["alice · account store", "signed out · local store", "alice · account store"])
            let names = drawing.lanes.map { lane in (lane.attributes["data-lane"] ?? "", lane.all { $0.classes.contains("lane-subtitle") }.map(\.visibleText)) }
            if transport == .fileSync {
                #expect(names.first { $0.0 == "iphone" }?.1 == ["on machine 1"])
                #expect(names.first { $0.0 == "machine 3" }?.1 == ["mac"])
            }
        }
    }

    /// offline-edits, which records a conflict on both devices under a fault plan: the page says
    /// what the scenario is about and how each of its expectations went; each device's lane
    /// marks the conflict it recorded, and the plan is a flag at +0 s, never a fault's cross.
    @Test func aRunShowsItsAboutExpectationsConflictsAndFaultPlan() throws {
        let scenario = try ScenarioFixtures.builtIn("offline-edits")
        let result = try ScenarioFixtures.run(scenario, try ScenarioFixtures.options())
        #expect(result.passed, "\(result.text)")
        let page = TimelineReport.html(result)
        let about = try #require(scenario.about.first)
        #expect(page.contains("<p class=\"about\">\(TimelineSVG.escape(about))</p>"))

        // Every expect line of the file, in order, held (none of them is in a block).
        let lines = try String(contentsOfFile: ScenarioFixtures.directory + "/offline-edits.scenario", encoding: .utf8)
            .components(separatedBy: "\n").enumerated().filter { $0.element.contains(" expect ") || $0.element.hasPrefix("expect ") }
        #expect(result.expectations.map(\.line) == lines.map { $0.offset + 1 })
        #expect(result.expectations.allSatisfy { $0.held == 1 && $0.failedAt == nil })
        #expect(page.contains("<h2>Expectations: \(lines.count) held</h2>"))
        #expect(page.contains("<tr class=\"held\"><td>✓</td><td>line 24</td><td>iphone expect count Note 8</td><td>held</td></tr>"))

        let drawing = try TimelineDrawing(html: page)
        try Self.checkReadable(drawing)
        for lane in drawing.lanes {
            let name = lane.attributes["data-lane"] ?? ""
            let conflicts = lane.all { $0.classes.contains("conflict") }.compactMap(\.tooltip)
            #expect(conflicts.contains { $0.contains(" \(name): conflict recorded: Note/w2.title: mac's write won over iphone's") }, "\(name): \(conflicts)")
            let plans = lane.all { $0.classes.contains("fault-plan") }
            let plan = try #require(result.timeline.marks.first { $0.lane == name && $0.kind == .faultPlan })
            #expect(plan.time == 0 && plan.text.hasPrefix("faults: delay=1s..30s"), "\(plan)")
            #expect(plans.map(\.tooltip) == ["+0s \(name): \(plan.text)"])
            #expect(plans.allSatisfy { $0.attributes["d"]?.hasPrefix("M\(TimelineSVG.n(TimelineLayout.plotLeft)),") == true }, "the plan is drawn at +0 s")
            #expect(lane.all { $0.classes.contains("fault") }.allSatisfy { !($0.tooltip ?? "").contains(": faults: ") }, "no plan drawn as a fault")
        }
        let legend = drawing.root.all { $0.classes.contains("legend-text") }.map(\.visibleText)
        #expect(legend.contains("fault") && legend.contains("fault plan set") && legend.contains("conflict recorded"))
    }

    @Test func aFailingRunNamesItsLineTimeAndStepFirst() throws {
        let text = """
            scenario wrong-count
            seed 3
            devices iphone mac
            all launch
            wait 5m
            iphone insert Note a title="one"
            iphone save
            settle
            iphone expect count Note 1
            mac expect count Note 3
            mac expect count Note 1
            """
        var options = try ScenarioFixtures.options()
        let work = options.workDirectory ?? NSTemporaryDirectory() + "/ubiquity-report-test-" + UUID().uuidString
        options.workDirectory = work
        defer { try? FileManager.default.removeItem(atPath: work) }
        let result = try ScenarioFixtures.run(try ScenarioParser.parse(text, source: "wrong-count.scenario"), options)
        #expect(!result.passed)
        let page = TimelineReport.html(result)
        let block = try #require(page.range(of: "<section class=\"violations\">"))
        let figure = try #require(page.range(of: "<svg"))
        #expect(block.upperBound < figure.lowerBound)
        let violation = try #require(result.violations.first)
        #expect(page[block.lowerBound..<figure.lowerBound].contains("wrong-count.scenario, line 10 at +\(SimulatedDuration.text(violation.time))</span>, step <code>mac expect count Note 3</code>"))
        // The expectation before it held, it failed, and the run stopped before the one after.
        #expect(page.contains("<h2>Expectations: 1 held, 1 failed, 1 not reached</h2>"))
        #expect(page.contains("<tr class=\"held\"><td>✓</td><td>line 9</td><td>iphone expect count Note 1</td><td>held</td></tr>"))
        #expect(page.contains("<tr class=\"failed\"><td>✗</td><td>line 10</td><td>mac expect count Note 3</td><td>failed at +\(SimulatedDuration.text(violation.time)): \(TimelineSVG.escape(violation.message))</td></tr>"))
        #expect(page.contains("<tr class=\"not-reached\"><td>–</td><td>line 11</td><td>mac expect count Note 1</td><td>not reached</td></tr>"))
        try Self.checkReadable(try TimelineDrawing(html: page))
    }

    /// `Tests/Fixtures/scenarios`: scenarios made for the tests (and the docs' examples).
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/scenarios").path

    /// The fields of `ScenarioResult.jsonValue` this suite reads, decoded as a client would.
    struct ReportJSON: Decodable {
        struct Expectation: Decodable, Equatable {
            var line: Int
            var text: String
            var held: Bool
            var outcome: String
            var timesHeld: Int
            var failedAt: Double?
            var reason: String?
        }
        struct Conflict: Decodable, Equatable {
            var time: Double
            var device, object, property, kind, winner, loser: String
        }
        struct Faults: Decodable, Equatable {
            struct Range: Decodable, Equatable { var from, to: Double }
            var delay: Range?
            var retry: Range?
            var drop, truncate, duplicate, lose: Double?
            var reorder: Bool?
            var skew: Range?
        }
        struct FaultPlan: Decodable {
            var time: Double
            var lane: String
            var kind: String
            var faults: Faults?
            var seconds: Double?
        }
        var passed: Bool
        var about: [String]
        var expectations: [Expectation]
        var conflictsRecorded: [Conflict]
        var faultPlans: [FaultPlan]
    }

    /// late-edit: an about line, a fault plan, a conflict on both devices, an expectation that
    /// holds, one that fails and one never reached. The JSON report has each of them, typed
    /// (decoded here as a client would), and so do the text, the page and the SVG alone.
    @Test func everyFormCarriesTheAboutLineExpectationsConflictsAndFaultPlans() throws {
        let scenario = try ScenarioParser.load(path: Self.fixtures + "/late-edit.scenario")
        let result = try ScenarioFixtures.run(scenario, try ScenarioFixtures.options(), expectingViolations: true)
        let violation = try #require(result.violations.first, "\(result.text)")
        #expect(result.violations.count == 1 && violation.line == 24, "\(result.text)")
        let about = try #require(scenario.about.first)
        let failedAt = "failed at +\(SimulatedDuration.text(violation.time))"

        let json = try JSONDecoder().decode(ReportJSON.self, from: Data(result.jsonValue.text().utf8))
        #expect(!json.passed && json.about == [about])
        #expect(json.expectations == [
            .init(line: 23, text: "iphone expect conflicts 1", held: true, outcome: "held", timesHeld: 1, failedAt: nil, reason: nil),
            .init(line: 24, text: "mac expect count Note 2", held: false, outcome: "failed", timesHeld: 0, failedAt: violation.time, reason: violation.message),
            .init(line: 25, text: "expect converged", held: false, outcome: "not-reached", timesHeld: 0, failedAt: nil, reason: nil),
        ])
        // The Mac's edit came an hour after the iPhone's: it won on both devices.
        #expect(json.conflictsRecorded.map(\.device).sorted() == ["iphone", "mac"], "\(json.conflictsRecorded)")
        for conflict in json.conflictsRecorded {
            #expect(conflict.object == "Note/n1" && conflict.property == "title" && conflict.kind == "update", "\(conflict)")
            #expect(conflict.winner == "mac" && conflict.loser == "iphone", "\(conflict)")
            #expect(result.timeline.marks.contains { $0.kind == .conflict && $0.lane == conflict.device && $0.time == conflict.time })
        }
        #expect(json.faultPlans.map(\.lane) == ["iphone", "mac"])
        for plan in json.faultPlans {
            #expect(plan.time == 0 && plan.kind == "faults" && plan.seconds == nil)
            #expect(plan.faults == .init(delay: .init(from: 1, to: 30), drop: 0.05), "\(plan)")
        }

        // The text report.
        let text = result.text.components(separatedBy: "\n")
        #expect(text.dropFirst().first == "  about: \(about)")
        #expect(text.contains("Expectations: 1 held, 1 failed, 1 not reached"))
        #expect(text.contains("  ✓ line 23: iphone expect conflicts 1: held"))
        #expect(text.contains("  ✗ line 24: mac expect count Note 2: \(failedAt): \(violation.message)"))
        #expect(text.contains("  – line 25: expect converged: not reached"))

        // The page, which needs no script to show any of it.
        let page = TimelineReport.html(result)
        #expect(!page.contains("<script"))
        #expect(page.contains("<p class=\"about\">\(TimelineSVG.escape(about))</p>"))
        #expect(page.contains("<h2>Expectations: 1 held, 1 failed, 1 not reached</h2>"))
        #expect(page.contains("<tr class=\"held\"><td>✓</td><td>line 23</td><td>iphone expect conflicts 1</td><td>held</td></tr>"))
        #expect(page.contains("<tr class=\"failed\"><td>✗</td><td>line 24</td><td>mac expect count Note 2</td><td>\(failedAt): \(TimelineSVG.escape(violation.message))</td></tr>"))
        #expect(page.contains("<tr class=\"not-reached\"><td>–</td><td>line 25</td><td>expect converged</td><td>not reached</td></tr>"))

        // The SVG alone: the about line under the verdict and the violation, the expectations under the axis.
        let svg = try TimelineDrawing(svg: TimelineReport.svg(result))
        try Self.checkReadable(svg)
        let texts = svg.root.all { $0.name == "text" }
        #expect(texts.filter { $0.classes.contains("about") }.map(\.visibleText).joined(separator: " ") == about)
        #expect(texts.firstIndex { $0.classes.contains("about") } == texts.lastIndex { $0.classes.contains("violation-text") }.map { $0 + 1 })
        #expect(texts.filter { $0.classes.contains("expectations") }.map(\.visibleText) == ["Expectations: 1 held, 1 failed, 1 not reached"])
        func lines(_ outcome: String) -> String {
            texts.filter { $0.classes.isSuperset(of: ["expectation", outcome]) }.map(\.visibleText).joined(separator: " ")
        }
        #expect(lines("held") == "✓ line 23: iphone expect conflicts 1 — held")
        #expect(lines("failed") == "✗ line 24: mac expect count Note 2 — \(failedAt): \(violation.message)")
        #expect(lines("not-reached") == "– line 25: expect converged — not reached")
        let axis = try #require(texts.last { $0.classes.isEmpty && $0.visibleText.hasPrefix("+") })
        #expect(texts.filter { $0.classes.contains("expectation") }.allSatisfy { $0.number("y") > axis.number("y") }, "under the axis")

        // Both drawings mark the conflict and the plan on each device's lane.
        for drawing in [try TimelineDrawing(html: page), svg] {
            for lane in drawing.lanes {
                let name = lane.attributes["data-lane"] ?? ""
                let conflicts = lane.all { $0.classes.contains("conflict") }.compactMap(\.tooltip)
                #expect(conflicts.contains { $0.hasSuffix(" \(name): conflict recorded: Note/n1.title: mac's write won over iphone's") }, "\(name): \(conflicts)")
                let plans = lane.all { $0.classes.contains("fault-plan") }.compactMap(\.tooltip)
                #expect(plans == ["+0s \(name): faults: delay=1s..30s drop=0.05"], "\(name): \(plans)")
            }
        }
    }

    // MARK: What every drawing must hold

    /// No two labels overlap, nor any two texts; each label stays inside the plot; transitions are named (no bare
    /// numbers); every lane has something on it; a band's text fits its segment.
    static func checkReadable(_ drawing: TimelineDrawing, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(drawing.overlappingLabels.isEmpty, "\(drawing.overlappingLabels.prefix(5))", sourceLocation: sourceLocation)
        #expect(drawing.overlappingTexts.isEmpty, "\(drawing.overlappingTexts.prefix(5))", sourceLocation: sourceLocation)
        for label in drawing.labels {
            let box = TimelineDrawing.box(of: label)
            #expect(box.x >= TimelineLayout.plotLeft && box.maxX <= TimelineLayout.width - TimelineLayout.right,
                    "'\(label.visibleText)' \(box) leaves the plot", sourceLocation: sourceLocation)
            if label.classes.contains("transition") {
                #expect(TransitionLabel.allTexts.contains(label.visibleText), "'\(label.visibleText)' is not a transition's name", sourceLocation: sourceLocation)
            }
        }
        let everything = drawing.root.visibleText
        #expect(everything.range(of: #"\b(will|did) [0-9]"#, options: .regularExpression) == nil, "a raw transition number", sourceLocation: sourceLocation)
        #expect(!drawing.lanes.isEmpty, sourceLocation: sourceLocation)
        let content: Set<String> = ["save", "upload", "download", "import", "deletion", "fault", "fault-plan", "conflict", "note", "marker",
                                    "segment-box", "knowledge"]
        for lane in drawing.lanes {
            #expect(!lane.all(where: { !$0.classes.isDisjoint(with: content) }).isEmpty, "lane \(lane.attributes["data-lane"] ?? "?") is empty", sourceLocation: sourceLocation)
        }
        for lane in drawing.laneNames {
            for segment in drawing.segments(of: lane) where !segment.text.isEmpty {
                let width = TextMetrics.width(segment.account, size: TimelineLayout.labelSize, bold: true)
                    + TextMetrics.width(String(segment.text.dropFirst(segment.account.count)), size: TimelineLayout.labelSize)
                #expect(width + 3 <= segment.width, "'\(segment.text)' does not fit its segment of \(segment.width)", sourceLocation: sourceLocation)
            }
        }
    }
}
