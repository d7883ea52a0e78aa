import Foundation

/// The report a person reads at a glance: one lane per device over simulated time, with the
/// store it worked on (band colour), offline windows, its knowledge (the rising line), saves,
/// transitions, imports, transfers and faults; the cloud's lane shows damage and violations.
public enum TimelineReport {
    static let width = 1200.0, left = 150.0, right = 20.0, laneHeight = 74.0, top = 56.0

    /// A standalone HTML page: the verdict, the SVG timeline, and the events in order.
    public static func html(_ result: ScenarioResult) -> String {
        let rows = result.timeline.marks.prefix(5_000).map { mark in
            "<tr class=\"\(mark.kind.rawValue)\"><td>+\(SimulatedDuration.text(mark.time))</td><td>\(escape(mark.lane))</td><td>\(mark.kind.rawValue)</td><td>\(escape(mark.text))</td></tr>"
        }.joined(separator: "\n")
        let more = result.timeline.marks.count > 5_000 ? "<p>… and \(result.timeline.marks.count - 5_000) more events.</p>" : ""
        return """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>\(escape(result.scenario)) — \(result.passed ? "passed" : "FAILED")</title>
            <style>
            body { font: 14px -apple-system, Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
            h1 { font-size: 20px; } .passed { color: #1a7f37; } .failed { color: #c62828; }
            pre { background: #f6f8fa; padding: 12px; overflow-x: auto; }
            table { border-collapse: collapse; font-size: 12px; } td { padding: 2px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
            tr.violation td { color: #c62828; font-weight: bold; } tr.fault td { color: #b35900; }
            </style></head><body>
            <h1>\(escape(result.scenario)) <span class="\(result.passed ? "passed" : "failed")">\(result.passed ? "passed" : "FAILED")</span></h1>
            \(svg(result))
            <pre>\(escape(result.text))</pre>
            <h2>Events</h2>
            <table><tr><th>time</th><th>lane</th><th>kind</th><th>what</th></tr>
            \(rows)
            </table>\(more)
            </body></html>

            """
    }

    /// The timeline alone, as SVG.
    public static func svg(_ result: ScenarioResult) -> String {
        let timeline = result.timeline
        let duration = max(timeline.duration, 1)
        let height = top + laneHeight * Double(timeline.lanes.count) + 30
        func x(_ time: Double) -> Double { left + (width - left - right) * time / duration }
        func laneTop(_ lane: String) -> Double { top + laneHeight * Double(timeline.lanes.firstIndex(of: lane) ?? 0) }
        var out: [String] = []
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">")
        out.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>")
        out.append(text(left, 18, "\(result.scenario) — seed \(result.seed), \(result.mode): \(result.passed ? "passed" : "FAILED")", size: 14, weight: "bold", color: result.passed ? "#1a7f37" : "#c62828"))
        out.append(legend())

