import Foundation
import Ubiquity

/// Baseline roll and garbage collection (on the join suite's fixture), `ubiq status` on a
/// container with 10,000 log files, and a sync beside 10,000 damaged ones, each beside the
/// plain file-system or SQLite work it cannot avoid.
enum MaintenanceBenchmarks {
    static func run(_ book: FigureBook) throws -> String {
        let options = book.options
        let figures = try book.joins(options.mainSize)
        let statusFiles = options.statusFiles
        let (listing, status) = try measureStatus(logs: statusFiles, writers: 4, runs: options.timedRuns)
        let damaged = try measureDamaged(files: statusFiles, peers: options.smoke ? 10 : 100, runs: options.timedRuns)

        book.sheet.timeMultiple("roll_vs_vacuum", ours: figures.roll, reference: figures.rawVacuum)
        var table = MarkdownTable("Baseline roll, garbage collection, status", ["operation", "size", "reference", "reference time", "Ubiquity", "time ratio"])
        table.add(["baseline roll", "\(Measurement.grouped(figures.count + options.runs(objects: figures.count))) objects → \(Measurement.grouped(Int(figures.baselineBytes))) bytes zipped",
                   "raw `VACUUM INTO` of the rows", figures.rawVacuum.text, figures.roll.text, Comparison(ours: figures.roll, reference: figures.rawVacuum).times])
        table.add(["garbage collection", "\(Measurement.grouped(figures.collectedLogs)) own logs deleted", "unlink of as many files",
                   figures.rawUnlink.text, figures.collect.text, Comparison(ours: figures.collect, reference: figures.rawUnlink).times])
        table.add(["status (`ContainerReport.make` + text)", "\(Measurement.grouped(statusFiles)) log files, 4 peers", "readdir + lstat of the same folders",
                   listing.text, status.text, Comparison(ours: status, reference: listing).times])
        table.add(["sync beside damaged logs (first: quarantines them)", "\(Measurement.grouped(statusFiles)) damaged log files, \(damaged.peers) peers",
                   "readdir + lstat of the same folders", damaged.listing.text, damaged.first.text, Comparison(ours: damaged.first, reference: damaged.listing).times])
        table.add(["sync beside damaged logs (later: known bad, \(damaged.laterReads) file(s) read)", "the same", "readdir + lstat of the same folders",
                   damaged.listing.text, damaged.later.text, Comparison(ours: damaged.later, reference: damaged.listing).times])
        table.notes = [
            "Roll: `rollBaseline(force:)` — copy the merge state into a state file built in memory, zip it (\(BlockDeflater.engine) level \(BlockDeflater.defaultLevel) in parallel 256 KiB blocks, its SHA-256 in the same pass) with metadata and model, atomic rename.",
            "GC: `collectGarbage()` — scan, read receipts, unlink own logs the baseline covers and every peer passed. Median of \(figures.roll.samples.count) run(s) (status: \(status.samples.count)).",
        ]
        return table.text + "\n" + (try doctorScaling(book))
    }

    /// `writers` peers write `logs` one-object logs between them and one of them imports the
    /// rest; `body` gets that one, and the peers are closed and the folder removed after it.
    static func withStatusFixture<T>(logs: Int, writers: Int, _ body: (UbiquityPeer) throws -> T) throws -> T {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let cloud = BenchCloud(root: scratch.path)
        let peers = try (0..<writers).map { try cloud.peer("writer\($0)") }
        defer { peers.forEach { $0.close() } }
        for (index, row) in NoteRow.make(logs).enumerated() { try peers[index % writers].write(inserted: [row.insertRecord]) }
        _ = try peers[0].importAvailable()
        return try body(peers[0])
    }

    /// The status report of the fixture's observer, timed against a plain listing of the same folders.
    static func measureStatus(logs: Int, writers: Int, runs: Int) throws -> (listing: Measurement, status: Measurement) {
        try withStatusFixture(logs: logs, writers: writers) { observer in try measureStatus(observer, logs: logs, runs: runs) }
    }

    private static func measureStatus(_ observer: UbiquityPeer, logs: Int, runs: Int) throws -> (listing: Measurement, status: Measurement) {
        let root = observer.location!.ubiquityRoot
        var listed = 0
        let listing = Measurement.run(runs) {
            seconds { listed = listAll(root) }
        }
        guard listed >= logs else { throw BenchmarkError("listed \(listed) of \(logs) files") }
        var lines = 0
        let status = try Measurement.run(runs) {
            try seconds { lines = try ContainerReport.make(for: observer).text.split(separator: "\n").count }
        }
        guard lines > logs else { throw BenchmarkError("status showed \(lines) lines for \(logs) files") }
        return (listing, status)
    }

