import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquitySync
@testable import UbiquityCore
import UbiquityTestSupport

@Suite("Baselines and garbage collection")
struct BaselineTests {
    func save(_ peer: UbiquityPeer, _ key: String, title: String? = nil) throws {
        let context = peer.newContext()
        let note = try context.object(GlobalID(entity: "Note", key: key)) ?? context.insert("Note", key: key)
        note["title"] = .string(title ?? key)
        try context.save()
    }

    func converge(_ peers: [UbiquityPeer]) throws {
        for _ in 0..<3 { for peer in peers { _ = try peer.sync() } }
        let states = try peers.map { try $0.mergeStateText() }
        #expect(Set(states).count == 1, "peers converge")
    }

    @Test func twoPeersRollingAtTheSameMomentLoseNothing() throws {
        let cloud = try TestCloud()
        let manual: BaselinePolicy? = nil
        let a = try cloud.peer("a", policy: manual), b = try cloud.peer("b", policy: manual)
        for index in 0..<30 { try save(index % 2 == 0 ? a : b, "n\(index)") }
        try converge([a, b])
        try save(a, "only-a-knows")     // a now knows more than b
        _ = try a.sync()

        let results = EventLog<String>()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let peer = index == 0 ? a : b
            results.append((try? peer.rollBaseline(force: true).reason) ?? "error")
        }
        let baseline = try #require(a.baselineMetadata)
        #expect(baseline.knowledge == a.store.knowledge || baseline.knowledge == b.store.knowledge)
        _ = try b.sync()
        _ = try b.rollBaseline(force: true)
        #expect(a.baselineMetadata?.knowledge == a.store.knowledge, "the baseline that dominates wins: \(results.events)")