        for lane in timeline.lanes {
            let y = laneTop(lane)
            out.append("<line x1=\"\(left)\" y1=\"\(y + laneHeight - 2)\" x2=\"\(width - right)\" y2=\"\(y + laneHeight - 2)\" stroke=\"#ddd\"/>")
            out.append(text(8, y + laneHeight / 2 + 4, lane, size: 12, weight: "bold"))
            // Which store the app worked on.
            let stores = timeline.stores[lane] ?? []
            for (index, span) in stores.enumerated() {
                let end = index + 1 < stores.count ? stores[index + 1].time : duration
                guard let store = span.store else { continue }
                let colour = store.hasPrefix("account") ? "#e6f4ea" : store.hasPrefix("fallback") ? "#fff4d6" : "#eeeeee"
                out.append("<rect x=\"\(x(span.time))\" y=\"\(y + 4)\" width=\"\(max(1, x(end) - x(span.time)))\" height=\"\(laneHeight - 10)\" fill=\"\(colour)\"><title>\(escape(store)) from +\(SimulatedDuration.text(span.time))</title></rect>")
            }
            // Offline windows.
            var since: Double?
            for mark in timeline.marks where mark.lane == lane && (mark.kind == .offline || mark.kind == .online) {
                if mark.kind == .offline { since = since ?? mark.time } else if let start = since {
                    out.append(band(x(start), x(mark.time), y, "offline"))
                    since = nil
                }
            }
            if let start = since { out.append(band(x(start), x(duration), y, "offline to the end")) }
            // Knowledge: how much of everybody's work the device had seen.
            if let samples = timeline.knowledge[lane], let most = samples.map(\.total).max(), most > 0 {
                var points: [String] = []
                for (index, sample) in samples.enumerated() {
                    let level = y + laneHeight - 8 - (laneHeight - 20) * Double(sample.total) / Double(most)
                    if index > 0 { points.append("\(x(sample.time)),\(points.last!.split(separator: ",")[1])") }
                    points.append("\(x(sample.time)),\(level)")
                }
                points.append("\(x(duration)),\(points.last!.split(separator: ",")[1])")
                out.append("<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#6a5acd\" stroke-width=\"1.5\"><title>knowledge (sum of the vector), up to \(most)</title></polyline>")
            }
        }
        var lastLabel: [String: (x: Double, row: Int)] = [:]
        for mark in timeline.marks {
            let y = laneTop(mark.lane), px = x(mark.time)
            let title = "<title>+\(SimulatedDuration.text(mark.time)) \(escape(mark.lane)): \(escape(mark.text))</title>"
            switch mark.kind {
            case .save: out.append("<circle cx=\"\(px)\" cy=\"\(y + 20)\" r=\"3\" fill=\"#1f6feb\">\(title)</circle>")
            case .transition:
                out.append("<line x1=\"\(px)\" y1=\"\(y + 6)\" x2=\"\(px)\" y2=\"\(y + laneHeight - 8)\" stroke=\"#e8590c\" stroke-width=\"2\">\(title)</line>")
                // Labels close together go on the next row, so they do not print over each other.
                var row = 0
                if let last = lastLabel[mark.lane], px - last.x < 70 { row = (last.row + 1) % 3 }
                lastLabel[mark.lane] = (px, row)
                let label = short(mark.text)
                let nearEnd = px > width - right - Double(label.count) * 5.5
                out.append(text(nearEnd ? px - 2 - Double(label.count) * 5.2 : px + 2, y + 14 + Double(row) * 10, label, size: 9, color: "#e8590c"))
            case .importChanges: out.append("<rect x=\"\(px - 1)\" y=\"\(y + laneHeight - 16)\" width=\"2\" height=\"8\" fill=\"#2da44e\">\(title)</rect>")
            case .upload: out.append("<path d=\"M\(px - 3),\(y + 36) L\(px + 3),\(y + 36) L\(px),\(y + 30) Z\" fill=\"#0969da\" opacity=\"0.6\">\(title)</path>")
            case .download: out.append("<path d=\"M\(px - 3),\(y + 42) L\(px + 3),\(y + 42) L\(px),\(y + 48) Z\" fill=\"#1a7f37\" opacity=\"0.6\">\(title)</path>")
            case .deletion: out.append("<rect x=\"\(px - 2)\" y=\"\(y + 50)\" width=\"4\" height=\"4\" fill=\"#57606a\">\(title)</rect>")
            case .fault: out.append("<text x=\"\(px - 3)\" y=\"\(y + 62)\" fill=\"#cf222e\" font-size=\"11\">×\(title)</text>")
            case .violation:
                out.append("<line x1=\"\(px)\" y1=\"\(top)\" x2=\"\(px)\" y2=\"\(height - 30)\" stroke=\"#cf222e\" stroke-width=\"2\" stroke-dasharray=\"4 2\">\(title)</line>")
            case .note: out.append("<circle cx=\"\(px)\" cy=\"\(y + 56)\" r=\"3\" fill=\"none\" stroke=\"#57606a\">\(title)</circle>")
            case .offline, .online: break
            }
        }
        // The time axis.
        let axis = height - 24
        out.append("<line x1=\"\(left)\" y1=\"\(axis)\" x2=\"\(width - right)\" y2=\"\(axis)\" stroke=\"#888\"/>")
        for index in 0...8 {
            let time = duration * Double(index) / 8
            out.append("<line x1=\"\(x(time))\" y1=\"\(axis)\" x2=\"\(x(time))\" y2=\"\(axis + 4)\" stroke=\"#888\"/>")
            out.append(text(x(time) - 12, axis + 16, "+\(SimulatedDuration.text(time))", size: 10, color: "#555"))
        }
        out.append("</svg>")
        return out.joined(separator: "\n")
    }

    private static func legend() -> String {
        let items: [(String, String)] = [("#e6f4ea", "account store"), ("#fff4d6", "fallback"), ("#eeeeee", "local"), ("#bbbbbb", "offline"),
                                         ("#1f6feb", "save"), ("#e8590c", "transition"), ("#2da44e", "import"), ("#0969da", "upload ▲"),
                                         ("#1a7f37", "download ▼"), ("#cf222e", "fault ×"), ("#6a5acd", "knowledge")]
        var x = left
        var parts: [String] = []
        for (colour, label) in items {
            parts.append("<rect x=\"\(x)\" y=\"30\" width=\"10\" height=\"10\" fill=\"\(colour)\"/>")
            parts.append(text(x + 13, 39, label, size: 10))
            x += 14 + Double(label.count) * 6 + 10
        }
        return parts.joined(separator: "\n")
    }

    private static func band(_ from: Double, _ to: Double, _ y: Double, _ what: String) -> String {
        "<rect x=\"\(from)\" y=\"\(y + 4)\" width=\"\(max(1, to - from))\" height=\"\(laneHeight - 10)\" fill=\"#999\" opacity=\"0.35\"><title>\(what)</title></rect>"
    }

    private static func text(_ x: Double, _ y: Double, _ content: String, size: Int = 11, weight: String = "normal", color: String = "#222") -> String {
        "<text x=\"\(x)\" y=\"\(y)\" font-size=\"\(size)\" font-weight=\"\(weight)\" fill=\"\(color)\">\(escape(content))</text>"
    }

    /// `did-change:initialImportCompleted:account` → `did 4→account`
    private static func short(_ event: String) -> String {
        let parts = event.split(separator: ":").map(String.init)
        let numbers = ["accountAdded": "1", "accountRemoved": "2", "contentRemoved": "3", "initialImportCompleted": "4", "added": "+"]
        guard parts.count >= 2 else { return event }
        let transition = numbers[parts[1]] ?? parts[1]
        return parts[0] == "will-change" ? "will \(transition)" : "did \(transition)→\(parts.count > 2 ? parts[2] : "")"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