    /// Doctor, which reads and verifies every log on each run, beside status on the same
    /// containers as the logs double: each doubling may cost it at most 2.2 times as long.
    static func doctorScaling(_ book: FigureBook) throws -> String {
        let options = book.options
        var rows: [(logs: Int, status: Measurement, doctor: Measurement)] = []
        for logs in options.doctorSizes {
            rows.append(try withStatusFixture(logs: logs, writers: 4) { observer in
                let status = try measureStatus(observer, logs: logs, runs: options.timedRuns).status
                var findings = 0
                let doctor = try Measurement.run(options.timedRuns) { try seconds { findings = try Doctor.examine(observer).count } }
                guard findings == 0 else { throw BenchmarkError("doctor found \(findings) problem(s) in a healthy container of \(logs) logs") }
                return (logs, status, doctor)
            })
        }
        var table = MarkdownTable("Doctor as the logs double", ["log files, 4 peers", "status", "doctor", "doctor per doubling"])
        var worst = 0.0
        for (index, row) in rows.enumerated() {
            var growth = "—"
            if index > 0 {
                let previous = rows[index - 1]
                // Per doubling, whatever the step between sizes: ratio^(1 / log2(size ratio)).
                let perDoubling = pow(row.doctor.median / max(previous.doctor.median, 1e-12), 1 / log2(Double(row.logs) / Double(previous.logs)))
                worst = max(worst, perDoubling)
                growth = String(format: "%.2f×", perDoubling)
            }
            table.add([Measurement.grouped(row.logs), row.status.text, row.doctor.text, growth])
        }
        book.sheet.record("doctor_per_doubling", worst, "the largest ratio of doctor's time per doubling of the logs (1 = flat, 2 = linear)")
        table.notes = ["Each container: 4 peers wrote the logs, one object each; the one examined imported them all, so doctor finds nothing. Median of \(options.timedRuns) run(s)."]
        return table.text
    }

    /// `files` damaged logs spread over `peers` peer folders (each numbered from 1, so each
    /// peer's first log blocks the rest): the first sync reads and quarantines them; a later
    /// sync must read none of them again.
    static func measureDamaged(files: Int, peers: Int, runs: Int) throws
        -> (listing: Measurement, first: Measurement, later: Measurement, laterReads: Int, peers: Int) {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let cloud = BenchCloud(root: scratch.path)
        let observer = try cloud.peer("observer", policy: .apple)
        defer { observer.close() }
        try observer.write(inserted: NoteRow.make(1).map(\.insertRecord))
        let location = observer.location!
        var garbage = [UInt8](repeating: 0, count: 700)
        for index in 0..<files {
            let peer = String(format: "damaged~00000000-0000-0000-0000-%012d", index % peers)
            let directory = location.logDirectory(of: peer)
            if index < peers { try AtomicFile.makeDirectory(directory) }
            garbage[0] = UInt8(truncatingIfNeeded: index)
            try AtomicFile.write(garbage, to: directory + "/" + TransactionLog.fileName(number: Int64(index / peers + 1)))
        }
        var listed = 0
        let listing = Measurement.run(runs) { seconds { listed = listAll(location.ubiquityRoot) } }
        guard listed >= files else { throw BenchmarkError("listed \(listed) of \(files) files") }
        var quarantined = 0
        let first = try Measurement.run(1) { try seconds { quarantined = try observer.sync().imported.quarantined.count } }
        guard quarantined == files else { throw BenchmarkError("the first sync quarantined \(quarantined) of \(files) files") }
        let counter = ReadCounter()
        let later = try ReadCounter.$current.withValue(counter) {
            try Measurement.run(runs) { try seconds { _ = try observer.sync() } }
        }
        let reads = counter.reads.filter { $0.contains("/damaged~") }.count / Swift.max(1, runs)
        return (listing, first, later, reads, peers)
    }

    /// readdir + lstat of every file under `path`, recursively: what any status must at least do.
    private static func listAll(_ path: String) -> Int {
        guard let directory = opendir(path) else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            var info = stat()
            guard lstat(path + "/" + name, &info) == 0 else { continue }
            count += (info.st_mode & S_IFMT) == S_IFDIR ? listAll(path + "/" + name) : 1
        }
        return count
    }
}
