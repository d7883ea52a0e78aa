import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// Several machines whose clouds a file-sync engine keeps in step: files arrive in any order,
/// late or not at all, baselines before or long after the logs they cover, deletions late,
/// epoch files as conflict copies. Every peer converges, nothing is applied twice, nothing
/// stalls, and what cannot go on yet is reported.
@Suite("Delivery by a file-sync engine")
struct FileSyncDeliveryTests {
    /// Applied (peer, number) pairs, failing on the first one applied twice.
    final class AppliedOnce {
        private var seen: Set<String> = []
        private(set) var duplicates: [String] = []
        func record(_ report: ImportReport) {
            for (peer, number) in report.applied where !seen.insert("\(peer):\(number)").inserted { duplicates.append("\(peer):\(number)") }
        }
        var count: Int { seen.count }
    }

    @Test func logsArrivingInAnyOrderLateOrNotAtAllNeverStallTheRest() throws {
        let machines = try TestMachines(2)
        let author = try machines.peer("author", on: 0), bystander = try machines.peer("bystander", on: 0)
        let reader = try machines.peer("reader", on: 1)
        for index in 1...5 { try saveNote(author, "a\(index)") }
        try saveNote(bystander, "b1")
        _ = try bystander.sync()
        try saveNote(bystander, "b2")   // saw all of the author's: waits for them elsewhere
        machines.engine.scan(0)

        let applied = AppliedOnce()
        let authorLogs = machines.engine.pending(1).filter { $0.contains(author.peerID) && $0.hasSuffix(".1.cdt") }.sorted()
        #expect(authorLogs.count == 5)
        // The author's logs arrive newest first, and the first one not at all for now.
        for path in authorLogs.dropFirst().reversed() {
            machines.engine.deliver(to: 1) { $0 == path }
            let summary = try reader.sync()
            applied.record(summary.imported)
            #expect(summary.imported.applied.isEmpty, "nothing of the author applies before its first log")
        }
        machines.engine.deliver(to: 1) { $0.contains(bystander.peerID) }
        let meanwhile = try reader.sync()
        applied.record(meanwhile.imported)
        #expect(meanwhile.imported.applied.map(\.number) == [1], "the bystander's first log does not wait for the author's")
        #expect(meanwhile.imported.missingPredecessors.map(\.peerID) == [author.peerID])
        let findings = try Doctor.examine(reader)
        #expect(findings.contains { $0.kind == .missingPredecessor && $0.message.contains("missing transaction 1 of peer \(author.peerID)") })

        machines.settle()
        let last = try reader.sync()
        applied.record(last.imported)
        #expect(applied.duplicates.isEmpty, "\(applied.duplicates)")
        #expect(applied.count == 7)
        _ = try author.sync()
        #expect(try reader.dumpText() == author.dumpText())
        #expect(try noteKeys(reader) == ["a1", "a2", "a3", "a4", "a5", "b1", "b2"])
    }

