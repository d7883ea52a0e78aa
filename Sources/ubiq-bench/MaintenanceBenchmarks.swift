import Foundation
import Ubiquity

/// Baseline roll and garbage collection (on the join suite's fixture), and `ubiq status` on a
/// container with 10,000 log files, each beside the plain file-system or SQLite work it
/// cannot avoid.
enum MaintenanceBenchmarks {
    static func run(_ book: FigureBook) throws -> String {
        let options = book.options
        let figures = try book.joins(options.mainSize)
        let statusFiles = options.smoke ? 100 : 10_000
        let (listing, status) = try measureStatus(logs: statusFiles, writers: 4, runs: options.smoke ? 1 : 5)

        var table = MarkdownTable("Baseline roll, garbage collection, status", ["operation", "size", "reference", "reference time", "Ubiquity", "time ratio"])
        table.add(["baseline roll", "\(Measurement.grouped(figures.count + options.runs(objects: figures.count))) objects → \(Measurement.grouped(Int(figures.baselineBytes))) bytes zipped",
                   "raw `VACUUM INTO` of the rows", figures.rawVacuum.text, figures.roll.text, Comparison(ours: figures.roll, reference: figures.rawVacuum).times])
        table.add(["garbage collection", "\(Measurement.grouped(figures.collectedLogs)) own logs deleted", "unlink of as many files",
                   figures.rawUnlink.text, figures.collect.text, Comparison(ours: figures.collect, reference: figures.rawUnlink).times])
        table.add(["status (`ContainerReport.make` + text)", "\(Measurement.grouped(statusFiles)) log files, 4 peers", "readdir + lstat of the same folders",
                   listing.text, status.text, Comparison(ours: status, reference: listing).times])
        table.notes = [
            "Roll: `rollBaseline(force:)` — `VACUUM INTO` a state file, strip local tables, zip (deflate) with metadata and model, checksum, atomic rename.",
            "GC: `collectGarbage()` — scan, read receipts, unlink own logs the baseline covers and every peer passed. Median of \(figures.roll.samples.count) run(s) (status: \(status.samples.count)).",
        ]
        return table.text
    }

    /// `writers` peers write `logs` one-object logs between them; one of them imports the rest,
    /// then its status report is timed against a plain listing of the same folders.
    static func measureStatus(logs: Int, writers: Int, runs: Int) throws -> (listing: Measurement, status: Measurement) {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let cloud = BenchCloud(root: scratch.path)
        let peers = try (0..<writers).map { try cloud.peer("writer\($0)") }
        defer { peers.forEach { $0.close() } }
        for (index, row) in NoteRow.make(logs).enumerated() { try peers[index % writers].write(inserted: [row.insertRecord]) }
        let observer = peers[0]
        _ = try observer.importAvailable()
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
