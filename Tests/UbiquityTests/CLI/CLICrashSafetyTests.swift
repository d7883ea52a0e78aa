import Foundation
import UbiquityBase
import Testing

/// SIGKILL at random moments loses no acknowledged save and publishes no unsaved change
/// (Docs/Lifecycle.md, "A command killed midway").
@Suite("CLI crash safety")
struct CLICrashSafetyTests {
    static let count = 400
    static let kills = 6

    @Test(arguments: SeededGenerator.testSeeds([1]))
    func killedSoakLosesNothingAndPublishesNothingUnsaved(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let note = "seed \(seed) (replay with UBIQUITY_TEST_SEED=\(seed))"
        let sandbox = try CLISandbox()
        let writer = try sandbox.initDevice("writer")
        try sandbox.initDevice("reader")
        let soak = ["soak", "--count", "\(Self.count)", "--prefix", "k-"]

        var acknowledged: Set<String> = []
        var killed = 0
        for _ in 0..<Self.kills {
            let process = try sandbox.start(soak, device: "writer")
            // From before the store opens to well into the run: 5–250 ms.
            let end = Date().addingTimeInterval(Double(UInt64.random(in: 5...250, using: &random)) / 1000)
            while process.isRunning && Date() < end { usleep(1_000) }
            let wasRunning = process.isRunning
            process.kill()
            let result = process.wait(timeout: 30)
            acknowledged.formUnion(result.stdoutLines)
            if wasRunning && result.signaled { killed += 1 } else {
                #expect(result.succeeded, "a soak that was not killed ended well: \(result) — \(note)")
            }
            // Checked before the next run: a restart would save a lost object again and hide the loss.
            let stored = try storedIDs(sandbox)
            let lost = acknowledged.subtracting(stored)
            #expect(lost.isEmpty, "kill \(killed): acknowledged but not in the store: \(lost.sorted()) — \(note)")
        }
        let final = try sandbox.run(soak, device: "writer", timeout: 60)
        #expect(final.succeeded, "the restarted soak completes: \(final) — \(note)")
        acknowledged.formUnion(final.stdoutLines)
        #expect(killed >= 1, "at least one run was really killed (\(killed)) — \(note)")

        // Lost nothing: every printed (acknowledged) ID is in the writer's store, and the
        // restarts completed the whole set exactly once.
        let writerIDs = Set(try objectIDs(inJSON: try sandbox.dump("writer")))
        #expect(acknowledged.subtracting(writerIDs).isEmpty, "acknowledged but missing: \(acknowledged.subtracting(writerIDs).sorted()) — \(note)")
        #expect(writerIDs == Set((0..<Self.count).map { "Note/k-\($0)" }), "the writer holds exactly the \(Self.count) soaked notes — \(note)")

        // Published nothing unsaved: one log per committed save, numbered 1…count, no more
        // (checked before any sync, which may roll a baseline and collect old logs).
        let numbers = try logNumbers(in: sandbox.cloud, peerID: writer)
        #expect(numbers == Array(1...Self.count), "the cloud holds exactly logs 1…\(Self.count) of the writer (got \(numbers.count), first \(numbers.prefix(3)), last \(numbers.suffix(3))) — \(note)")

        // The writer's sync flushes whatever a kill left in its outbox (each save already exported it).
        let sync = try sandbox.succeed(["sync"], device: "writer").stdout
        #expect(!sync.contains("in outbox") && !sync.contains("—"), "the outbox is empty after sync: \(sync) — \(note)")

        try sandbox.succeed(["sync"], device: "reader")
        #expect(try sandbox.dump("reader") == sandbox.dump("writer"), "the reader converges on exactly the writer's store — \(note)")
    }

    /// The IDs in the writer's store. A kill before the store was made leaves none, and a
    /// reader says so in one line (it never makes a store, and a half-made one left by the dead
    /// owner is no store).
    private func storedIDs(_ sandbox: CLISandbox) throws -> Set<String> {
        let result = try sandbox.run(["dump", "--json"], device: "writer")
        if !result.succeeded, result.stderr.contains("yet (nothing was saved or synced there)"), !result.stderr.contains("being created") {
            return []
        }
        return Set(try objectIDs(inJSON: try sandbox.dump("writer")))
    }

    /// Transaction numbers of the writer's logs in the cloud (`<10 digits>-<UUID>.1.cdt`), sorted.
    private func logNumbers(in cloud: String, peerID: String) throws -> [Int] {
        try FileManager.default.subpathsOfDirectory(atPath: cloud)
            .filter { $0.contains("/\(peerID)/") && $0.hasSuffix(".1.cdt") }
            .compactMap { path -> Int? in
                let name = (path as NSString).lastPathComponent
                guard let dash = name.firstIndex(of: "-"), name.distance(from: name.startIndex, to: dash) == 10 else { return nil }
                return Int(name[..<dash])
            }
            .sorted()
    }
}
