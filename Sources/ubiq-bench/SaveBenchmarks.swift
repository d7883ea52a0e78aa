import Foundation
import Ubiquity

/// Saves of 1, 100 and 10,000 new objects per transaction through a context (commit with the
/// outbox, then the export of the log into the container), side by side with raw SQLite
/// inserting the same rows in transactions of the same size. One-object saves are also set
/// beside a durable raw reference on a disk (`DiskDirectory`): `synchronous=FULL` and the
/// atomic write of a file of the log's size, since a save's log is durable when it returns.
enum SaveBenchmarks {
    static func run(_ book: FigureBook) throws -> String {
        let options = book.options
        // (objects per transaction, transactions per run)
        let shapes = options.smoke ? [(1, 5), (100, 2), (10_000, 1)] : options.instructions ? [(1, 20), (100, 5), (10_000, 1)] : [(1, 200), (100, 50), (10_000, 2)]
        let runs = options.timedRuns
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
                // A save's checkpoint runs beside it (`WALCheckpointer`): never beside the reference.
                peer.store.waitForCheckpointBeside()
            }
            guard raw.count == first else { throw BenchmarkError("raw SQLite holds \(raw.count) of \(first) rows") }
            let rawTime = Measurement(samples: rawSamples).per(transactions), saveTime = Measurement(samples: saveSamples).per(transactions)
            book.sheet.timeMultiple("save_\(size)_vs_raw", ours: saveTime, reference: rawTime)
            table.add([Measurement.grouped(size), rawTime.text, saveTime.text, Measurement.ms(Measurement(samples: exportSamples).per(transactions).median),
                       rawTime.rate(size), saveTime.rate(size), Comparison(ours: saveTime, reference: rawTime).times])
        }
        table.notes = [
            "Ubiquity: `ObjectContext` inserts and `save()` — validation, one SQLite transaction with the merge state, history and outbox — then",
            "`exportPending()` writes the log atomically into the container (temp file, fsync, rename, fsync of the folder), as each save of a peer's",
            "context does. Raw SQLite: one transaction of prepared inserts, no file written. Median of \(runs) run(s) of many transactions (per-transaction figures).",
        ]
        return table.text + "\n" + (try durableSaves(book, saves: options.smoke ? 5 : options.instructions ? 20 : 100, runs: runs))
    }

    /// One-object saves on a disk, where an fsync waits for the device, against the durable
    /// reference doing the same durable steps in the same folder: a `synchronous=FULL` commit of
    /// the row, then the log-sized file written as a save's log is (a temporary file, fsync,
    /// `rename`, fsync of the folder).
    private static func durableSaves(_ book: FigureBook, saves: Int, runs: Int) throws -> String {
        let disk = DiskDirectory()
        let scratch = try disk.scratch()
        defer { scratch.cleanUp() }
        let cloud = BenchCloud(root: scratch.path)
        let peer = try cloud.peer("saver")
        defer { peer.close() }
        let durable = try RawNotes(path: scratch.path + "/durable.sqlite", durable: true)
        let logFolder = scratch.path + "/durable-logs"
        try FileManager.default.createDirectory(atPath: logFolder, withIntermediateDirectories: true)
        var saveSamples: [Double] = [], durableSamples: [Double] = []
        var first = 0
        for _ in 0..<runs {
            let rows = NoteRow.make(saves, from: first)
            first += rows.count
            // Back to back, save by save, so both sides meet the same disk.
            var ours = 0.0, reference = 0.0
            for row in rows {
                ours += try seconds {
                    let context = ObjectContext(store: peer.store)
                    row.fill(try context.insert("Note", key: row.key))
                    try context.save()
                    guard try peer.exportPending() == 1 else { throw BenchmarkError("a save was not exported") }
                }
                let logBytes = try lastLogBytes(cloud.logDirectory(of: peer))
                peer.store.waitForCheckpointBeside()
                reference += try seconds {
                    try durable.insert(CollectionOfOne(row))
                    try writeDurably(logBytes, to: logFolder + "/log-\(row.key)")
                }
            }
            saveSamples.append(ours)
            durableSamples.append(reference)
        }
        guard durable.count == first else { throw BenchmarkError("durable raw SQLite holds \(durable.count) of \(first) rows") }
        let saveTime = Measurement(samples: saveSamples).per(saves), durableTime = Measurement(samples: durableSamples).per(saves)
        book.sheet.timeMultiple("save_1_vs_durable_raw", ours: saveTime, reference: durableTime)
        var table = MarkdownTable("Durable one-object saves on \(disk.fileSystem)", ["saves", "durable raw per save", "Ubiquity save per save", "time ratio"])
        table.add([Measurement.grouped(saves), durableTime.text, saveTime.text, Comparison(ours: saveTime, reference: durableTime).times])
        table.notes = [
            "Run in \(disk.base) (\(disk.fileSystem); `UBIQ_BENCH_DISK_DIR` chooses another folder). Durable raw: the row in one",
            "`synchronous=FULL` transaction (WAL: one fdatasync), then a file of the last log's size written as a log is: temporary file, fsync,",
            "`rename`, fsync of the folder. Ubiquity: `ObjectContext` insert, `save()`, `exportPending()` (the log written the same way, then",
            "marked sent in the store). Median of \(runs) run(s) of \(saves) saves.",
        ]
        return table.text
    }

    /// The size of the newest log file in `folder`.
    private static func lastLogBytes(_ folder: String) throws -> Int {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".cdt") && !$0.hasPrefix("receipt") }
        guard let newest = names.max() else { throw BenchmarkError("no log in \(folder)") }
        var info = stat()
        guard stat(folder + "/" + newest, &info) == 0 else { throw BenchmarkError("cannot stat \(newest)") }
        return Int(info.st_size)
    }

    /// Writes `count` bytes to `path` as a log is written: a temporary file, fsync, `rename`,
    /// fsync of the folder.
    private static func writeDurably(_ count: Int, to path: String) throws {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchmarkError("cannot create \(temporary)") }
        let bytes = [UInt8](repeating: 0x2A, count: count)
        let written = write(descriptor, bytes, count) == count && fsync(descriptor) == 0
        close(descriptor)
        guard written, rename(temporary, path) == 0 else { throw BenchmarkError("cannot write \(path)") }
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw BenchmarkError("cannot open the folder of \(path)") }
        defer { close(folder) }
        guard fsync(folder) == 0 else { throw BenchmarkError("cannot fsync the folder of \(path)") }
    }
}
