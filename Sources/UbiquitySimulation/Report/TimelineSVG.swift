import Ubiquity

/// Draws a `TimelineLayout` as SVG. Elements carry classes (`lane`, `label`, `segment`,
/// `violation`) and a lane its `data-lane`, so the drawing can be checked by reading it.
enum TimelineSVG {
    static func draw(_ layout: TimelineLayout) -> String {
        let width = TimelineLayout.width
        var out: [String] = []
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"\(n(width))\" height=\"\(n(layout.height))\" viewBox=\"0 0 \(n(width)) \(n(layout.height))\" font-family=\"\(TextMetrics.fontFamily)\" font-size=\"11\">")
        out.append("""
            <defs><pattern id="offline-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
            <rect width="6" height="6" fill="#e4e4e4"/><line x1="0" y1="0" x2="0" y2="6" stroke="#a0a0a0" stroke-width="2"/></pattern></defs>
            """)
        out.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>")
        if !layout.title.isEmpty { out.append(text(8, 18, layout.title, size: 14, weight: "bold", colour: layout.titleColour)) }
        for (index, line) in layout.violationLines.enumerated() {
            out.append(text(8, 38 + Double(index) * 16, line, size: 12, weight: "bold", colour: Colour.violation, cls: "violation-text"))
        }
        for (index, line) in layout.aboutLines.enumerated() {
            out.append(text(8, 38 + Double(layout.violationLines.count + index) * 16, line, size: 12, colour: "#333", cls: "about"))
        }
        out += legend(layout)

        // Time grid behind the lanes.
        for tick in layout.ticks {
            out.append("<line x1=\"\(n(tick.x))\" y1=\"\(n(layout.lanesTop))\" x2=\"\(n(tick.x))\" y2=\"\(n(layout.lanesBottom))\" stroke=\"#eeeeee\"/>")
        }
        for (index, lane) in layout.lanes.enumerated() {
            out += self.lane(lane, layout: layout, shaded: index % 2 == 1)
        }

        // Violations: across every lane, named in their strip.
        out.append("<g class=\"violation\">")
        for marker in layout.violationMarkers {
            out.append("<line x1=\"\(n(marker.x))\" y1=\"\(n(layout.violationsTop))\" x2=\"\(n(marker.x))\" y2=\"\(n(layout.lanesBottom))\" stroke=\"\(Colour.violation)\" stroke-width=\"2\" stroke-dasharray=\"5 3\"><title>\(escape(marker.tooltip))</title></line>")
        }
        for label in layout.violationLabels { out.append(self.label(label)) }
        out.append("</g>")

