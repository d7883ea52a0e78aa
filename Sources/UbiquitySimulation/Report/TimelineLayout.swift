import Foundation
import Ubiquity

/// Where every part of the report's timeline goes, worked out before anything is drawn: the
/// lanes that have something to show, each with its transition labels placed in rows so that
/// none overlaps another, its marks, and the band of accounts and stores under it; the
/// violations; the legend; the time axis. `TimelineSVG` draws it.
struct TimelineLayout {
    /// A rectangle in the SVG's coordinates (y down).
    struct Box: Equatable {
        var x, y, width, height: Double
        var maxX: Double { x + width }
        var maxY: Double { y + height }

        func overlaps(_ other: Box) -> Bool {
            x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
        }
    }

    enum LabelStyle: String {
        case transition, note, failure, violation
    }

    /// A text beside the marker it names.
    struct Label {
        var text: String
        var tooltip: String
        var style: LabelStyle
        /// The marker's x.
        var markX: Double
        /// Where the text is drawn: it starts at the box's left edge, its baseline `baseline` below the top.
        var box: Box
    }

    /// A stretch of the band under a device's lane: the account and the store the app was on.
    struct Segment {
        var box: Box
        /// `nil`: the app was not running.
        var store: StoreKind?
        /// What fits in the box, the account (drawn bold) and the store (both empty when nothing
        /// fits; the tooltip says it all).
        var account: String
        var text: String
        var tooltip: String
    }

    struct Lane {
        var name: String
        /// The name as drawn (shortened with … when the column is too narrow).
        var title: String
        /// Smaller lines under the name: the machine, the devices of a machine, labels left out.
        var subtitles: [String]
        var top: Double
        var height: Double
        var labels: [Label]
        /// Transitions whose label found no room: their markers stay, with tooltips.
        var hiddenLabels: Int
        /// The marks drawn as glyphs: saves, imports, transfers, deletions, faults, fault plans, conflicts, notes.
        var marks: [Timeline.Mark]
        /// Transitions and labelled notes: drawn as lines across the lane.
        var markers: [(x: Double, tooltip: String, style: LabelStyle)]
        var marksTop: Double
        /// Offline windows, as x ranges.
        var offline: [(from: Double, to: Double)]
        /// Knowledge over time: (x, level 0…1).
        var knowledge: [(x: Double, level: Double)]
        var knowledgeMost: Int64
        var band: [Segment]
        var bandTop: Double
    }

    /// One entry of the legend.
    struct LegendItem {
        var symbol: String
        var text: String
        var x: Double
        var y: Double
    }

    static let width = 1240.0, plotLeft = 150.0, right = 24.0
    static let labelSize = 10.0, rowHeight = 13.0, baseline = 10.0, labelGap = 6.0
    /// The marks' rows, from the top: saves, uploads, downloads, imports, deletions with faults
    /// and notes, then conflicts with fault plans (`TimelineSVG.glyph`).
    static let marksHeight = 62.0, bandHeight = 16.0, laneMinimum = 58.0
    /// Rows of labels a lane may use before labels are left out (their markers stay).
    static let maxRows = 3
    static let legendSize = 11.0

    var title: String
    var titleColour: String
    /// The violations, wrapped, under the title (only in a standalone SVG: the HTML page has them above).
    var violationLines: [String]
    /// The scenario's about line, wrapped, under the violations (standalone only, as above).
    var aboutLines: [String]
    /// Under the axis (standalone only; the page has a table): a heading, then each
    /// expectation and how it went, wrapped; `style` is `heading` or the outcome.
    var expectationLines: [(text: String, style: String, y: Double)] = []
    var legend: [LegendItem]
    /// Labels of the violations, in their own strip above the lanes, which starts at `violationsTop`.
    var violationLabels: [Label]
    var violationsTop = 0.0
    /// Where each violation happened, and what it says.
    var violationMarkers: [(x: Double, tooltip: String)]
    var lanes: [Lane]
    /// Lanes left out because nothing happened on them.
    var emptyLanes: [String]
    var lanesTop: Double
    var lanesBottom: Double
    var axisY: Double
    var ticks: [(x: Double, text: String)]
    var height: Double
    var duration: Double

