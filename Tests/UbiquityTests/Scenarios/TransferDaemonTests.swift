import Foundation
import Testing
import Ubiquity
import UbiquityCore
import UbiquitySimulation
@testable import UbiquitySync

/// The emulated daemon carries files between mirrors and the cloud as a file-sync engine does,
/// and each fault does what it says, the same way for the same seed.
@Suite("Emulated iCloud daemon")
struct TransferDaemonTests {
    /// Two devices with mirrors on one cloud.
    final class Rig {
        let root = NSTemporaryDirectory() + "ubiquity-daemon-" + UUID().uuidString
        let cloud: EmulatedCloud
        let phone: TransferDaemon, mac: TransferDaemon

        init(phone phonePlan: FaultPlan = FaultPlan(), mac macPlan: FaultPlan = FaultPlan(), seed: UInt64 = 1) throws {
            cloud = EmulatedCloud(path: root + "/cloud")
            try AtomicFile.makeDirectory(cloud.path)
            _ = try Device.create(at: root + "/phone", userName: "phone", mirrorsCloud: true)
            _ = try Device.create(at: root + "/mac", userName: "mac", mirrorsCloud: true)
            phone = TransferDaemon(name: "phone", device: root + "/phone", cloud: cloud, plan: phonePlan, seed: seed)
            mac = TransferDaemon(name: "mac", device: root + "/mac", cloud: cloud, plan: macPlan, seed: seed + 1)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        func mirror(_ device: String) -> String { root + "/" + device + "/Mobile Documents/default/c" }

        func write(_ text: String, _ name: String, on device: String) throws {
            try AtomicFile.makeDirectory(mirror(device))
            try AtomicFile.write(Array(text.utf8), to: mirror(device) + "/" + name)
            (device == "phone" ? phone : mac).noteMirrorChanged()
        }

        func read(_ path: String) -> String? { (try? AtomicFile.read(path, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } }

        /// Rounds at each second up to `seconds`.
        func run(until seconds: Int, from start: Int = 0) {
            for now in start...seconds {
                phone.round(now: Double(now))
                mac.round(now: Double(now))
            }
        }
    }

    @Test func aFileTravelsAndADeletionTravelsAsADeletion() throws {
        let rig = try Rig()
        try rig.write("hello", "a.txt", on: "phone")
        rig.run(until: 2)
        #expect(rig.read(rig.cloud.path + "/default/c/a.txt") == "hello")
        #expect(rig.read(rig.mirror("mac") + "/a.txt") == "hello")
        unlink(rig.mirror("mac") + "/a.txt")
        rig.mac.noteMirrorChanged()
        rig.run(until: 5, from: 3)
        #expect(rig.read(rig.cloud.path + "/default/c/a.txt") == nil)
        #expect(rig.read(rig.mirror("phone") + "/a.txt") == nil, "the deletion reached the phone")
        #expect(rig.phone.isIdle && rig.mac.isIdle)
    }

    @Test func delayHoldsATransferBackUntilItsTime() throws {
        var plan = FaultPlan()
        plan.delay = 30...30
        let rig = try Rig(phone: plan)
        try rig.write("x", "late.txt", on: "phone")
        rig.run(until: 29)
        #expect(rig.read(rig.cloud.path + "/default/c/late.txt") == nil)
        #expect(rig.phone.waiting.uploads == 1)
        rig.run(until: 31, from: 30)
        #expect(rig.read(rig.cloud.path + "/default/c/late.txt") == "x")
    }

    @Test func aDroppedTransferIsRetried() throws {
        var plan = FaultPlan()
        plan.dropRate = 1
        let rig = try Rig(phone: plan)
        try rig.write("x", "f.txt", on: "phone")
        rig.run(until: 200)
        #expect(rig.read(rig.cloud.path + "/default/c/f.txt") == nil)
        #expect(rig.phone.statistics.drops > 1)
        rig.phone.plan.dropRate = 0
        rig.run(until: 400, from: 201)
        #expect(rig.read(rig.cloud.path + "/default/c/f.txt") == "x", "the retry got through")
    }

    @Test func aTruncatedTransferDeliversPartThenTheWhole() throws {
        var plan = FaultPlan()
        plan.truncateRate = 1
        plan.retryAfter = 10...10
        let rig = try Rig(phone: plan)
        try rig.write(String(repeating: "0123456789", count: 10), "big.txt", on: "phone")
        rig.phone.round(now: 0)
        let partial = rig.read(rig.cloud.path + "/default/c/big.txt")
        #expect(partial != nil && partial!.count < 100, "a part arrived first")
        rig.run(until: 11, from: 1)
        #expect(rig.read(rig.cloud.path + "/default/c/big.txt")?.count == 100)
        #expect(rig.phone.statistics.truncations == 1)
    }

    /// The source of a truncated download goes away before the rest arrives (its author
    /// collected the log): the part written goes too, instead of lying in the mirror for good.
    /// (Found by `ubiq scenario fuzz --seeds 119`.)
    @Test func aPartWhoseSourceWentAwayIsRemoved() throws {
        var plan = FaultPlan()
        plan.truncateRate = 1
        plan.retryAfter = 10...10
        let rig = try Rig(phone: plan)
        try rig.write(String(repeating: "0123456789", count: 10), "log.txt", on: "mac")
        rig.mac.round(now: 0)
        rig.phone.round(now: 1)
        #expect(rig.read(rig.mirror("phone") + "/log.txt").map { $0.count < 100 } == true, "a part arrived")
        try FileManager.default.removeItem(atPath: rig.mirror("mac") + "/log.txt")
        rig.mac.noteMirrorChanged()
        rig.mac.round(now: 2)
        #expect(rig.read(rig.cloud.path + "/default/c/log.txt") == nil)
        rig.run(until: 30, from: 3)
        #expect(rig.read(rig.mirror("phone") + "/log.txt") == nil, "the part is gone from the phone")
        #expect(rig.read(rig.cloud.path + "/default/c/log.txt") == nil, "and never went back up")
    }

    @Test func aDuplicateIsDeliveredAgainOrAsACopy() throws {
        var plan = FaultPlan()
        plan.duplicateRate = 1
        let rig = try Rig(mac: plan, seed: 3)
        for index in 0..<8 { try rig.write("v\(index)", "f\(index).1.cdt", on: "phone") }
        rig.run(until: 300)
        // Each download came twice; a copy the mac then uploads may come twice too.
        #expect(rig.mac.statistics.duplicates >= 8)
        let copies = try FileManager.default.contentsOfDirectory(atPath: rig.mirror("mac")).filter { $0.contains(" 2.") }
        #expect(!copies.isEmpty && copies.count < 8, "some duplicates came as iCloud-style copies: \(copies)")
        for index in 0..<8 { #expect(rig.read(rig.mirror("mac") + "/f\(index).1.cdt") == "v\(index)") }
    }

    /// Two baselines of different contents under one name: the later removal's stays, whichever
    /// was rolled last. A device still in an earlier content (back before its daemon brought the
    /// later removal) rolled after the current content's baseline reached the cloud; keeping the
    /// later roll replaced the current baseline after its peers had collected the logs it held,
    /// and they never arrived anywhere again (`ubiq scenario fuzz --seeds 414 --steps 1500`).
    @Test func ofTwoBaselinesOfDifferentContentsTheLaterRemovalsStays() throws {
        func baseline(generation: Int64, rolled: Double, on device: String, _ rig: Rig) throws {
            let removal = ContentRemoval(epoch: UUID().uuidString, generation: generation, date: 1_000 * Double(generation))
            var metadata = BaselineMetadata(author: device, knowledge: KnowledgeVector(), previousKnowledge: KnowledgeVector(),
                                            modelVersionHash: "h", storeName: "Store", contentName: "Notes", created: rolled,
                                            storeChecksum: "", modelChecksum: "", contentEpoch: removal.epoch)
            metadata.contentEpochGeneration = removal.generation
            metadata.contentEpochDate = removal.date
            let state = rig.root + "/state-" + device
            try AtomicFile.write(Array("state".utf8), to: state)
            try AtomicFile.makeDirectory(rig.mirror(device))
            try BaselineArchive.write(metadata: metadata, model: .notes, storeFile: state, to: rig.mirror(device) + "/baseline.zip")
            (device == "phone" ? rig.phone : rig.mac).noteMirrorChanged()
        }
        func generation(_ path: String) -> Int64? { (try? BaselineMetadata(archiveAt: path))?.contentEpochGeneration }

        // The cloud holds the later removal's baseline; the mac, which never fetched it, rolls
        // one of the earlier content afterwards.
        let rig = try Rig()
        try baseline(generation: 2, rolled: 100, on: "phone", rig)
        rig.phone.round(now: 0)
        #expect(generation(rig.cloud.path + "/default/c/baseline.zip") == 2)
        try baseline(generation: 1, rolled: 200, on: "mac", rig)
        rig.run(until: 5, from: 1)
        #expect(generation(rig.cloud.path + "/default/c/baseline.zip") == 2, "the cloud keeps the later removal's")
        #expect(generation(rig.mirror("mac") + "/baseline.zip") == 2, "the mac gets it in place of its own")
        #expect(generation(rig.mirror("phone") + "/baseline.zip") == 2)

        // The other way round: the later removal's, rolled first, is the mirror's.
        let other = try Rig()
        try baseline(generation: 1, rolled: 200, on: "phone", other)
        other.phone.round(now: 0)
        try baseline(generation: 2, rolled: 100, on: "mac", other)
        other.run(until: 5, from: 1)
        #expect(generation(other.cloud.path + "/default/c/baseline.zip") == 2, "the mac's later removal goes up")
        #expect(generation(other.mirror("phone") + "/baseline.zip") == 2)
    }

    @Test func uploadsOverQuotaWaitUntilTheQuotaIsLifted() throws {
        let rig = try Rig()
        rig.cloud.quotaBytes = 4
        try rig.write("more than four bytes", "f.txt", on: "phone")
        rig.run(until: 100)
        #expect(rig.read(rig.cloud.path + "/default/c/f.txt") == nil)
        #expect(rig.phone.isStalledByQuota && rig.phone.statistics.quotaRefusals > 0)
        #expect(rig.phone.status(now: 100).quotaExceeded)
        #expect(rig.phone.status(now: 100).files["default/c/f.txt"] == .dataNotPresent)
        rig.cloud.quotaBytes = nil
        rig.phone.quotaChanged()
        rig.run(until: 200, from: 101)
        #expect(rig.read(rig.mirror("mac") + "/f.txt") == "more than four bytes")
        #expect(rig.phone.status(now: 200).files["default/c/f.txt"] == .current)
    }

    @Test func anOfflineDeviceTransfersNothingAndCatchesUpOnline() throws {
        let rig = try Rig()
        rig.phone.offline(at: 0)
        try rig.write("offline", "o.txt", on: "phone")
        try rig.write("from the mac", "m.txt", on: "mac")
        rig.run(until: 50)
        #expect(rig.read(rig.cloud.path + "/default/c/o.txt") == nil)
        #expect(rig.read(rig.mirror("phone") + "/m.txt") == nil)
        #expect(rig.phone.waiting.uploads == 1, "the upload waits while offline")
        rig.phone.online(at: 51)
        rig.run(until: 60, from: 51)
        #expect(rig.read(rig.mirror("mac") + "/o.txt") == "offline")
        #expect(rig.read(rig.mirror("phone") + "/m.txt") == "from the mac")
    }

    @Test func theSameSeedMakesTheSameFaults() throws {
        var plan = FaultPlan()
        plan.delay = 1...20
        plan.dropRate = 0.3
        plan.duplicateRate = 0.2
        plan.reorder = true
        func journal(seed: UInt64) throws -> TransferStatistics {
            let rig = try Rig(phone: plan, mac: plan, seed: seed)
            for index in 0..<20 { try rig.write("p\(index)", "p\(index).txt", on: "phone") }
            for index in 0..<20 { try rig.write("m\(index)", "m\(index).txt", on: "mac") }
            rig.run(until: 600)
            return rig.phone.statistics + rig.mac.statistics
        }
        #expect(try journal(seed: 5) == journal(seed: 5))
        #expect(try journal(seed: 5) != journal(seed: 6))
    }
}