        // The time axis.
        out.append("<line x1=\"\(n(TimelineLayout.plotLeft))\" y1=\"\(n(layout.axisY))\" x2=\"\(n(layout.plotRight))\" y2=\"\(n(layout.axisY))\" stroke=\"#888\"/>")
        for (index, tick) in layout.ticks.enumerated() {
            out.append("<line x1=\"\(n(tick.x))\" y1=\"\(n(layout.axisY))\" x2=\"\(n(tick.x))\" y2=\"\(n(layout.axisY + 4))\" stroke=\"#888\"/>")
            let anchor = index == 0 ? "start" : tick.x > layout.plotRight - 30 ? "end" : "middle"
            out.append("<text x=\"\(n(tick.x))\" y=\"\(n(layout.axisY + 16))\" font-size=\"10\" fill=\"#555\" text-anchor=\"\(anchor)\">\(escape(tick.text))</text>")
        }
        if !layout.emptyLanes.isEmpty {
            let note = "Not drawn, since nothing happened on them: " + layout.emptyLanes.joined(separator: ", ")
            out.append(text(8, layout.axisY + 32, TextMetrics.truncate(note, toFit: TimelineLayout.width - 16, size: 10), size: 10, colour: "#777", cls: "empty-lanes"))
        }
        for line in layout.expectationLines {
            let heading = line.style == "heading"
            out.append(text(8, line.y, line.text, size: heading ? 12 : 11, weight: heading || line.style == "failed" ? "bold" : "normal",
                            colour: Colour.expectation(line.style), cls: heading ? "expectations" : "expectation \(line.style)"))
        }
        out.append("</svg>")
        return out.joined(separator: "\n")
    }

    private static func lane(_ lane: TimelineLayout.Lane, layout: TimelineLayout, shaded: Bool) -> [String] {
        let left = TimelineLayout.plotLeft, right = layout.plotRight
        var out = ["<g class=\"lane\" data-lane=\"\(escape(lane.name))\">"]
        if shaded {
            out.append("<rect x=\"0\" y=\"\(n(lane.top))\" width=\"\(n(TimelineLayout.width))\" height=\"\(n(lane.height))\" fill=\"#f7f8fa\"/>")
        }
        out.append("<line x1=\"0\" y1=\"\(n(lane.top + lane.height))\" x2=\"\(n(TimelineLayout.width))\" y2=\"\(n(lane.top + lane.height))\" stroke=\"#dddddd\"/>")
        out.append(text(8, lane.top + 17, lane.title, size: 12, weight: "bold", cls: "lane-name", tooltip: lane.name))
        for (index, subtitle) in lane.subtitles.enumerated() {
            out.append(text(8, lane.top + 31 + Double(index) * 12, subtitle, size: 10, colour: "#666", cls: "lane-subtitle"))
        }
        let marksTop = lane.marksTop, marksBottom = lane.marksTop + TimelineLayout.marksHeight
        let bottom = lane.band.isEmpty ? marksBottom : lane.bandTop + TimelineLayout.bandHeight

        // The band: account and store.
        for segment in lane.band {
            let box = segment.box
            let (fill, stroke, ink) = Colour.store(segment.store)
            out.append("<g class=\"segment\"><title>\(escape(segment.tooltip))</title>")
            out.append("<rect class=\"segment-box\" x=\"\(n(box.x))\" y=\"\(n(box.y))\" width=\"\(n(box.width))\" height=\"\(n(box.height))\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"0.8\"\(segment.store == nil ? " stroke-dasharray=\"3 2\"" : "")/>")
            if !segment.account.isEmpty || !segment.text.isEmpty {
                out.append("<text class=\"segment-text\" x=\"\(n(box.x + 3))\" y=\"\(n(box.y + 12))\" font-size=\"\(n(TimelineLayout.labelSize))\" fill=\"\(ink)\"><tspan font-weight=\"bold\">\(escape(segment.account))</tspan>\(escape(segment.text))</text>")
            }
            out.append("</g>")
        }
        // Offline windows.
        for window in lane.offline {
            out.append("<rect class=\"offline\" x=\"\(n(window.from))\" y=\"\(n(marksTop))\" width=\"\(n(max(1, window.to - window.from)))\" height=\"\(n(TimelineLayout.marksHeight))\" fill=\"url(#offline-hatch)\" opacity=\"0.55\"><title>offline</title></rect>")
        }
        // Knowledge: a step line rising as the device sees more of everybody's saves.
        if !lane.knowledge.isEmpty {
            func level(_ value: Double) -> Double { marksBottom - 3 - (TimelineLayout.marksHeight - 8) * value }
            var points: [String] = []
            for (index, sample) in lane.knowledge.enumerated() {
                if index > 0 { points.append("\(n(sample.x)),\(n(level(lane.knowledge[index - 1].level)))") }
                points.append("\(n(sample.x)),\(n(level(sample.level)))")
            }
            points.append("\(n(right)),\(n(level(lane.knowledge.last!.level)))")
            out.append("<polyline class=\"knowledge\" points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(Colour.knowledge)\" stroke-width=\"1.5\" opacity=\"0.8\"><title>knowledge (sum of the knowledge vector), up to \(lane.knowledgeMost)</title></polyline>")
        }
        // Glyphs.
        for mark in lane.marks {
            let x = min(max(layout.x(mark.time), left), right)
            let title = "<title>+\(escape(SimulatedDuration.text(mark.time))) \(escape(mark.lane)): \(escape(mark.text))</title>"
            out.append(glyph(mark.kind, x: x, top: marksTop, title: title))
        }
        // Transitions and labelled notes: a line across the lane, and the label beside it.
        let labelsTop = lane.top + 4
        for marker in lane.markers {
            out.append("<line class=\"marker \(marker.style.rawValue)\" x1=\"\(n(marker.x))\" y1=\"\(n(labelsTop))\" x2=\"\(n(marker.x))\" y2=\"\(n(bottom))\" stroke=\"\(Colour.label(marker.style))\" stroke-width=\"\(marker.style == .note ? 1.5 : 2)\"\(marker.style == .note ? " stroke-dasharray=\"2 2\"" : "")><title>\(escape(marker.tooltip))</title></line>")
        }
        for label in lane.labels { out.append(self.label(label)) }
        out.append("</g>")
        return out
    }

    private static func glyph(_ kind: Timeline.Kind, x: Double, top: Double, title: String) -> String {
        switch kind {
        case .save:
            return "<circle class=\"save\" cx=\"\(n(x))\" cy=\"\(n(top + 7))\" r=\"3.2\" fill=\"\(Colour.save)\">\(title)</circle>"
        case .upload:
            return "<path class=\"upload\" d=\"M\(n(x - 3.5)),\(n(top + 20)) L\(n(x + 3.5)),\(n(top + 20)) L\(n(x)),\(n(top + 14)) Z\" fill=\"\(Colour.upload)\" opacity=\"0.7\">\(title)</path>"
        case .download:
            return "<path class=\"download\" d=\"M\(n(x - 3.5)),\(n(top + 23)) L\(n(x + 3.5)),\(n(top + 23)) L\(n(x)),\(n(top + 29)) Z\" fill=\"\(Colour.download)\" opacity=\"0.7\">\(title)</path>"
        case .importChanges:
            return "<rect class=\"import\" x=\"\(n(x - 1))\" y=\"\(n(top + 31))\" width=\"2\" height=\"9\" fill=\"\(Colour.importTick)\">\(title)</rect>"
        case .deletion:
            return "<rect class=\"deletion\" x=\"\(n(x - 2))\" y=\"\(n(top + 42))\" width=\"4\" height=\"4\" fill=\"\(Colour.deletion)\">\(title)</rect>"
        case .fault:
            return "<path class=\"fault\" d=\"M\(n(x - 3)),\(n(top + 41)) L\(n(x + 3)),\(n(top + 47)) M\(n(x + 3)),\(n(top + 41)) L\(n(x - 3)),\(n(top + 47))\" stroke=\"\(Colour.fault)\" stroke-width=\"1.6\">\(title)</path>"
        case .faultPlan:
            // A flag, not a cross: the plan says what may go wrong from here on; crosses are what did.
            return "<path class=\"fault-plan\" d=\"M\(n(x)),\(n(top + 60)) L\(n(x)),\(n(top + 50)) L\(n(x + 8)),\(n(top + 53)) L\(n(x)),\(n(top + 56))\" fill=\"\(Colour.faultPlan)\" stroke=\"\(Colour.faultPlanEdge)\" stroke-width=\"1.2\" stroke-linejoin=\"round\">\(title)</path>"
        case .conflict:
            return "<path class=\"conflict\" d=\"M\(n(x)),\(n(top + 51)) L\(n(x + 4)),\(n(top + 55)) L\(n(x)),\(n(top + 59)) L\(n(x - 4)),\(n(top + 55)) Z\" fill=\"\(Colour.conflict)\">\(title)</path>"
        case .note:
            return "<circle class=\"note\" cx=\"\(n(x))\" cy=\"\(n(top + 44))\" r=\"3\" fill=\"white\" stroke=\"\(Colour.note)\">\(title)</circle>"
        case .transition, .violation, .offline, .online:
            return ""
        }
    }

    private static func label(_ label: TimelineLayout.Label) -> String {
        "<text class=\"label \(label.style.rawValue)\" x=\"\(n(label.box.x))\" y=\"\(n(label.box.y + TimelineLayout.baseline))\" font-size=\"\(n(TimelineLayout.labelSize))\" fill=\"\(Colour.label(label.style))\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"><title>\(escape(label.tooltip))</title>\(escape(label.text))</text>"
    }

    private static func legend(_ layout: TimelineLayout) -> [String] {
        var out = ["<g class=\"legend\">"]
        for item in layout.legend {
            let x = item.x, y = item.y
            switch item.symbol {
            case "account", "fallback", "local", "not-running":
                let store: StoreKind? = item.symbol == "not-running" ? nil : StoreKind(rawValue: item.symbol)
                let (fill, stroke, _) = Colour.store(store)
                out.append("<rect x=\"\(n(x))\" y=\"\(n(y - 10))\" width=\"14\" height=\"11\" fill=\"\(fill)\" stroke=\"\(stroke)\"\(store == nil ? " stroke-dasharray=\"3 2\"" : "")/>")
            case "offline":
                out.append("<rect x=\"\(n(x))\" y=\"\(n(y - 10))\" width=\"14\" height=\"11\" fill=\"url(#offline-hatch)\" opacity=\"0.8\"/>")
            case "transition":
                out.append("<line x1=\"\(n(x + 7))\" y1=\"\(n(y - 11))\" x2=\"\(n(x + 7))\" y2=\"\(n(y + 2))\" stroke=\"\(Colour.transition)\" stroke-width=\"2\"/>")
            case "knowledge":
                out.append("<polyline points=\"\(n(x)),\(n(y)) \(n(x + 5)),\(n(y)) \(n(x + 5)),\(n(y - 6)) \(n(x + 14)),\(n(y - 6))\" fill=\"none\" stroke=\"\(Colour.knowledge)\" stroke-width=\"1.5\"/>")
            case "violation":
                out.append("<line x1=\"\(n(x + 7))\" y1=\"\(n(y - 11))\" x2=\"\(n(x + 7))\" y2=\"\(n(y + 2))\" stroke=\"\(Colour.violation)\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/>")
            case "save": out.append(glyph(.save, x: x + 7, top: y - 11, title: ""))
            case "upload": out.append(glyph(.upload, x: x + 7, top: y - 21, title: ""))
            case "download": out.append(glyph(.download, x: x + 7, top: y - 32, title: ""))
            case "import": out.append(glyph(.importChanges, x: x + 7, top: y - 40, title: ""))
            case "deletion": out.append(glyph(.deletion, x: x + 7, top: y - 48, title: ""))
            case "fault": out.append(glyph(.fault, x: x + 7, top: y - 48, title: ""))
            case "fault-plan": out.append(glyph(.faultPlan, x: x + 4, top: y - 60, title: ""))
            case "conflict": out.append(glyph(.conflict, x: x + 7, top: y - 60, title: ""))
            case "note": out.append(glyph(.note, x: x + 7, top: y - 48, title: ""))
            default: break
            }
            out.append(text(x + 18, y, item.text, size: TimelineLayout.legendSize, colour: "#333", cls: "legend-text"))
        }
        out.append("</g>")
        return out
    }

    private static func text(_ x: Double, _ y: Double, _ content: String, size: Double = 11, weight: String = "normal",
                             colour: String = "#222", cls: String? = nil, tooltip: String? = nil) -> String {
        let classAttribute = cls.map { " class=\"\($0)\"" } ?? ""
        let title = tooltip.map { "<title>\(escape($0))</title>" } ?? ""
        return "<text\(classAttribute) x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(n(size))\" font-weight=\"\(weight)\" fill=\"\(colour)\">\(title)\(escape(content))</text>"
    }

    /// A coordinate with at most one decimal, so the SVG stays small.
    static func n(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The report's colours, one place.
    enum Colour {
        static let transition = "#d9480f", note = "#57606a", failure = "#c62828", violation = "#c62828"
        static let save = "#1f6feb", upload = "#0969da", download = "#1a7f37", importTick = "#2da44e"
        static let deletion = "#57606a", fault = "#cf222e", knowledge = "#6a5acd"
        static let faultPlan = "#f2cc60", faultPlanEdge = "#9a6700", conflict = "#bf3989"

        /// An expectation's line by its outcome (`held`, `failed`, `not-reached`), or the heading.
        static func expectation(_ style: String) -> String {
            switch style {
            case "held": return "#1a7f37"
            case "failed": return violation
            case "not-reached": return "#777777"
            default: return "#222222"
            }
        }

        static func label(_ style: TimelineLayout.LabelStyle) -> String {
            switch style {
            case .transition: return transition
            case .note: return note
            case .failure: return failure
            case .violation: return violation
            }
        }

        /// Fill, outline and text colour of a band segment.
        static func store(_ kind: StoreKind?) -> (String, String, String) {
            switch kind {
            case .account?: return ("#d3efd9", "#8cc79a", "#14532d")
            case .fallback?: return ("#ffe9ad", "#e0b84a", "#6b4700")
            case .local?: return ("#e3e3e3", "#b0b0b0", "#333333")
            case nil: return ("#ffffff", "#c0c0c0", "#888888")
            }
        }
    }
}