    /// A newcomer that gets the baseline before the logs it covers starts from it and skips
    /// them; one that gets newer logs long before the baseline waits (reported), then catches up.
    @Test func aBaselineArrivingBeforeTheLogsItCoversOrLongAfter() throws {
        let machines = try TestMachines(3)
        machines.engine.online[2] = false
        let author = try machines.peer("author", on: 0)
        for index in 1...6 { try saveNote(author, "a\(index)") }
        _ = try author.sync()
        _ = try author.rollBaseline(force: true)
        machines.engine.scan(0)

        // Machine 1: the baseline first, the logs after.
        machines.engine.deliver(to: 1) { $0.contains(".baseline/") || $0.contains(".content/") }
        let early = try machines.peer("early", on: 1)
        let started = try early.sync()
        #expect(started.adoptedBaseline == author.peerID)
        #expect(try noteKeys(early) == ["a1", "a2", "a3", "a4", "a5", "a6"])
        machines.engine.deliver(to: 1) { _ in true }
        #expect(try early.sync().imported.applied.isEmpty, "the logs the baseline covers are never applied again")

        // The author collects its covered logs (everybody passed them) and saves more; machine 2
        // gets the new logs and the deletions long before the baseline.
        machines.settle()
        _ = try author.sync()
        try saveNote(author, "a7")
        machines.engine.scan(0)
        #expect(try logNames(of: author.peerID, at: author).count == 1, "logs 1–6 collected")
        machines.engine.online[2] = true
        machines.engine.deliver(to: 2) { !$0.contains(".baseline/") }
        let late = try machines.peer("late", on: 2)
        let waiting = try late.sync()
        #expect(waiting.imported.applied.isEmpty && waiting.imported.waiting == 1)
        #expect(try Doctor.examine(late).contains { $0.kind == .missingPredecessor && $0.message.contains("missing transaction 1 of peer \(author.peerID)") })
        machines.settle()
        let caughtUp = try late.sync()
        #expect(caughtUp.adoptedBaseline == author.peerID)
        #expect(caughtUp.imported.applied.map(\.number) == [7])
        #expect(try late.dumpText() == author.dumpText())
    }

