/// Wall-clock time of a long command (`scenario fuzz`): seconds since an instant, and a
/// duration as people read it in a progress line.
enum RealTime {
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// `4785` → `1h19m45s`; under a minute `42s`.
    static func text(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        var rest = Int(seconds.rounded())
        var parts: [String] = []
        for (unit, size) in [("h", 3_600), ("m", 60)] where rest >= size {
            parts.append("\(rest / size)\(unit)")
            rest %= size
        }
        return parts.joined() + (parts.isEmpty || rest > 0 ? "\(rest)s" : "")
    }
}
