import Foundation
import UbiquityPlist

/// Property-list codec benchmark: a transaction log of change records encoded and decoded
/// with UbiquityPlist and with Foundation (Codable and PropertyListSerialization).
enum PlistBenchmarks {
    struct Values: Codable {
        var title: String
        var count: Int
        var score: Double
        var done: Bool
        var modified: Date
    }

    struct Record: Codable {
        var gid: String
        var entity: String
        var values: Values
    }

    private struct Row {
        var name: String
        var times: [Double]
        var bytes: Int?
        var baseline: String?
        var median: Double { times.sorted()[times.count / 2] }
    }

    static func run(_ book: FigureBook) -> String {
        let smoke = book.options.smoke
        let count = smoke ? 500 : 10_000
        let runs = book.options.timedRuns
        let records = makeRecords(count)
        let value = PlistValue.array(records.map(plistValue))
        let objects: [Any] = records.map(foundationObject)
        var rows = [Row]()
        var sink = 0

        /// One operation of a group measured together: its name, what its speed-up is against,
        /// whether its row shows the bytes it returns, and the work.
        struct Contender {
            let name: String
            var baseline: String? = nil
            var showsBytes = false
            let body: () throws -> Int
        }
        // The contenders of a group take turns, run by run, as every other suite's do: a burst of
        // the machine's other work then slows a run of each, not every run of one (a median of
        // one contender's five runs in a row once caught such a burst whole).
        func measure(_ contenders: [Contender]) {
            var times = Array(repeating: [Double](), count: contenders.count)
            var sizes = Array(repeating: Int?.none, count: contenders.count)
            var failed = Array(repeating: false, count: contenders.count)
            for run in 0 ..< runs {
                // Each run starts with another contender, so none always follows the same one.
                for turn in 0 ..< contenders.count {
                    let index = (run + turn) % contenders.count
                    guard !failed[index] else { continue }
                    do { times[index].append(try threadCPUSeconds { sizes[index] = try contenders[index].body() } * 1e3) } catch { failed[index] = true }
                }
            }
            for (index, contender) in contenders.enumerated() where !failed[index] {
                rows.append(Row(name: contender.name, times: times[index], bytes: contender.showsBytes ? sizes[index] : nil, baseline: contender.baseline))
            }
        }

        for (format, foundation) in [(PlistFormat.binary, PropertyListSerialization.PropertyListFormat.binary),
                                     (PlistFormat.xml, PropertyListSerialization.PropertyListFormat.xml)] {
            let tag = format == .binary ? "binary" : "XML"
            guard let ours = try? PropertyListCodec.encode(value, format: format) else {
                return "error: the benchmark's records have no \(tag) form"
            }
            let encoder = PropertyListEncoder()
            encoder.outputFormat = foundation
            let codable = (try? encoder.encode(records)) ?? Data()
            let serialized = (try? PropertyListSerialization.data(fromPropertyList: objects, format: foundation, options: 0)) ?? Data()

            measure([
                Contender(name: "\(tag) encode: PropertyListEncoder", showsBytes: true) { try encoder.encode(records).count },
                Contender(name: "\(tag) encode: PropertyListSerialization", showsBytes: true) {
                    try PropertyListSerialization.data(fromPropertyList: objects, format: foundation, options: 0).count
                },
                Contender(name: "\(tag) encode: UbiquityPlist", baseline: "\(tag) encode: PropertyListEncoder", showsBytes: true) {
                    try PropertyListCodec.encode(value, format: format).count
                },
            ])
            measure([
                Contender(name: "\(tag) decode: PropertyListDecoder") { try PropertyListDecoder().decode([Record].self, from: codable).count },
                Contender(name: "\(tag) decode: PropertyListSerialization") {
                    (try PropertyListSerialization.propertyList(from: serialized, options: [], format: nil) as? [Any])?.count ?? 0
                },
                Contender(name: "\(tag) decode: UbiquityPlist", baseline: "\(tag) decode: PropertyListDecoder") {
                    let decoded = try PropertyListCodec.decode(ours)
                    sink &+= decoded.arrayValue?.count ?? 0
                    return ours.count
                },
            ])
        }
        func median(_ name: String) -> Double { rows.first { $0.name == name }?.median ?? .nan }
        for tag in ["binary", "XML"] {
            for step in ["decode", "encode"] {
                let reference = step == "decode" ? "PropertyListDecoder" : "PropertyListEncoder"
                book.sheet.speedUp("\(tag.lowercased())_\(step)_vs_foundation", ours: median("\(tag) \(step): UbiquityPlist"),
                                   reference: median("\(tag) \(step): \(reference)"))
            }
        }
        return render(rows, count: count, runs: runs, sink: sink)
    }

    private static func render(_ rows: [Row], count: Int, runs: Int, sink: Int) -> String {
        func ms(_ v: Double) -> String { String(format: "%.1f", v) }
        let unit = InstructionCounter.isCounting ? "instructions in millions" : "CPU time of the thread in ms"
        var lines = ["Property lists: \(count) change records, median of \(runs) run(s), \(unit)", ""]
        lines.append("| operation | median | min | max | bytes | UbiquityPlist speed-up |")
        lines.append("|---|---:|---:|---:|---:|---|")
        for row in rows {
            var ratio = ""
            if row.name.hasSuffix("UbiquityPlist") {
                let prefix = row.name.components(separatedBy: ": ")[0]
                let others = rows.filter { $0.name.hasPrefix(prefix + ":") && !$0.name.hasSuffix("UbiquityPlist") }
                ratio = others.map { other in
                    String(format: "%.1f× vs %@", other.median / max(row.median, 1e-9),
                           other.name.components(separatedBy: ": ")[1])
                }.joined(separator: ", ")
            }
            lines.append("| \(row.name) | \(ms(row.median)) | \(ms(row.times.min()!)) | \(ms(row.times.max()!)) | \(row.bytes.map(String.init) ?? "") | \(ratio) |")
        }
        lines.append("")
        lines.append("(decoded \(sink) records in total)")
        return lines.joined(separator: "\n")
    }

    private static func makeRecords(_ count: Int) -> [Record] {
        var state: UInt64 = 42
        func next() -> UInt64 {  // SplitMix64: reproducible inputs
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return (0 ..< count).map { i in
            Record(gid: "Note/\(UUID().uuidString)", entity: "Note",
                   values: Values(title: "Note number \(i)", count: Int(next() % 100_000),
                                  score: Double(next() % 1_000_000) / 100, done: next() % 2 == 0,
                                  modified: Date(timeIntervalSince1970: 1_700_000_000 + Double(next() % 100_000_000))))
        }
    }

    private static func plistValue(_ r: Record) -> PlistValue {
        .dictionary([
            "gid": .string(r.gid), "entity": .string(r.entity),
            "values": .dictionary([
                "title": .string(r.values.title), "count": .integer(Int64(r.values.count)),
                "score": .real(r.values.score), "done": .boolean(r.values.done),
                "modified": .date(r.values.modified.timeIntervalSince1970),
            ]),
        ])
    }

    private static func foundationObject(_ r: Record) -> Any {
        [
            "gid": r.gid, "entity": r.entity,
            "values": [
                "title": r.values.title, "count": r.values.count, "score": r.values.score,
                "done": r.values.done, "modified": r.values.modified,
            ] as [String: Any],
        ] as [String: Any]
    }
}