    /// Syncthing delivers the new content epoch before the deletions of the removed content, or
    /// after them: either way the old logs still lying around stay dead, and what a peer saved
    /// before it heard of the removal goes with the removed content.
    @Test(arguments: [true, false])
    func lateDeletionsAfterAContentRemovalNeverBringTheOldContentBack(epochFirst: Bool) throws {
        let machines = try TestMachines(2)
        let remover = try machines.peer("remover", on: 0), other = try machines.peer("other", on: 1)
        try saveNote(remover, "old-r")
        let oldNumber = try saveNote(other, "old-o")
        machines.settle()
        _ = try remover.sync()
        _ = try other.sync()
        machines.settle()
        #expect(try noteKeys(other) == ["old-o", "old-r"])
        let oldLogs = try logNames(of: other.peerID, at: other)

        try remover.removeUbiquitousContent()
        let epoch = try #require(try remover.store.contentEpoch())
        machines.engine.scan(0)
        let isEpoch: (String) -> Bool = { $0.contains(".content/") }
        machines.engine.deliver(to: 1, where: epochFirst ? isEpoch : { !isEpoch($0) })
        let noticed = try other.sync()
        #expect(noticed.contentRemoved == epochFirst)
        #expect(noticed.imported.applied.isEmpty, "no old log is applied: \(noticed.imported.applied)")
        if epochFirst {
            #expect(try noteKeys(other).isEmpty)
            #expect(try other.store.contentEpoch() == epoch)
            #expect(try logNames(of: remover.peerID, at: other).count == 1, "the remover's old log is still there")
            #expect(noticed.imported.ignored.contains { $0.hasPrefix(remover.peerID + "/") }, "seen, and left alone: \(noticed.imported.ignored)")
            #expect(try logNames(of: other.peerID, at: other).isEmpty, "its own old logs went when it started over")
        } else {
            #expect(try noteKeys(other) == ["old-o", "old-r"], "no removal is known without its epoch")
        }
        // Saved after the removal reached it, the note belongs to the new content and its
        // number starts again; saved before, it belongs to the removed content.
        let newNumber = try saveNote(other, "new-o")
        #expect(newNumber == (epochFirst ? 1 : oldNumber + 1))
        let newLog = try #require(try logNames(of: other.peerID, at: other).first { !oldLogs.contains($0) })
        let decoded = try TransactionLog(decoding: try AtomicFile.read(try #require(other.location).logDirectory(of: other.peerID) + "/" + newLog, limit: 1 << 20),
                                         model: other.store.model)
        #expect(decoded.contentEpoch == (epochFirst ? epoch : nil), "a log names the content epoch its author was in")
        machines.settle()
        let after = try other.sync()
        #expect(after.contentRemoved == !epochFirst)
        #expect(after.imported.applied.isEmpty, "\(after.imported.applied)")
        let applied = AppliedOnce()
        applied.record(try remover.sync().imported)
        machines.settle()
        _ = try other.sync()
        applied.record(try remover.sync().imported)
        #expect(applied.duplicates.isEmpty, "\(applied.duplicates)")
        #expect(applied.count == (epochFirst ? 1 : 0), "the remover takes the new note's log once, never an old one")
        #expect(try noteKeys(other) == (epochFirst ? ["new-o"] : []), "a save made before hearing of the removal goes with it")
        #expect(try remover.dumpText() == other.dumpText())
    }

    /// Only a removal writes a content epoch: two machines that create the content at once
    /// write none, so there is nothing to collide and nobody starts over.
    @Test func twoMachinesCreatingTheContentAtOnceIsNoRemoval() throws {
        let machines = try TestMachines(2)
        let left = try machines.peer("left", on: 0), right = try machines.peer("right", on: 1)
        try saveNote(left, "l")
        usleep(20_000)
        try saveNote(right, "r")
        for peer in [left, right] { _ = try peer.sync() }
        machines.settle()
        for peer in [left, right] {
            #expect(ContentEpoch.status(try #require(peer.location)) == .none, "creating content writes no epoch")
            #expect(try peer.sync().contentRemoved == false)
        }
        machines.settle()
        _ = try left.sync()
        #expect(machines.engine.conflictCopiesMade == 0)
        #expect(try noteKeys(left) == ["l", "r"])
        #expect(try left.dumpText() == right.dumpText())
        #expect(!(try Doctor.examine(left)).contains { $0.kind == .conflictCopy })
    }

    /// Two machines remove the content while apart; both save on their new content. The sync
    /// tool keeps one epoch under the name everywhere and the other as a conflict copy, which
    /// nobody reads: every peer ends in the kept epoch. Neither removal knew of the other, so
    /// what was saved after either is kept: the peers of the other epoch carry it over
    /// (Lifecycle.md, "Two removals at once"). Nothing of the old content comes back.
    @Test func twoMachinesRemovingTheContentAtOnceConvergeOnTheEpochKeptUnderTheName() throws {
        let machines = try TestMachines(2)
        let first = try machines.peer("first", on: 0), bystander = try machines.peer("bystander", on: 0)
        let second = try machines.peer("second", on: 1)
        for (peer, key) in [(first, "old-1"), (bystander, "old-b"), (second, "old-2")] { try saveNote(peer, key) }
        machines.settle()
        for peer in [first, bystander, second] { _ = try peer.sync() }
        machines.settle()

        machines.engine.online[1] = false
        try first.removeUbiquitousContent()
        try saveNote(first, "after-first")
        _ = try bystander.sync()
        try saveNote(bystander, "after-first-b")
        _ = try first.sync()
        usleep(20_000)
        try second.removeUbiquitousContent()   // written later: its epoch keeps the name
        try saveNote(second, "after-second")
        let kept = try #require(try second.store.contentEpoch())
        machines.engine.online[1] = true

        var applied = [first, bystander, second].map { _ in AppliedOnce() }
        var removals = [0, 0, 0]
        for round in 0..<4 {
            machines.settle(seed: UInt64(round + 1))
            for (index, peer) in [first, bystander, second].enumerated() {
                let summary = try peer.sync()
                if summary.contentRemoved { removals[index] += 1; applied[index] = AppliedOnce() }
                applied[index].record(summary.imported)
            }
        }
        #expect(machines.engine.conflictCopiesMade >= 1)
        let location = try #require(first.location)
        #expect(ContentEpoch.read(location) == kept)
        #expect(ContentEpoch.conflictCopies(location).count == 1, "the other epoch, as a copy")
        for (index, peer) in [first, bystander, second].enumerated() {
            #expect(try peer.store.contentEpoch() == kept, "\(peer.peerID) is in the kept epoch")
            #expect(try noteKeys(peer) == ["after-first", "after-first-b", "after-second"], "\(peer.peerID): nothing old, nothing lost")
            #expect(applied[index].duplicates.isEmpty)
        }
        #expect(removals == [1, 1, 0], "the peers of the lost epoch started over once more; the kept one's remover never")
        #expect(try first.dumpText() == second.dumpText())
        #expect(try bystander.dumpText() == second.dumpText())
        #expect(try Doctor.examine(first).contains { $0.kind == .conflictCopy && $0.message.hasPrefix(".content/") })
        let secondLocation = try #require(second.location)
        for author in [first.peerID, bystander.peerID] {
            for name in try logNames(of: author, at: second) {
                #expect(!ContentEpoch.logBelongsToOtherEpoch(secondLocation.logPath(of: author, name), than: kept, in: secondLocation),
                        "the peers of the lost epoch deleted what they saved in it: \(author)/\(name)")
            }
        }
    }