    var plotRight: Double { Self.width - Self.right }

    func x(_ time: Double) -> Double {
        Self.plotLeft + (plotRight - Self.plotLeft) * min(max(time, 0), duration) / duration
    }

    init(_ result: ScenarioResult, standalone: Bool) {
        let timeline = result.timeline
        duration = max(timeline.duration, timeline.marks.map(\.time).max() ?? 0, 1)
        let passed = result.passed
        title = !standalone ? "" : "\(result.scenario) — seed \(result.seed), \(result.mode)\(Self.transportText(result)): \(passed ? "passed" : "FAILED")"
        titleColour = passed ? "#1a7f37" : "#c62828"
        let textWidth = Self.width - Self.right - 8
        violationLines = standalone ? result.violations.flatMap { Self.wrap("✗ " + $0.description, width: textWidth, size: 12) } : []
        aboutLines = standalone && !result.about.isEmpty ? Self.wrap(result.about.joined(separator: " "), width: textWidth, size: 12) : []
        // Baselines: the title's at 18, each violation and about line 16 below, the legend's first row 22 below that.
        var y = standalone ? 18 + Double(violationLines.count + aboutLines.count) * 16 + 22 : 14

        // The legend, wrapped to the width.
        legend = []
        var legendX = 8.0
        for (symbol, text) in Self.legendEntries where symbol != "violation" || !passed {
            let itemWidth = 18 + TextMetrics.width(text, size: Self.legendSize) + 14
            if legendX + itemWidth > Self.width - Self.right, legendX > 8 {
                legendX = 8
                y += 18
            }
            legend.append(LegendItem(symbol: symbol, text: text, x: legendX, y: y))
            legendX += itemWidth
        }
        y += 18

        violationLabels = []
        violationMarkers = []
        lanes = []
        emptyLanes = []
        lanesTop = 0
        lanesBottom = 0
        axisY = 0
        ticks = []
        height = 0

        // The violations' strip: each named above the lanes (when there is room), its line across them.
        if !result.violations.isEmpty {
            violationsTop = y
            var rows = LabelRows(left: Self.plotLeft, right: Self.width - Self.right, maxRows: 2)
            for violation in result.violations {
                violationMarkers.append((x(violation.time), violation.description))
                let text = violation.line > 0 ? "violation, line \(violation.line)" : "violation"
                if let place = rows.place(text, at: x(violation.time)) {
                    violationLabels.append(Label(text: text, tooltip: violation.description, style: .violation, markX: x(violation.time),
                                                 box: Box(x: place.x, y: y + Double(place.row) * Self.rowHeight, width: place.width, height: Self.rowHeight - 1)))
                }
            }
            y += Double(rows.used) * Self.rowHeight + 4
        }

        lanesTop = y
        for name in timeline.lanes {
            guard let lane = makeLane(name, result: result, top: y) else {
                emptyLanes.append(name)
                continue
            }
            y += lane.height
            lanes.append(lane)
        }
        lanesBottom = y
        axisY = y + 8
        ticks = Self.tickTimes(duration: duration).map { (x($0), "+" + SimulatedDuration.text($0)) }
        height = axisY + (emptyLanes.isEmpty ? 26 : 42)
        if standalone { placeExpectations(result.expectations, width: textWidth) }
    }

    /// The expectations under the axis, a line 16 below the other, and the height to hold them.
    private mutating func placeExpectations(_ expectations: [ExpectationOutcome], width: Double) {
        var baseline = height + 8
        let heading = expectations.isEmpty ? "Expectations: none stated; the run checks the invariants after every step and at the end"
            : "Expectations: \(ExpectationOutcome.counts(expectations))"
        expectationLines.append((heading, "heading", baseline))
        for expectation in expectations {
            let reason = expectation.failure.map { ": " + $0 } ?? ""
            let text = "\(expectation.sign) line \(expectation.line): \(expectation.text) — \(expectation.outcomeText)\(reason)"
            for line in Self.wrap(text, width: width, size: 11) {
                baseline += 16
                expectationLines.append((line, expectation.outcome, baseline))
            }
        }
        height = baseline + 12
    }

