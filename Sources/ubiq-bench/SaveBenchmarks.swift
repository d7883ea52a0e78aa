import Foundation
import Ubiquity

/// Saves of 1, 100 and 10,000 new objects per transaction through a context (commit with the
/// outbox, then the export of the log into the container), side by side with raw SQLite
/// inserting the same rows in transactions of the same size.
enum SaveBenchmarks {
    static func run(_ options: BenchmarkOptions) throws -> String {
        // (objects per transaction, transactions per run)
        let shapes = options.smoke ? [(1, 5), (100, 2), (1_000, 1)] : [(1, 200), (100, 50), (10_000, 2)]
        let runs = options.smoke ? 1 : 5
        var table = MarkdownTable("Save vs raw SQLite", ["objects per transaction", "raw SQLite per transaction", "Ubiquity save per transaction",
                                                         "of it: export", "raw rows/s", "save rows/s", "time ratio"])
        for (size, transactions) in shapes {
            let scratch = try ScratchDirectory()
            defer { scratch.cleanUp() }
            let cloud = BenchCloud(root: scratch.path)
            let peer = try cloud.peer("saver")
            defer { peer.close() }
            let raw = try RawNotes(path: scratch.path + "/raw.sqlite")
            var rawSamples: [Double] = [], saveSamples: [Double] = [], exportSamples: [Double] = []
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
            }
            guard raw.count == first else { throw BenchmarkError("raw SQLite holds \(raw.count) of \(first) rows") }
            let rawTime = Measurement(samples: rawSamples).per(transactions), saveTime = Measurement(samples: saveSamples).per(transactions)
            table.add([Measurement.grouped(size), rawTime.text, saveTime.text, Measurement.ms(Measurement(samples: exportSamples).per(transactions).median),
                       rawTime.rate(size), saveTime.rate(size), Comparison(ours: saveTime, reference: rawTime).times])
        }
        table.notes = [
            "Ubiquity: `ObjectContext` inserts and `save()` — validation, one SQLite transaction with the merge state, history and outbox — then",
            "`exportPending()` writes the log atomically into the container (temp file, fsync, rename, fsync of the folder), as each save of a peer's",
            "context does. Raw SQLite: one transaction of prepared inserts, no file written. Median of \(runs) run(s) of many transactions (per-transaction figures).",
        ]
        return table.text
    }
}