    /// A machine that was away during a removal gets a new device, which saves before the
    /// removal's epoch file reaches the machine: it writes no epoch of its own (nothing collides)
    /// and its saves belong to the removed content, so they go when the file arrives. It then
    /// numbers its transactions from 1 again; nobody applies its old transaction 1 for the new one.
    @Test func aMachineThatHadNotHeardOfARemovalLosesWhatItSavedMeanwhile() throws {
        let machines = try TestMachines(3)
        machines.engine.online[2] = false
        let remover = try machines.peer("remover", on: 0), other = try machines.peer("other", on: 1)
        try saveNote(remover, "old")
        machines.settle()
        _ = try other.sync()
        try remover.removeUbiquitousContent()
        machines.settle()
        #expect(try other.sync().contentRemoved)
        try saveNote(other, "new-other")
        machines.settle()

        machines.engine.online[2] = true
        let newcomer = try machines.peer("newcomer", on: 2)
        #expect(try saveNote(newcomer, "meanwhile") == 1)
        machines.engine.scan(2)
        // Its log reaches the others before anything reaches its machine: they leave it alone.
        machines.engine.deliver(to: 0) { _ in true }
        machines.engine.deliver(to: 1) { _ in true }
        for peer in [remover, other] {
            let summary = try peer.sync()
            #expect(summary.imported.applied.allSatisfy { $0.peerID != newcomer.peerID }, "\(summary.imported.applied)")
        }
        machines.settle()
        #expect(ContentEpoch.conflictCopies(try #require(other.location)).isEmpty, "no epoch collided")
        #expect(try newcomer.sync().contentRemoved, "it held data saved without knowing of the removal")
        #expect(try noteKeys(newcomer) == ["new-other"])
        #expect(try saveNote(newcomer, "after") == 1, "numbers start again in the new content")
        let applied = [remover, other].map { _ in AppliedOnce() }
        // Its new transaction 1 reaches a machine before the deletion of its old one: two files
        // numbered 1, of two epochs. Only the new one is applied, and it is no duplicate peer.
        let fresh = try logNames(of: newcomer.peerID, at: newcomer)
        #expect(fresh.count == 1)
        machines.engine.scan(2)
        machines.engine.deliver(to: 1) { path in fresh.contains { path.hasSuffix("/" + $0) } }
        #expect(try logNames(of: newcomer.peerID, at: other).count == 2)
        let both = try other.sync()
        applied[1].record(both.imported)
        #expect(both.imported.applied.map { "\($0.peerID):\($0.number)" } == ["\(newcomer.peerID):1"])
        #expect(try noteKeys(other) == ["after", "new-other"])
        let findings = try Doctor.examine(other)
        #expect(!findings.contains { $0.kind == .duplicatePeer || $0.kind == .missingPredecessor }, "\(findings.map(\.message))")
        for round in 0..<2 {
            machines.settle(seed: UInt64(round + 1))
            for (index, peer) in [remover, other].enumerated() { applied[index].record(try peer.sync().imported) }
            _ = try newcomer.sync()
        }
        for (index, peer) in [remover, other].enumerated() {
            #expect(applied[index].duplicates.isEmpty)
            #expect(try noteKeys(peer) == ["after", "new-other"], "\(peer.peerID): the new transaction 1, never the old one")
            #expect(try peer.dumpText() == newcomer.dumpText())
        }
        #expect(try Doctor.examine(other).allSatisfy { $0.kind != .duplicatePeer && $0.kind != .missingPredecessor })
    }