    // MARK: Lanes

    /// One lane, or `nil` when nothing happened on it (a cloud that saw only the violation, which
    /// is drawn across every lane; a device that never ran).
    private func makeLane(_ name: String, result: ScenarioResult, top: Double) -> Lane? {
        let timeline = result.timeline
        let marks = timeline.marks.filter { $0.lane == name && $0.kind != .violation }
        let stores = timeline.stores[name] ?? []
        let knowledgeSamples = timeline.knowledge[name] ?? []
        guard !marks.isEmpty || stores.contains(where: { $0.store != nil }) || !knowledgeSamples.isEmpty else { return nil }

        // Labels: the transitions and step notes of each moment, in order, placed row by row.
        var rows = LabelRows(left: Self.plotLeft, right: plotRight, maxRows: Self.maxRows)
        var placed: [(text: String, tooltip: String, style: LabelStyle, markX: Double, x: Double, width: Double, row: Int)] = []
        var markers: [(x: Double, tooltip: String, style: LabelStyle)] = []
        var hidden = 0
        var glyphs: [Timeline.Mark] = []
        var index = 0
        while index < marks.count {
            let mark = marks[index]
            if mark.kind == .transition {
                var events: [String] = []
                while index < marks.count && marks[index].kind == .transition && marks[index].time == mark.time {
                    events.append(marks[index].text)
                    index += 1
                }
                let when = "+\(SimulatedDuration.text(mark.time)) \(name): "
                for label in TransitionLabel.labels(events) {
                    let style: LabelStyle = label.isTransition ? .transition : .failure
                    markers.append((x(mark.time), when + label.tooltip, style))
                    if let place = rows.place(label.label, at: x(mark.time)) {
                        placed.append((label.label, when + label.tooltip, style, x(mark.time), place.x, place.width, place.row))
                    } else {
                        hidden += 1
                    }
                }
                continue
            }
            index += 1
            if mark.kind == .note, let text = Self.stepNoteLabel(mark.text) {
                let tooltip = "+\(SimulatedDuration.text(mark.time)) \(name): \(mark.text)"
                markers.append((x(mark.time), tooltip, .note))
                if let place = rows.place(text, at: x(mark.time)) {
                    placed.append((text, tooltip, .note, x(mark.time), place.x, place.width, place.row))
                } else {
                    hidden += 1
                }
            } else if mark.kind != .offline && mark.kind != .online {
                glyphs.append(mark)
            }
        }

        let labelsTop = top + 4
        let marksTop = labelsTop + Double(rows.used) * Self.rowHeight + 2
        // A device's band starts with the run: not running until its first launch.
        let hasBand = result.devices.contains { $0.name == name } || stores.contains { $0.store != nil }
        let spans = stores.first.map { $0.time > 0 } ?? true ? [(time: 0.0, store: String?.none)] + stores : stores
        let bandTop = marksTop + Self.marksHeight + 2
        let contentHeight = (hasBand ? bandTop + Self.bandHeight : marksTop + Self.marksHeight) + 6 - top

        let labels = placed.map {
            Label(text: $0.text, tooltip: $0.tooltip, style: $0.style, markX: $0.markX,
                  box: Box(x: $0.x, y: labelsTop + Double($0.row) * Self.rowHeight, width: $0.width, height: Self.rowHeight - 1))
        }

        let offline = offlineWindows(marks)

        // Knowledge, as a level of the most the lane reached.
        let most = knowledgeSamples.map(\.total).max() ?? 0
        let knowledge = most > 0 ? knowledgeSamples.map { (x($0.time), Double($0.total) / Double(most)) } : []

        let band = hasBand ? bandSegments(name, spans: spans, top: bandTop) : []

        var subtitles = Self.subtitles(of: name, result: result)
        if hidden > 0 { subtitles.append("\(hidden) label\(hidden == 1 ? "" : "s") in tooltips") }
        let nameHeight = 24 + Double(subtitles.count) * 12
        return Lane(name: name, title: TextMetrics.truncate(name, toFit: Self.plotLeft - 14, size: 12, bold: true),
                    subtitles: subtitles.map { TextMetrics.truncate($0, toFit: Self.plotLeft - 14, size: 10) },
                    top: top, height: max(Self.laneMinimum, contentHeight, nameHeight),
                    labels: labels, hiddenLabels: hidden, marks: glyphs, markers: markers, marksTop: marksTop,
                    offline: offline, knowledge: knowledge, knowledgeMost: most, band: band, bandTop: bandTop)
    }

