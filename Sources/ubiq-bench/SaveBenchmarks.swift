import Foundation
import Ubiquity

/// Saves of 1, 100 and 10,000 new objects per transaction through a context (commit with the
/// outbox, then the export of the log into the container), side by side with raw SQLite
/// inserting the same rows in transactions of the same size. One-object saves are also set
/// beside a durable raw reference: `synchronous=FULL` and the write and fsync of a file of the
/// log's size, since a save is durable in both its store and its log.
enum SaveBenchmarks {
    static func run(_ book: FigureBook) throws -> String {
        let options = book.options
        // (objects per transaction, transactions per run)
        let shapes = options.smoke ? [(1, 5), (100, 2), (10_000, 1)] : [(1, 200), (100, 50), (10_000, 2)]
        let runs = options.smoke ? 1 : 5
        var table = MarkdownTable("Save vs raw SQLite", ["objects per transaction", "raw SQLite per transaction", "Ubiquity save per transaction",
                                                         "of it: export", "raw rows/s", "save rows/s", "time ratio"])
        var durableNote = ""
        for (size, transactions) in shapes {
            let scratch = try ScratchDirectory()
            defer { scratch.cleanUp() }
            let cloud = BenchCloud(root: scratch.path)
            let peer = try cloud.peer("saver")
            defer { peer.close() }
            let raw = try RawNotes(path: scratch.path + "/raw.sqlite")
            let durable = try RawNotes(path: scratch.path + "/durable.sqlite", durable: true)
            var rawSamples: [Double] = [], saveSamples: [Double] = [], exportSamples: [Double] = [], durableSamples: [Double] = []
            var first = 0
            for _ in 0..<runs {
                let rows = NoteRow.make(size * transactions, from: first)
                first += rows.count
                let chunks = rows.chunks(of: size)
                rawSamples.append(try seconds { for chunk in chunks { try raw.insert(chunk) } })
                // What `peer.newContext()` does at each save, in two timed parts: the commit, then the export.
                var commit = 0.0, export = 0.0
                for chunk in chunks {
                    let context = ObjectContext(store: peer.store)
                    commit += try seconds {
                        for row in chunk { row.fill(try context.insert("Note", key: row.key)) }
                        try context.save()
                    }
                    export += try seconds { guard try peer.exportPending() == 1 else { throw BenchmarkError("a save was not exported") } }
                }
                saveSamples.append(commit + export)
                exportSamples.append(export)
                if size == 1 {
                    let logBytes = try averageLogBytes(cloud.logDirectory(of: peer))
                    durableSamples.append(try seconds {
                        for (index, chunk) in chunks.enumerated() {
                            try durable.insert(chunk)
                            try writeDurably(logBytes, to: scratch.path + "/durable-log-\(first)-\(index)")
                        }
                    })
                }
            }
            guard raw.count == first else { throw BenchmarkError("raw SQLite holds \(raw.count) of \(first) rows") }
            let rawTime = Measurement(samples: rawSamples).per(transactions), saveTime = Measurement(samples: saveSamples).per(transactions)
            book.sheet.timeMultiple("save_\(size)_vs_raw", ours: saveTime, reference: rawTime)
            if size == 1 {
                let durableTime = Measurement(samples: durableSamples).per(transactions)
                book.sheet.timeMultiple("save_1_vs_durable_raw", ours: saveTime, reference: durableTime)
                durableNote = "One-object saves against durable raw SQLite (`synchronous=FULL`, then the write and fsync of a file of the log's size): "
                    + "\(durableTime.text) vs \(saveTime.text) per save, \(Comparison(ours: saveTime, reference: durableTime).times)."
            }
            table.add([Measurement.grouped(size), rawTime.text, saveTime.text, Measurement.ms(Measurement(samples: exportSamples).per(transactions).median),
                       rawTime.rate(size), saveTime.rate(size), Comparison(ours: saveTime, reference: rawTime).times])
        }
        table.notes = [
            "Ubiquity: `ObjectContext` inserts and `save()` — validation, one SQLite transaction with the merge state, history and outbox — then",
            "`exportPending()` writes the log atomically into the container (temp file, fsync, rename, fsync of the folder), as each save of a peer's",
            "context does. Raw SQLite: one transaction of prepared inserts, no file written. Median of \(runs) run(s) of many transactions (per-transaction figures).",
            durableNote,
        ]
        return table.text
    }

    /// The mean size of the log files in `folder`.
    private static func averageLogBytes(_ folder: String) throws -> Int {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".cdt") && !$0.hasPrefix("receipt") }
        let sizes = names.compactMap { (try? FileManager.default.attributesOfItem(atPath: folder + "/" + $0)[.size] as? Int) ?? nil }
        guard !sizes.isEmpty else { throw BenchmarkError("no log in \(folder)") }
        return sizes.reduce(0, +) / sizes.count
    }

    /// Writes `count` bytes to a new file at `path` and waits for the disk.
    private static func writeDurably(_ count: Int, to path: String) throws {
        let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw BenchmarkError("cannot create \(path)") }
        defer { close(descriptor) }
        let bytes = [UInt8](repeating: 0x2A, count: count)
        guard write(descriptor, bytes, count) == count, fsync(descriptor) == 0 else { throw BenchmarkError("cannot write \(path)") }
    }
}
