import Foundation
import Synchronization
import Ubiquity

/// Import of N inserted objects (logs of 100) and then of N property updates (logs of 100),
/// by a fresh peer, side by side with raw SQLite inserting and updating the same rows.
struct ImportFigures {
    static let objectsPerLog = 100

    let count: Int
    let logs: Int
    let rawInsert: Measurement
    let insert: Measurement
    let rawUpdate: Measurement
    let update: Measurement
    /// The inserts' import by a fresh peer after the first (its process warm), unobserved,
    /// then by one with a metrics backend and an activity observer.
    let warmInsert: Measurement
    let observedInsert: Measurement

    static func measure(count: Int, runs: Int) throws -> ImportFigures {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let cloud = BenchCloud(root: scratch.path)
        let rows = NoteRow.make(count)

        // One writer: every insert, then every update, as logs of 100 objects.
        let writer = try cloud.peer("writer")
        for chunk in rows.chunks(of: objectsPerLog) { try writer.write(inserted: chunk.map(\.insertRecord)) }
        let insertLogs = Int(writer.store.knowledge[writer.peerID])
        for chunk in rows.chunks(of: objectsPerLog) { try writer.write(updated: chunk.map(\.updateRecord)) }
        let logDirectory = cloud.logDirectory(of: writer)
        writer.close()
        // The update logs wait aside until a reader has imported the inserts.
        let held = scratch.path + "/held"
        try FileManager.default.createDirectory(atPath: held, withIntermediateDirectories: true)
        let updateLogs = DirectoryEntry.list(logDirectory).map(\.name).filter { (TransactionLog.transactionNumber(inFileName: $0) ?? 0) > insertLogs }
        func move(from source: String, to target: String) throws {
            for name in updateLogs where rename(source + "/" + name, target + "/" + name) != 0 { throw BenchmarkError("cannot move \(name)") }
        }
        try move(from: logDirectory, to: held)

        var samples: [[Double]] = [[], [], [], [], [], []]
        for run in 0..<runs {
            let raw = try RawNotes(path: "\(scratch.path)/raw-\(run).sqlite")
            samples[0].append(try seconds { try raw.insert(rows) })
            samples[2].append(try seconds { try raw.updateTitles(rows) })

            let name = BenchCloud.freshName("reader")
            let reader = try cloud.peer(name)
            var applied = 0
            samples[1].append(try seconds { applied = try reader.importAvailable().applied.count })
            guard applied == insertLogs else { throw BenchmarkError("imported \(applied) of \(insertLogs) insert logs") }
            samples[4].append(try secondImport(cloud, expecting: insertLogs, observed: false))
            samples[5].append(try secondImport(cloud, expecting: insertLogs, observed: true))
            try move(from: held, to: logDirectory)
            samples[3].append(try seconds { applied = try reader.importAvailable().applied.count })
            try move(from: logDirectory, to: held)
            guard applied == updateLogs.count else { throw BenchmarkError("imported \(applied) of \(updateLogs.count) update logs") }
            guard try reader.store.count(FetchRequest(entity: "Note", predicate: nil)) == count else { throw BenchmarkError("the reader does not hold every object") }
            reader.close()
            cloud.removeDevice(name)
        }
        return ImportFigures(count: count, logs: insertLogs, rawInsert: Measurement(samples: samples[0]), insert: Measurement(samples: samples[1]),
                             rawUpdate: Measurement(samples: samples[2]), update: Measurement(samples: samples[3]),
                             warmInsert: Measurement(samples: samples[4]), observedInsert: Measurement(samples: samples[5]))
    }

    /// Another fresh peer imports the insert logs, the process warm from the first import;
    /// `observed`: as an app that watches it (activity observer, metrics backend) would.
    /// Side by side, the two say what observing sync costs.
    private static func secondImport(_ cloud: BenchCloud, expecting logs: Int, observed: Bool) throws -> Double {
        let name = BenchCloud.freshName(observed ? "observed" : "warm")
        try cloud.makeDevice(name)
        var configuration = cloud.configuration(name)
        let metrics = TallyMetricsFactory()
        if observed { configuration.metricsFactory = metrics }
        let reader = try UbiquityPeer(configuration: configuration)
        let reports = Mutex(0)
        let observation = observed ? reader.observeActivity { _ in reports.withLock { $0 += 1 } } : nil
        var applied = 0
        let elapsed = try seconds { applied = try reader.importAvailable().applied.count }
        guard applied == logs else { throw BenchmarkError("the \(name) peer imported \(applied) of \(logs) insert logs") }
        guard !observed || metrics.total > 0 else { throw BenchmarkError("the observed peer's metrics backend was told nothing") }
        withExtendedLifetime(observation) { reader.close() }
        cloud.removeDevice(name)
        return elapsed
    }
}

enum ImportBenchmarks {
    static func run(_ book: FigureBook) throws -> String {
        let figures = try book.imports(book.options.mainSize)
        var table = MarkdownTable("Import vs raw SQLite", ["what", "objects", "logs", "raw SQLite", "Ubiquity import", "raw rows/s", "import rows/s", "time ratio", "import / raw speed"])
        book.sheet.speedShare("import_insert_vs_raw", ours: figures.insert, reference: figures.rawInsert)
        book.sheet.speedShare("import_update_vs_raw", ours: figures.update, reference: figures.rawUpdate)
        book.sheet.timeMultiple("import_observed_vs_unobserved", ours: figures.observedInsert, reference: figures.warmInsert)
        for (what, raw, ours) in [("insert", figures.rawInsert, figures.insert), ("update title", figures.rawUpdate, figures.update)] {
            let comparison = Comparison(ours: ours, reference: raw)
            table.add([what, Measurement.grouped(figures.count), Measurement.grouped(figures.logs), raw.text, ours.text,
                       raw.rate(figures.count), ours.rate(figures.count), comparison.times, comparison.share])
        }
        table.notes = [
            "A fresh peer imports N new objects from logs of \(ImportFigures.objectsPerLog) (`UbiquityPeer.importAvailable`: list, read, verify checksums, decode, order causally, merge with per-slot stamps, history, receipt),",
            "then N updates of one attribute (again logs of \(ImportFigures.objectsPerLog)). Raw SQLite: the same rows in one transaction through one reused prepared statement. Median of \(figures.insert.samples.count) run(s), (min–max).",
            "Observed: after the first, a fresh peer imports the same inserts in \(figures.warmInsert.text), and one with an activity observer and a swift-metrics backend in \(figures.observedInsert.text): \(String(format: "%.3f", figures.observedInsert.median / max(figures.warmInsert.median, 1e-12)))× (`import_observed_vs_unobserved`).",
        ]
        return table.text
    }
}