    /// The lane's offline windows, as x ranges; one still open ends with the run.
    private func offlineWindows(_ marks: [Timeline.Mark]) -> [(Double, Double)] {
        var offline: [(Double, Double)] = []
        var since: Double?
        for mark in marks where mark.kind == .offline || mark.kind == .online {
            if mark.kind == .offline { since = since ?? mark.time } else if let start = since {
                offline.append((x(start), x(mark.time)))
                since = nil
            }
        }
        if let start = since { offline.append((x(start), x(duration))) }
        return offline
    }

    /// The band: the account and store over time. Stretches too short to see are left out,
    /// and what is on either side of one of them joins up.
    private func bandSegments(_ name: String, spans: [(time: Double, store: String?)], top bandTop: Double) -> [Segment] {
        var stretches: [(from: Double, to: Double, store: String?)] = []
        for (number, span) in spans.enumerated() {
            let end = number + 1 < spans.count ? spans[number + 1].time : duration
            guard x(end) - x(span.time) >= 0.5 else { continue }
            if let last = stretches.last, last.store == span.store {
                stretches[stretches.count - 1].to = end
            } else {
                stretches.append((span.time, end, span.store))
            }
        }
        return stretches.map { stretch in
            let (kind, account) = Self.parseStore(stretch.store)
            let box = Box(x: x(stretch.from), y: bandTop, width: x(stretch.to) - x(stretch.from), height: Self.bandHeight)
            let texts = Self.segmentTexts(kind: kind, account: account, known: stretch.store)
            let fits = texts.first { Self.segmentWidth($0) + 6 <= box.width } ?? ("", "")
            let range = "+\(SimulatedDuration.text(stretch.from)) to +\(SimulatedDuration.text(stretch.to))"
            return Segment(box: box, store: kind, account: fits.account, text: fits.text,
                           tooltip: "\(name), \(range): \(texts[0].account)\(texts[0].text)")
        }
    }

    /// Under a device's name its machine (file-sync); under a machine's its devices.
    private static func subtitles(of lane: String, result: ScenarioResult) -> [String] {
        if let machine = result.machines.first(where: { $0.name == lane }) {
            return [machine.devices.joined(separator: ", "), machine.connected ? "" : "cut off at the end"].filter { !$0.isEmpty }
        }
        if let device = result.devices.first(where: { $0.name == lane }), let machine = device.machine {
            return ["on machine \(machine)"]
        }
        if lane == "cloud" { return ["the shared container"] }
        return []
    }

    /// `account (alice)` (as the runner samples a device's store) → (account, alice); `nil`: not running.
    static func parseStore(_ store: String?) -> (StoreKind?, String?) {
        guard let store else { return (nil, nil) }
        guard let open = store.firstIndex(of: "(") else { return (StoreKind(rawValue: store), nil) }
        let kind = StoreKind(rawValue: store[..<open].trimmingCharacters(in: [" "]))
        let account = store[store.index(after: open)...].dropLast(store.hasSuffix(")") ? 1 : 0)
        return (kind, String(account))
    }

    /// What a segment of the band may say, longest first: the account (bold), then the store.
    private static func segmentTexts(kind: StoreKind?, account: String?, known: String?) -> [(account: String, text: String)] {
        switch kind {
        case .none where known == nil: return [("", "not running")]
        case .none: return [("", known ?? "")]
        case .local?: return [("signed out", " · local store"), ("signed out", " · local"), ("", "local")]
        case let kind?:
            let account = account ?? "?"
            return [(account, " · \(kind.rawValue) store"), (account, " · \(kind.rawValue)"), (account, "")]
        }
    }