    /// A machine cut off during a removal keeps saving, rolls a baseline of the removed content
    /// and collects its own logs under it before it hears of the removal. Those logs belong to
    /// the removed content: nobody waits for them, the baseline the sync tool brings back is
    /// never adopted, and baselines and garbage collection go on in the new content.
    @Test func aPeerThatCollectedItsLogsUnderABaselineOfRemovedContentLeavesNobodyWaiting() throws {
        let machines = try TestMachines(2)
        let remover = try machines.peer("remover", on: 0), away = try machines.peer("away", on: 1)
        for index in 1...3 { try saveNote(remover, "old-r\(index)") }
        try saveNote(away, "old-a")
        machines.settle()
        for peer in [remover, away] { _ = try peer.sync() }
        machines.settle()

        machines.engine.online[1] = false
        try remover.removeUbiquitousContent()
        try saveNote(remover, "new-r")
        _ = try remover.sync()
        for index in 1...3 { try saveNote(away, "unaware\(index)") }
        _ = try away.sync()
        guard case .rolled = try away.rollBaseline(force: true) else { Issue.record("no baseline rolled while away"); return }
        let collected = away.collectGarbage(policy: BaselinePolicy(gracePeriod: 0))
        #expect(collected.deleted.count == 4, "its logs 1–4 went under the removed content's baseline: \(collected)")
        try saveNote(away, "unaware4")   // its transaction 5 stays in the container
        machines.engine.online[1] = true

        var applied = [AppliedOnce(), AppliedOnce()]
        var startedOver = [0, 0]
        for round in 0..<3 {
            machines.settle(seed: UInt64(round + 1))
            for (index, peer) in [remover, away].enumerated() {
                let summary = try peer.sync()
                if summary.contentRemoved { startedOver[index] += 1; applied[index] = AppliedOnce() }
                applied[index].record(summary.imported)
                #expect(summary.adoptedBaseline == nil, "the removed content's baseline is never adopted")
            }
        }
        #expect(startedOver == [0, 1])
        for (index, peer) in [remover, away].enumerated() {
            let summary = try peer.sync()
            #expect(summary.imported.waiting == 0 && summary.imported.missingPredecessors.isEmpty, "\(peer.peerID) waits for nothing")
            #expect(!(try Doctor.examine(peer)).contains { $0.kind == .missingPredecessor })
            #expect(applied[index].duplicates.isEmpty)
            #expect(try noteKeys(peer) == ["new-r"], "\(peer.peerID): neither the removed content nor what was saved unaware")
        }

        // Baselines and garbage collection go on in the new content.
        try saveNote(away, "new-a")
        machines.settle()
        for peer in [remover, away] { _ = try peer.sync() }
        guard case let .rolled(metadata, _) = try remover.rollBaseline(force: true) else { Issue.record("no baseline rolled in the new content"); return }
        #expect(metadata.contentEpoch == (try remover.store.contentEpoch()))
        machines.settle()
        _ = try away.sync()
        machines.settle()
        #expect(remover.collectGarbage(policy: BaselinePolicy(gracePeriod: 0)).deleted.count == 1, "its log of new-r")
        machines.settle()
        let newcomer = try machines.peer("newcomer", on: 1)
        #expect(try newcomer.sync().adoptedBaseline == remover.peerID)
        #expect(try noteKeys(newcomer) == ["new-a", "new-r"])
        #expect(try newcomer.dumpText() == remover.dumpText())
    }

