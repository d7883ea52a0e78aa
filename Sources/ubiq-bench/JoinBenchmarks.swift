import Foundation
import Ubiquity

/// A newcomer joining a container of N objects — a baseline of 90 % of them plus N/100 newer
/// logs of 10 objects — through the coordinator (fallback, initial import, handover), side by
/// side with raw SQLite copying the same rows into a new file. The same fixture serves the
/// baseline roll and the garbage collection of the maintenance suite.
struct JoinFigures {
    let count: Int
    let baselineObjects: Int
    let newerLogs: Int
    let rawCopy: Measurement
    let join: Measurement
    let rawVacuum: Measurement
    let roll: Measurement
    let baselineBytes: Int64
    let collectedLogs: Int
    let rawUnlink: Measurement
    let collect: Measurement

    static func measure(count: Int, runs: Int) throws -> JoinFigures {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let cloud = BenchCloud(root: scratch.path)
        let rows = NoteRow.make(count)
        let newerLogs = max(1, count / 100)
        let baselineObjects = count - newerLogs * 10

        let writer = try cloud.peer("writer")
        defer { writer.close() }
        for chunk in rows[..<baselineObjects].chunks(of: 100) { try writer.write(inserted: chunk.map(\.insertRecord)) }
        guard case .rolled = try writer.rollBaseline(force: true) else { throw BenchmarkError("the writer did not roll a baseline") }
        for chunk in rows[baselineObjects...].chunks(of: 10) { try writer.write(inserted: chunk.map(\.insertRecord)) }
        let source = try RawNotes(path: scratch.path + "/raw-source.sqlite")
        try source.insert(rows)

        var copySamples: [Double] = [], joinSamples: [Double] = []
        for run in 0..<runs {
            let target = try RawNotes(path: "\(scratch.path)/raw-copy-\(run).sqlite")
            copySamples.append(try seconds { try source.copy(into: target) })
            guard target.count == count else { throw BenchmarkError("the raw copy holds \(target.count) rows") }

            let name = BenchCloud.freshName("newcomer")
            try cloud.makeDevice(name)
            let coordinator = try UbiquitousStoreCoordinator(configuration: cloud.configuration(name), liveImport: .off)
            joinSamples.append(try seconds {
                try coordinator.addStore()
                guard try coordinator.waitForBackgroundImport(timeout: 3600) else { throw BenchmarkError("the newcomer's import timed out") }
            })
            guard let peer = coordinator.peer, peer.kind == .account, peer.store.knowledge == writer.store.knowledge,
                  try peer.store.count(FetchRequest(entity: "Note")) == count else {
                throw BenchmarkError("the newcomer did not converge")
            }
            coordinator.close()
            cloud.removeDevice(name)
            // The last newcomer stays in the cloud: its receipt is what GC must wait for.
            if run < runs - 1 { try? FileManager.default.removeItem(atPath: peer.location!.ubiquityRoot + "/" + peer.peerID) }
        }

        // Roll: each run first saves one change, so there is something new to cover.
        var vacuumSamples: [Double] = [], rollSamples: [Double] = []
        for run in 0..<runs {
            vacuumSamples.append(try seconds { try source.vacuum(into: "\(scratch.path)/raw-vacuum-\(run).sqlite") })
            try writer.write(updated: [rows[run].updateRecord])
            var decision: BaselineDecision?
            rollSamples.append(try seconds { decision = try writer.rollBaseline(force: true) })
            guard case .rolled = decision else { throw BenchmarkError("no baseline rolled: \(decision?.reason ?? "")") }
        }
        let baselineBytes = DirectoryEntry.list((writer.location!.baselinePath as NSString).deletingLastPathComponent)
            .first { $0.name == "baseline.zip" }?.size ?? 0

        // GC: the writer's logs that the baseline covers and the last newcomer's receipt has
        // passed (all but the few saved for the rolls). Between runs the deleted files come back
        // from hard links.
        let logDirectory = cloud.logDirectory(of: writer)
        let logs = DirectoryEntry.list(logDirectory).map(\.name).filter { TransactionLog.transactionNumber(inFileName: $0) != nil }
        let stash = scratch.path + "/stash", doomed = scratch.path + "/doomed"
        try FileManager.default.createDirectory(atPath: stash, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: doomed, withIntermediateDirectories: true)
        for name in logs where link(logDirectory + "/" + name, stash + "/" + name) != 0 { throw BenchmarkError("cannot stash \(name)") }
        var unlinkSamples: [Double] = [], collectSamples: [Double] = []
        var collected = 0
        for _ in 0..<runs {
            var report: GarbageReport?
            collectSamples.append(seconds { report = writer.collectGarbage() })
            guard let report else { continue }
            collected = report.deleted.count
            guard collected > 0, collected + report.kept == logs.count else {
                throw BenchmarkError("GC deleted \(collected) and kept \(report.kept) of \(logs.count) logs (\(report.note ?? ""))")
            }
            for name in report.deleted {
                _ = link(stash + "/" + name, logDirectory + "/" + name)
                _ = link(stash + "/" + name, doomed + "/" + name)
            }
            unlinkSamples.append(seconds { for name in report.deleted { unlink(doomed + "/" + name) } })
        }
        return JoinFigures(count: count, baselineObjects: baselineObjects, newerLogs: newerLogs,
                           rawCopy: Measurement(samples: copySamples), join: Measurement(samples: joinSamples),
                           rawVacuum: Measurement(samples: vacuumSamples), roll: Measurement(samples: rollSamples), baselineBytes: baselineBytes,
                           collectedLogs: collected, rawUnlink: Measurement(samples: unlinkSamples), collect: Measurement(samples: collectSamples))
    }
}

enum JoinBenchmarks {
    /// The 1,000,000-object row `--large` adds (the issue's goal holds at 100k and at 1M).
    static let largeSize = 1_000_000

    static func run(_ book: FigureBook) throws -> String {
        let sizes = [book.options.mainSize] + (book.options.large ? [largeSize] : [])
        var table = MarkdownTable("Join vs raw SQLite copy", ["objects", "in the baseline", "newer logs", "raw SQLite copy", "Ubiquity join", "time ratio"])
        var runs = 0
        for size in sizes {
            let figures = try book.joins(size)
            book.sheet.timeMultiple(size == book.options.mainSize ? "join_vs_raw_copy" : "join_1m_vs_raw_copy", ours: figures.join, reference: figures.rawCopy)
            table.add([Measurement.grouped(figures.count), Measurement.grouped(figures.baselineObjects), Measurement.grouped(figures.newerLogs),
                       figures.rawCopy.text, figures.join.text, Comparison(ours: figures.join, reference: figures.rawCopy).times])
            runs = figures.join.samples.count
        }
        table.notes = [
            "A newcomer device adds the store through `UbiquitousStoreCoordinator` (fallback at once; in the background: adopt the baseline — unzip, verify, copy its state —,",
            "import the newer logs, hand over) until `waitForBackgroundImport` returns, converged. Raw SQLite: one SELECT and one reused INSERT copy the same rows into a new file.",
            "The newcomer rolls no baseline of its own here (policy off); the roll is measured below. Median of \(runs) run(s).",
        ]
        return table.text
    }
}
