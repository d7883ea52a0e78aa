/// Durations as scenario files write them: `250ms`, `30s`, `5m`, `2h`, `3d`, `1w`, or a bare
/// number of seconds; ranges as `1s..30s`; byte sizes as `512`, `64KB`, `2MB`, `1GB`.
enum SimulatedDuration {
    static func seconds(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400), ("w", 604_800)]
        var body = Substring(text)
        var sign = 1.0
        if body.hasPrefix("-") { sign = -1; body = body.dropFirst() } else if body.hasPrefix("+") { body = body.dropFirst() }
        for (suffix, factor) in units where body.hasSuffix(suffix) {
            guard let value = Double(body.dropLast(suffix.count)), value >= 0, value.isFinite else { continue }
            return sign * value * factor
        }
        guard let value = Double(body), value >= 0, value.isFinite else { return nil }
        return sign * value
    }

    /// `a..b` (or a single duration, meaning exactly it).
    static func range(_ text: String) -> ClosedRange<Double>? {
        let parts = text.components(separatedBy: "..")
        guard parts.count <= 2, let low = seconds(parts[0]), let high = parts.count == 2 ? seconds(parts[1]) : low, low <= high else { return nil }
        return low...high
    }

    static func bytes(_ text: String) -> Int64? {
        let units: [(String, Int64)] = [("KB", 1 << 10), ("MB", 1 << 20), ("GB", 1 << 30), ("B", 1)]
        for (suffix, factor) in units where text.uppercased().hasSuffix(suffix) {
            guard let value = Int64(text.dropLast(suffix.count)), value >= 0 else { return nil }
            return value * factor
        }
        guard let value = Int64(text), value >= 0 else { return nil }
        return value
    }

    /// Like `text`, with a minus sign for negative durations (clock skews).
    static func signedText(_ seconds: Double) -> String { seconds < 0 ? "-" + text(-seconds) : text(seconds) }

    /// `90s` → "1m30s", for reports.
    static func text(_ seconds: Double) -> String {
        if seconds < 1 { return seconds == 0 ? "0s" : "\(Int((seconds * 1000).rounded()))ms" }
        var rest = Int(seconds.rounded())
        var parts: [String] = []
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] where rest >= size {
            parts.append("\(rest / size)\(unit)")
            rest %= size
        }
        return parts.joined()
    }
}