    /// A device saves after a removal it has not heard of, its log reaches the others, and the
    /// device is never used again: its leftover is never applied and never holds back the
    /// baselines of the new content.
    @Test func aLeftoverOfRemovedContentNeverHoldsBaselinesBack() throws {
        let machines = try TestMachines(2)
        let remover = try machines.peer("remover", on: 0), gone = try machines.peer("gone", on: 1)
        try saveNote(remover, "old")
        machines.settle()
        _ = try gone.sync()
        machines.settle()
        machines.engine.online[1] = false
        try remover.removeUbiquitousContent()
        try saveNote(gone, "unaware")   // its last save
        gone.close()
        machines.engine.online[1] = true
        machines.settle()

        try saveNote(remover, "new")
        let summary = try remover.sync()
        #expect(summary.imported.ignored.contains { $0.hasPrefix(gone.peerID + "/") }, "seen and left alone: \(summary.imported.ignored)")
        #expect(try logNames(of: gone.peerID, at: remover).count == 1)
        guard case let .rolled(metadata, _) = try remover.rollBaseline(force: true) else { Issue.record("no baseline rolled"); return }
        #expect(metadata.knowledge == remover.store.knowledge)
        machines.settle()
        let newcomer = try machines.peer("newcomer", on: 1)
        #expect(try newcomer.sync().adoptedBaseline == remover.peerID)
        #expect(try noteKeys(newcomer) == ["new"])
        #expect(try newcomer.dumpText() == remover.dumpText())
    }

    /// Garbage collection waits for a receipt that is late or kept only as a conflict copy.
    @Test func receiptsArrivingLateOrAsConflictCopiesNeverLetALogGo() throws {
        let machines = try TestMachines(2)
        let author = try machines.peer("author", on: 0), reader = try machines.peer("reader", on: 1)
        for index in 1...3 { try saveNote(author, "a\(index)") }
        _ = try author.sync()
        _ = try author.rollBaseline(force: true)
        try saveNote(reader, "r1")
        machines.settle()
        _ = try reader.sync()
        machines.engine.scan(1)
        // The reader's folder and logs reach the author's machine, its receipt not yet.
        machines.engine.deliver(to: 0) { !$0.hasSuffix("receipt.0.cdt") }
        #expect(author.collectGarbage().deleted.isEmpty)
        #expect(try Doctor.examine(author).contains { $0.kind == .blockedGarbageCollection })
        // The receipt arrives as a conflict copy only: still not proof.
        let location = try #require(author.location)
        let receipt = try AtomicFile.read(machines.machines[1].cloud + "/" + String(location.receiptPath(of: reader.peerID).dropFirst(machines.machines[0].cloud.count + 1)), limit: 1 << 20)
        try AtomicFile.write(receipt, to: location.logDirectory(of: reader.peerID) + "/receipt.0.sync-conflict-20260101-120000-HOST1AB.cdt")
        #expect(author.collectGarbage().deleted.isEmpty)
        machines.engine.deliver(to: 0) { $0.hasSuffix("receipt.0.cdt") }
        #expect(author.collectGarbage().deleted.count == 3)
        #expect(try noteKeys(reader) == ["a1", "a2", "a3", "r1"])
    }

