import Foundation
import Synchronization
import Ubiquity

/// Save-to-visible latency across processes: this process saves one object at a time as an app
/// would (context save, export into the container); a separate `ubiq watch --json` process on
/// another device — a coordinator's live import, printed — imports it and reports when its
/// did-import was posted. Each save waits until the
/// previous one was seen, so every figure is the latency of one save on an idle watcher.
enum LatencyBenchmarks {
    static func run(_ book: FigureBook) throws -> String {
        let options = book.options
        let saves = options.smoke ? 20 : 1_000
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let cloud = BenchCloud(root: scratch.path)
        try cloud.makeDevice("watcher")
        let saver = try cloud.peer("saver", policy: .apple)
        defer { saver.close() }
        let watcher = try WatchProcess(arguments: ["watch", "--json", "--cloud", cloud.cloud, "--device", cloud.devicePath("watcher"), "--content", "Bench"])
        defer { watcher.stop() }
        try watcher.waitUntilWatching()

        var latencies: [Double] = [], saveTimes: [Double] = []
        let rows = NoteRow.make(saves + 10)
        for (index, row) in rows.enumerated() {
            let start = Date().timeIntervalSince1970
            let context = saver.newContext()
            row.fill(try context.insert("Note", key: row.key))
            try context.save()
            let saved = Date().timeIntervalSince1970
            let importedAt = try watcher.waitForImport(of: row.gid, timeout: 30)
            if index >= 10 {  // the first saves warm up both sides
                latencies.append(importedAt - start)
                saveTimes.append(saved - start)
            }
        }
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] }
        book.sheet.record("live_import_p50_ms", percentile(0.5) * 1000, "median ms from a save in one process to another process's live did-import")
        book.sheet.record("live_import_p99_ms", percentile(0.99) * 1000, "99th percentile of the same")
        var table = MarkdownTable("Latency: save in one process → visible in another", ["saves", "median", "p99", "min", "max", "of it: the save itself (median)"])
        table.add([Measurement.grouped(saves), Measurement.ms(percentile(0.5)), Measurement.ms(percentile(0.99)), Measurement.ms(sorted.first ?? 0),
                   Measurement.ms(sorted.last ?? 0), Measurement.ms(Measurement(samples: saveTimes).median)])
        table.notes = [
            "From just before `context.save()` in this process (commit, export: temp file, fsync, rename) to the moment the watcher's import committed,",
            "as `ubiq watch --json` reports it (`importedAt`, its did-import event; both clocks are this machine's). One save at a time, the next after the previous was seen.",
        ]
        return table.text
    }
}

/// A `ubiq watch --json` child process and the imports it reported, by object ID. Used by the
/// benchmark's one thread; only `reports` is shared with the pipe's reading thread.
private final class WatchProcess {
    private let process = Process()
    private let output = Pipe()
    /// Its stderr goes to a file: a pipe nobody drains could block it.
    private let errorPath = NSTemporaryDirectory() + "ubiq-bench-watch-" + UUID().uuidString + ".stderr"
    private let reports = WatchReports()

    init(arguments: [String]) throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("ubiq")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw BenchmarkError("the latency suite runs \(executable.path), which is missing: build it with 'swift build -c release'")
        }
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        output.fileHandleForReading.readabilityHandler = { [reports] handle in reports.consume(handle.availableData) }
        try process.run()
    }

    func waitUntilWatching() throws {
        try wait(timeout: 30, "the watcher did not start") { $0.watching }
    }

    /// When the watcher's import of `id` committed (seconds since 1970).
    func waitForImport(of id: String, timeout: Double) throws -> Double {
        var time: Double?
        try wait(timeout: timeout, "the watcher never imported \(id)") { state in
            time = state.imported.removeValue(forKey: id)
            return time != nil
        }
        return time!
    }

    private func wait(timeout: Double, _ failure: String, until done: (inout WatchReports.State) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !reports.state.withLock({ done(&$0) }) {
            guard process.isRunning else {
                let message = ((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                throw BenchmarkError("\(failure): ubiq watch exited (\(message))")
            }
            guard Date() < deadline else { throw BenchmarkError(failure) }
            _ = reports.arrived.wait(timeout: .now() + min(0.5, max(0, deadline.timeIntervalSinceNow)))
        }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        output.fileHandleForReading.readabilityHandler = nil
        try? FileManager.default.removeItem(atPath: errorPath)
    }
}

/// What the watcher printed so far, parsed as its lines arrive on the pipe's thread.
private final class WatchReports: Sendable {
    struct State {
        var imported: [String: Double] = [:]
        var watching = false
        var pending = Data()
    }
    let state = Mutex(State())
    /// Signalled after each chunk of output, so a waiter looks again.
    let arrived = DispatchSemaphore(value: 0)

    func consume(_ data: Data) {
        state.withLock { state in
            state.pending.append(data)
            while let newline = state.pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = state.pending[state.pending.startIndex..<newline]
                state.pending = Data(state.pending[(newline + 1)...])
                guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
                if object["event"] as? String == "watching" { state.watching = true }
                if let time = object["importedAt"] as? Double {
                    for id in (object["inserted"] as? [String] ?? []) + (object["updated"] as? [String] ?? []) { state.imported[id] = time }
                }
            }
        }
        arrived.signal()
    }
}