        // A newcomer starts from it and has everything.
        let newcomer = try cloud.peer("newcomer", policy: manual)
        let summary = try newcomer.sync()
        #expect(summary.adoptedBaseline != nil)
        #expect(try newcomer.store.count(FetchRequest(entity: "Note")) == 31)
        #expect(summary.imported.changes.inserted.count == 31, "the sync reports what the baseline brought as inserted")
        try converge([a, b, newcomer])
    }

    @Test func aPeerOfflineAcrossSeveralBaselinesCatchesUpAndKeepsItsEdits() throws {
        let cloud = try TestCloud()
        // No grace: logs every present receipt has passed go at once; the offline peer's stale
        // receipt is outlived too, so it must come back through the baseline.
        let eager = BaselinePolicy(transactionThreshold: 10, gracePeriod: 0)
        let a = try cloud.peer("a", policy: eager), b = try cloud.peer("b", policy: eager)
        let traveller = try cloud.peer("traveller", policy: eager)
        try save(traveller, "shared", title: "before the trip")
        try converge([a, b, traveller])

        // Offline: the traveller edits without syncing. Its folder is moved aside and a file put
        // in its place, so its exports fail (permissions would not stop root) and others cannot
        // see its receipt.
        let location = try #require(traveller.location)
        let folder = location.ubiquityRoot + "/" + traveller.peerID
        try FileManager.default.moveItem(atPath: folder, toPath: cloud.root + "/away")
        try AtomicFile.write([0], to: folder)
        try save(traveller, "written-offline")
        try save(traveller, "shared", title: "edited offline")
        #expect(try traveller.store.pendingOutbox().count == 2)
        var baselines: Set<String> = []
        for round in 0..<60 {
            try save(round % 2 == 0 ? a : b, "n\(round)")
            _ = try a.sync()
            _ = try b.sync()
            if let knowledge = a.baselineMetadata?.knowledge.description { baselines.insert(knowledge) }
        }
        #expect(baselines.count >= 3, "several baselines rolled while the traveller was away")
        let scan = ContainerScan(location: location)
        #expect(!scan.has(peer: a.peerID, number: 1), "old logs were collected")

        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.moveItem(atPath: cloud.root + "/away", toPath: folder)
        let summary = try traveller.sync()
        #expect(summary.exported == 2, "the offline edits go out first")
        #expect(summary.adoptedBaseline != nil, "then the traveller starts from the baseline")
        try converge([a, b, traveller])
        for peer in [a, b, traveller] {
            #expect(try peer.store.snapshot(of: GlobalID(entity: "Note", key: "written-offline")) != nil)
            #expect(try peer.store.count(FetchRequest(entity: "Note")) == 62)
        }
    }

    /// A baseline carries the merge state and nothing of the peer's own bookkeeping: not even
    /// in the free pages of its store file, where the deleted copies of sent logs (holding values
    /// since overwritten) would stay readable. Debian's SQLite zeroes deleted content by default;
    /// others do not, so the store is set to the SQLite default here.
    @Test func aBaselineHoldsNoTraceOfItsAuthorsBookkeeping() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil)
        try a.store.database.execute("PRAGMA secure_delete = OFF")
        try save(a, "note", title: "first-title-marker")
        try save(a, "note", title: "second")
        _ = try a.sync()
        guard case let .rolled(metadata, _) = try a.rollBaseline(force: true) else {
            Issue.record("a rolls a baseline")
            return
        }
        let work = NSTemporaryDirectory() + "baseline-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let state = try BaselineArchive.extractStore(try #require(a.location).baselinePath, metadata: metadata, into: work, sealing: .none, recentlyVerified: nil)
        let bytes = try AtomicFile.read(state, limit: 1 << 26)
        #expect(bytes.count > 0)
        #expect(bytes.firstRange(of: Array("second".utf8)) != nil, "the current title is there")
        #expect(bytes.firstRange(of: Array("first-title-marker".utf8)) == nil, "an overwritten title left in the baseline's free pages")
    }

    @Test func aTruncatedBaselineIsIgnoredAndReplaced() throws {
        let cloud = try TestCloud()
        let manual: BaselinePolicy? = nil
        let a = try cloud.peer("a", policy: manual)
        for index in 0..<10 { try save(a, "n\(index)") }
        _ = try a.sync()
        _ = try a.rollBaseline(force: true)
        let path = try #require(a.location).baselinePath
        let bytes = try AtomicFile.read(path, limit: 1 << 26)
        try AtomicFile.write(Array(bytes.prefix(bytes.count / 2)), to: path)
        #expect(a.baselineMetadata == nil, "a truncated baseline reads as none")

        let newcomer = try cloud.peer("newcomer", policy: manual)
        let summary = try newcomer.sync()
        #expect(summary.adoptedBaseline == nil)
        #expect(summary.imported.applied.count == 10, "the logs are still there and import")
        try save(a, "n10")
        _ = try a.sync()
        guard case .rolled = try a.rollBaseline(force: true) else {
            Issue.record("a peer replaces the unreadable baseline")
            return
        }
        let late = try cloud.peer("late", policy: manual)
        #expect(try late.sync().adoptedBaseline == a.peerID)
        try converge([a, newcomer, late])
    }

    /// A peer whose clock is an hour slow starts from a baseline and edits a note it holds
    /// from it: the edit was made after seeing the old value, so it wins — on this peer and on
    /// the author of the old value. (Found by `ubiq scenario fuzz --seeds 414`: a rebuilt store
    /// adopting its own baseline at the same instant lost its next edit.)
    @Test func anEditAfterAdoptingABaselineWinsHoweverSlowTheClock() throws {
        let cloud = try TestCloud()
        let manual: BaselinePolicy? = nil
        let a = try cloud.peer("a", policy: manual)
        try save(a, "shared", title: "old")
        _ = try a.sync()
        guard case .rolled = try a.rollBaseline(force: true) else {
            Issue.record("a rolls a baseline")
            return
        }
        _ = try Device.create(at: cloud.devicePath("slow"), userName: "slow", identityToken: Device.defaultAccount)
        var configuration = cloud.configuration("slow", policy: manual)
        configuration.clock = WallClock.system.skewed(by: -3_600)
        let slow = try UbiquityPeer(configuration: configuration)
        #expect(try slow.sync().adoptedBaseline == a.peerID)
        try save(slow, "shared", title: "new")
        try converge([a, slow])
        for peer in [a, slow] {
            let note = try #require(try peer.newContext().object(GlobalID(entity: "Note", key: "shared")))
            #expect(try note.value(for: "title") == .string("new"), "\(peer.peerID)")
        }
    }

    /// The baseline its logs were collected under is gone (deleted here; in the field, a damaged
    /// file, or a conflict copy a file-sync tool threw away): the peer holds those transactions,
    /// sees that no baseline or log does, and rolls a baseline at once, whatever the thresholds;
    /// a newcomer gets everything. (Found by `ubiq scenario fuzz --seeds 387`; before the join
    /// rule, the peer wrote its collected logs again from copies it kept for the grace period.)
    @Test func aLostBaselineIsRolledAgainByAPeerThatHoldsItsTransactions() throws {
        let cloud = try TestCloud()
        let patient = BaselinePolicy(transactionThreshold: 1_000, gracePeriod: 3_600)
        let a = try cloud.peer("a", policy: patient)
        for key in ["one", "two", "three"] { try save(a, key) }
        _ = try a.sync()
        guard case .rolled = try a.rollBaseline(force: true) else {
            Issue.record("a rolls a baseline")
            return
        }
        #expect(a.collectGarbage(now: Date()).deleted.count == 3, "alone, a collects every log the baseline covers")
        try FileManager.default.removeItem(atPath: try #require(a.location).baselinePath)

        let summary = try a.sync()
        guard case let .rolled(metadata, reason)? = summary.baseline else {
            Issue.record("a rolls a baseline again: \(String(describing: summary.baseline))")
            return
        }
        #expect(metadata.knowledge[a.peerID] == 3 && reason.contains("no baseline or log holds"))
        let newcomer = try cloud.peer("newcomer", policy: patient)
        _ = try newcomer.sync()
        #expect(try noteKeys(newcomer) == ["one", "three", "two"])
    }

    /// A log that stays damaged (its author gone) never blocks a baseline roll: the baseline
    /// does not cover it, and everything else still gets one. (Found by `ubiq scenario fuzz
    /// --seeds 387`, where a truncated log of removed content blocked every roll.)
    @Test func aQuarantinedLogNeverBlocksABaselineRoll() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        try save(a, "from-a")
        try save(b, "from-b")
        _ = try b.sync()
        b.close()
        let directory = try #require(b.location).logDirectory(of: b.peerID)
        let name = try #require(DirectoryEntry.names(directory).first { TransactionLog.transactionNumber(inFileName: $0) == 1 })
        var bytes = try AtomicFile.read(directory + "/" + name, limit: 1 << 20)
        bytes.removeLast(bytes.count / 2)
        try AtomicFile.write(bytes, to: directory + "/" + name)
        #expect(try a.sync().imported.quarantined.count == 1)

        guard case let .rolled(metadata, _) = try a.rollBaseline(force: true) else {
            Issue.record("a rolls a baseline although b's log is damaged")
            return
        }
        #expect(metadata.knowledge[a.peerID] == 1 && metadata.knowledge[b.peerID] == 0)
    }

    /// Closes `peer` and deletes its logs from the container, as if collected while it was gone.
    func removeLogs(of peer: UbiquityPeer) throws {
        peer.close()
        let directory = try #require(peer.location).logDirectory(of: peer.peerID)
        for name in DirectoryEntry.names(directory) where TransactionLog.transactionNumber(inFileName: name) != nil {
            try FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }

    @Test func anOlderBaselineBroughtBackNeverTakesWhatOnlyAStoreStillHolds() throws {
        let cloud = try TestCloud()
        let patient = BaselinePolicy(transactionThreshold: 1_000, gracePeriod: 3_600)
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil), c = try cloud.peer("c", policy: patient)
        try save(a, "shared", title: "first")
        try converge([a, b, c])
        // b saves and rolls a baseline, then is gone with its log collected; the baseline is
        // set aside (the file-sync tool will bring it back).
        try save(b, "from-b")
        _ = try b.sync()
        guard case .rolled = try b.rollBaseline(force: true) else {
            Issue.record("b rolls a baseline")
            return
        }
        let baselinePath = try #require(c.location).baselinePath
        let older = try AtomicFile.read(baselinePath, limit: 1 << 24)
        try FileManager.default.removeItem(atPath: baselinePath)
        try removeLogs(of: b)
        // a saves later; only c sees it before a is gone with its logs collected.
        try save(a, "shared", title: "a's later edit")
        try save(a, "from-a")
        _ = try a.sync()
        _ = try c.sync()
        #expect(c.store.knowledge[a.peerID] == 3)
        try removeLogs(of: a)
        try AtomicFile.write(older, to: baselinePath)

        let summary = try c.sync()
        #expect(summary.adoptedBaseline == b.peerID)
        let context = c.newContext()
        #expect(try context.object(GlobalID(entity: "Note", key: "from-b")) != nil, "c gets what only the baseline holds")
        #expect(try context.object(GlobalID(entity: "Note", key: "from-a")) != nil, "and keeps what only it holds")
        #expect(try context.object(GlobalID(entity: "Note", key: "shared"))?.value(for: "title") == .string("a's later edit"))
        #expect(c.store.knowledge[a.peerID] == 3, "c still knows a's transactions")
        guard case .rolled? = summary.baseline else {
            Issue.record("c rolls a baseline holding them at once: \(String(describing: summary.baseline))")
            return
        }

        let newcomer = try cloud.peer("newcomer", policy: patient)
        _ = try newcomer.sync()
        try converge([c, newcomer])
        #expect(try newcomer.newContext().object(GlobalID(entity: "Note", key: "from-a")) != nil)
        #expect(try newcomer.newContext().object(GlobalID(entity: "Note", key: "shared"))?.value(for: "title") == .string("a's later edit"))
    }

    @Test func garbageCollectionWaitsForEveryReceiptOrTheGracePeriod() throws {
        let cloud = try TestCloud()
        let patient = BaselinePolicy(transactionThreshold: 1_000, gracePeriod: 3_600)
        let a = try cloud.peer("a", policy: patient), b = try cloud.peer("b", policy: patient)
        _ = try b.sync()                      // b has a receipt, then falls behind
        for index in 0..<5 { try save(a, "n\(index)") }
        _ = try a.sync()
        _ = try a.rollBaseline(force: true)
        var report = a.collectGarbage()
        #expect(report.deleted.isEmpty)
        #expect(report.blockingPeers[b.peerID] == 0, "b's receipt holds the logs back")
        _ = try b.sync()
        report = a.collectGarbage()
        #expect(report.deleted.count == 5, "once b has passed them, they go")
        try save(a, "n5")
        _ = try a.sync()
        _ = try a.rollBaseline(force: true)
        report = a.collectGarbage(now: Date().addingTimeInterval(7_200))
        #expect(report.deleted.count == 1, "after the grace period a log goes whatever the receipts")
        #expect(report.staleReceipts.isEmpty, "nobody synced during those two hours: no peer fell silent while others went on")
        // Two hours later by its clock, a new peer syncs: b's receipt is now older than the
        // grace period before the content's newest activity.
        let later = try cloud.peer("c", policy: patient, clock: WallClock.system.skewed(by: 7_200))
        _ = try later.sync()
        report = a.collectGarbage(now: Date().addingTimeInterval(7_200))
        #expect(report.staleReceipts == [b.peerID], "a is the collector; c synced last; b fell silent")
    }

    @Test("a container nobody touched does not age into stale receipts, whatever the calendar says")
    func dormantContainerHasNoStaleReceipts() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try save(a, "n0")
        _ = try a.sync()
        _ = try b.sync()
        _ = try a.sync()
        _ = try a.rollBaseline(force: true)
        let aYearLater = Date().addingTimeInterval(365 * 86_400)
        #expect(a.collectGarbage(now: aYearLater).staleReceipts.isEmpty)
        #expect(try Doctor.examine(b, now: aYearLater).filter { $0.kind == .staleReceipt }.isEmpty)
    }
}