    /// Two machines apart each roll a baseline and collect their logs under it (nobody else is
    /// known there). The sync tool keeps one baseline under the name and the other as a conflict
    /// copy; a peer joins the one it needs, keeps what it holds, and rolls a baseline holding
    /// both, after which the copy goes: nothing is lost, nothing is written again.
    @Test func baselinesRolledAndCollectedWhileApartLoseNothing() throws {
        let machines = try TestMachines(2)
        let left = try machines.peer("left", on: 0), right = try machines.peer("right", on: 1)
        machines.engine.online[1] = false
        for index in 1...3 { try saveNote(left, "l\(index)") }
        _ = try left.rollBaseline(force: true)
        #expect(left.collectGarbage().deleted.count == 3)
        machines.engine.scan(0)
        for index in 1...2 { try saveNote(right, "r\(index)") }
        usleep(20_000)
        _ = try right.rollBaseline(force: true)   // written later: it keeps the name
        #expect(right.collectGarbage().deleted.count == 2)
        machines.engine.online[1] = true
        machines.settle()
        #expect(left.baselineMetadata?.author == right.peerID)

        let healed = try left.sync()
        #expect(healed.repaired.isEmpty, "a join keeps what the store holds: nothing to write again")
        #expect(healed.adoptedBaseline == right.peerID)
        guard case let .rolled(metadata, reason)? = healed.baseline else { Issue.record("no roll: \(String(describing: healed.baseline))"); return }
        #expect(reason.contains("conflict copies the baseline under the name has not resolved"), "\(reason)")
        #expect(metadata.knowledge[left.peerID] == 3 && metadata.knowledge[right.peerID] == 2)
        #expect(left.baselines.all.count == 1, "the copy, held entirely by the new baseline, is deleted")
        #expect(try noteKeys(left) == ["l1", "l2", "l3", "r1", "r2"])
        for round in 0..<2 {
            machines.settle(seed: UInt64(round + 1))
            for peer in [left, right] { _ = try peer.sync() }
        }
        let newcomer = try machines.peer("newcomer", on: 0)
        for peer in [left, right, newcomer] {
            let summary = try peer.sync()
            #expect(summary.imported.waiting == 0, "\(peer.peerID) waits for nothing")
            #expect(try noteKeys(peer) == ["l1", "l2", "l3", "r1", "r2"], "\(peer.peerID) lost nothing")
        }
        #expect(try left.dumpText() == right.dumpText())
        #expect(try newcomer.dumpText() == right.dumpText())
    }

    /// Two machines roll baselines while apart; the sync tool keeps the older one under the
    /// name (it was written later) after the newer one's logs were collected, and the newer one
    /// as a conflict copy. A newcomer reads both; the next sync of a peer that knows everything
    /// replaces them by one — even while the collecting author stays away — and deletes the copy.
    @Test func aBaselineTheSyncToolKeptOverANewerOneIsReplaced() throws {
        let machines = try TestMachines(2)
        let author = try machines.peer("author", on: 0), witness = try machines.peer("witness", on: 0)
        let other = try machines.peer("other", on: 1)
        for index in 1...3 { try saveNote(author, "a\(index)") }
        machines.settle()
        _ = try other.sync()
        machines.settle()

        machines.engine.online[1] = false
        for index in 4...5 { try saveNote(author, "a\(index)") }
        _ = try witness.sync()
        _ = try author.rollBaseline(force: true)
        #expect(author.collectGarbage(policy: BaselinePolicy(gracePeriod: 0)).deleted.count == 5)
        machines.engine.scan(0)
        usleep(20_000)
        _ = try other.rollBaseline(force: true)   // knows only 1–3, written later: it wins the name
        machines.engine.online[1] = true
        machines.settle()
        #expect(witness.baselineMetadata?.author == other.peerID)
        #expect(witness.baselineMetadata?.knowledge[author.peerID] == 3)

        let healed = try witness.sync()   // the author stays away
        guard case let .rolled(_, reason)? = healed.baseline else { Issue.record("no roll: \(String(describing: healed.baseline))"); return }
        #expect(reason.contains("conflict copies the baseline under the name has not resolved"), "\(reason)")
        machines.settle()
        let newcomer = try machines.peer("newcomer", on: 1)
        _ = try newcomer.sync()
        #expect(try noteKeys(newcomer) == ["a1", "a2", "a3", "a4", "a5"])
        #expect(try newcomer.dumpText() == witness.dumpText())
        #expect(try author.sync().repaired.isEmpty, "the new baseline holds the author's collected logs: nothing to write again")
        #expect(try author.dumpText() == witness.dumpText())
        #expect(machines.engine.conflictCopiesMade >= 1)
        #expect(newcomer.baselines.all.count == 1, "the copy is gone once a baseline holding it took the name")
        #expect(try !Doctor.examine(newcomer).contains { $0.kind == .conflictCopy && $0.message.hasPrefix(".baseline/") })
    }
}
