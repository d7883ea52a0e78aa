import Foundation
import Ubiquity

/// How cost grows: the import, update, join and roll figures at every object count, and
/// import, keep-up and status at 2, 8 and 32 busy peers.
enum ScalingBenchmarks {
    static func run(_ book: FigureBook) throws -> String {
        let options = book.options
        var objects = MarkdownTable("Scaling with objects", ["objects", "import (× raw)", "update import (× raw)", "join (× raw copy)", "baseline roll (× raw VACUUM INTO)"])
        var previous: (count: Int, times: [Double])?
        var growth: [String] = []
        for count in options.scalingSizes {
            let imports = try book.imports(count), joins = try book.joins(count)
            let pairs = [(imports.insert, imports.rawInsert), (imports.update, imports.rawUpdate), (joins.join, joins.rawCopy), (joins.roll, joins.rawVacuum)]
            objects.add([Measurement.grouped(count)] + pairs.map { "\($0.0.text) (\(Comparison(ours: $0.0, reference: $0.1).times))" })
            let times = pairs.map(\.0.median)
            if let previous {
                // The exponent k of cost ∝ n^k between two sizes: 1 is linear.
                let exponents = zip(times, previous.times).map { log($0 / $1) / log(Double(count) / Double(previous.count)) }
                growth.append("\(Measurement.grouped(previous.count)) → \(Measurement.grouped(count)): exponent " + exponents.map { String(format: "%.2f", $0) }.joined(separator: " / "))
            }
            previous = (count, times)
        }
        objects.notes = ["Growth (cost ∝ objects^k; import / update / join / roll; 1.00 is linear):"] + growth.map { "- " + $0 }

        var peers = MarkdownTable("Scaling with peers", ["peers", "import of \(Measurement.grouped(peerObjects(options))) objects (× raw)", "keep-up round: each peer saved 10 objects", "per log", "status"])
        for count in options.peerCounts {
            let figures = try measurePeers(count, options: options)
            peers.add(["\(count)", "\(figures.import.text) (\(Comparison(ours: figures.import, reference: figures.raw).times))",
                       figures.round.text, figures.round.per(count).text, figures.status.text])
        }
        peers.notes = [
            "Peers take turns: each imports what the others wrote, then saves a log of 10 new objects, so every log depends on the other peers' latest ones",
            "(\(Measurement.grouped(peerObjects(options) / 10)) logs in all). Import: a fresh peer imports them all. Keep-up round: every peer saves one more log, then the",
            "reader's `importAvailable` brings it up to date (median of the rounds). Status: `ContainerReport.make` + text for the reader.",
        ]
        return objects.text + "\n" + peers.text
    }

    static func peerObjects(_ options: BenchmarkOptions) -> Int { options.smoke ? 300 : 10_000 }

    static func measurePeers(_ count: Int, options: BenchmarkOptions) throws -> (raw: Measurement, import: Measurement, round: Measurement, status: Measurement) {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let cloud = BenchCloud(root: scratch.path)
        let writers = try (0..<count).map { try cloud.peer("peer\($0)") }
        defer { writers.forEach { $0.close() } }
        let rows = NoteRow.make(peerObjects(options))
        for (index, chunk) in rows.chunks(of: 10).enumerated() {
            let writer = writers[index % count]
            _ = try writer.importAvailable()
            try writer.write(inserted: chunk.map(\.insertRecord))
        }
        let logs = rows.count / 10
        let runs = options.smoke ? 1 : 3
        var rawSamples: [Double] = [], importSamples: [Double] = []
        for run in 0..<runs {
            let raw = try RawNotes(path: "\(scratch.path)/raw-\(run).sqlite")
            rawSamples.append(try seconds { try raw.insert(rows) })
            let name = BenchCloud.freshName("reader")
            let reader = try cloud.peer(name)
            var applied = 0
            importSamples.append(try seconds { applied = try reader.importAvailable().applied.count })
            guard applied == logs else { throw BenchmarkError("imported \(applied) of \(logs) logs from \(count) peers") }
            reader.close()
            cloud.removeDevice(name)
            try? FileManager.default.removeItem(atPath: reader.location!.ubiquityRoot + "/" + reader.peerID)
        }

        // Keep-up rounds and status, by one reader that stays.
        let reader = try cloud.peer("reader")
        defer { reader.close() }
        _ = try reader.importAvailable()
        var roundSamples: [Double] = []
        var next = rows.count
        for _ in 0..<(options.smoke ? 1 : 10) {
            for writer in writers {
                try writer.write(inserted: NoteRow.make(10, from: next).map(\.insertRecord))
                next += 10
            }
            var applied = 0
            roundSamples.append(try seconds { applied = try reader.importAvailable().applied.count })
            guard applied == count else { throw BenchmarkError("a keep-up round imported \(applied) of \(count) logs") }
        }
        let status = try Measurement.run(runs) { try seconds { _ = try ContainerReport.make(for: reader).text } }
        return (Measurement(samples: rawSamples), Measurement(samples: importSamples), Measurement(samples: roundSamples), status)
    }
}
