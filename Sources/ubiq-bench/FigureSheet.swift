import Foundation

/// The headline figures of a run under stable keys, printed by `--json` so that runs can be
/// compared by a machine. Each key says its unit:
/// - `…_vs_raw` of an import: Ubiquity's speed as a fraction of raw SQLite's (0.5 = half as fast);
/// - `…_vs_…` of a save, join or roll: Ubiquity's time as a multiple of the reference's (3 = three times as long);
/// - `…_vs_foundation` of the codec: how many times faster than Foundation's coder;
/// - `…_seconds`, `…_instructions`: as named.
final class FigureSheet {
    struct Figure {
        let key: String
        let value: Double
        let unit: String
    }

    private(set) var figures: [Figure] = []

    func speedShare(_ key: String, ours: Measurement, reference: Measurement) {
        record(key, reference.median / max(ours.median, 1e-12), "speed as a fraction of the reference's")
    }

    func timeMultiple(_ key: String, ours: Measurement, reference: Measurement) {
        record(key, ours.median / max(reference.median, 1e-12), "time as a multiple of the reference's")
    }

    func speedUp(_ key: String, ours: Double, reference: Double) {
        record(key, reference / max(ours, 1e-12), "times faster than the reference")
    }

    /// Under `--instructions` every key gets `_instructions` and every unit says so: a ratio of
    /// instruction counts never passes for a ratio of times.
    func record(_ key: String, _ value: Double, _ unit: String) {
        let (key, unit) = InstructionCounter.isCounting ? (key + "_instructions", unit + ", by instruction count") : (key, unit)
        figures.removeAll { $0.key == key }
        figures.append(Figure(key: key, value: value, unit: unit))
    }

    /// `{"figures": {key: value}, "units": {key: unit}}`, keys sorted.
    var json: String {
        let sorted = figures.sorted { $0.key < $1.key }
        let values = Dictionary(uniqueKeysWithValues: sorted.map { ($0.key, $0.value) })
        let units = Dictionary(uniqueKeysWithValues: sorted.map { ($0.key, $0.unit) })
        let object: [String: Any] = ["figures": values, "units": units]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