    /// How wide a segment's text is drawn.
    static func segmentWidth(_ text: (account: String, text: String)) -> Double {
        TextMetrics.width(text.account, size: labelSize, bold: true) + TextMetrics.width(text.text, size: labelSize)
    }

    /// The runner's notes for steps that a reader looks for, as labels; other notes (conflict
    /// copies, hosts) stay glyphs with tooltips.
    static func stepNoteLabel(_ text: String) -> String? {
        if text.hasPrefix("removed the content of ") { return "remove-content" }
        if text.hasPrefix("quota ") { return text }
        return nil
    }

    private static func transportText(_ result: ScenarioResult) -> String {
        switch result.transport {
        case ScenarioTransport.fileSync.rawValue: return ", file-sync on \(result.machines.count) machine\(result.machines.count == 1 ? "" : "s")"
        case ScenarioTransport.icloud.rawValue: return ""
        default: return ", \(result.transport)"
        }
    }

    // MARK: Legend, axis, wrapping

    /// Symbols (drawn by `TimelineSVG`) and what they mean.
    static let legendEntries: [(String, String)] = [
        ("account", "account store"), ("fallback", "fallback store"), ("local", "local store (signed out)"),
        ("not-running", "not running"), ("offline", "offline"), ("transition", "transition: will/did NAME"),
        ("save", "save"), ("upload", "upload"), ("download", "download"), ("import", "import"),
        ("deletion", "deletion"), ("fault", "fault"), ("fault-plan", "fault plan set"), ("conflict", "conflict recorded"),
        ("note", "note"), ("knowledge", "knowledge (of everybody's saves)"),
        ("violation", "violation"),
    ]

    /// Round times for the axis: at most 10 steps.
    static func tickTimes(duration: Double) -> [Double] {
        let steps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 10_800, 21_600, 43_200,
                               86_400, 172_800, 604_800, 1_209_600, 2_419_200]
        let step = steps.first { duration / $0 <= 10 } ?? (duration / 10).rounded(.up)
        return stride(from: 0, through: duration, by: step).map { $0 }
    }

    /// `text` in lines no wider than `width`, broken between words (a word wider than a line is cut).
    static func wrap(_ text: String, width: Double, size: Double) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            let candidate = line.isEmpty ? word : line + " " + word
            if TextMetrics.width(candidate, size: size) <= width || line.isEmpty && TextMetrics.width(word, size: size) <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            var rest = word
            while TextMetrics.width(rest, size: size) > width {
                let piece = TextMetrics.truncate(rest, toFit: width, size: size).dropLast()
                guard !piece.isEmpty else { break }
                lines.append(String(piece))
                rest = String(rest.dropFirst(piece.count))
            }
            line = rest
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

/// Rows of labels: each label goes in the first row where it overlaps none, to the right of its
/// marker or, when no row has room there, to the left.
struct LabelRows {
    let left: Double
    let right: Double
    let maxRows: Int
    private var rows: [[(from: Double, to: Double)]] = []

    init(left: Double, right: Double, maxRows: Int) {
        self.left = left
        self.right = right
        self.maxRows = maxRows
    }

    /// How many rows hold a label.
    var used: Int { rows.count }

    /// Where `text` goes for a marker at `markX`, or `nil` when no row has room for it.
    mutating func place(_ text: String, at markX: Double) -> (x: Double, width: Double, row: Int)? {
        let width = TextMetrics.width(text, size: TimelineLayout.labelSize)
        let candidates = [markX + 3, markX - 3 - width].filter { $0 >= left && $0 + width <= right }
        for start in candidates {
            for row in 0..<maxRows {
                if row == rows.count { rows.append([]) }
                let from = start - TimelineLayout.labelGap / 2, to = start + width + TimelineLayout.labelGap / 2
                if !rows[row].contains(where: { $0.from < to && from < $0.to }) {
                    rows[row].append((from, to))
                    return (start, width, row)
                }
            }
        }
        while rows.last?.isEmpty == true { rows.removeLast() }
        return nil
    }
}
