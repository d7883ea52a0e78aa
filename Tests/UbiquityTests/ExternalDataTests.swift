import Foundation
import Testing
import UbiquityPlist
@testable import Ubiquity
@testable import UbiquityCore
@testable import UbiquitySync
import UbiquitySimulation
import UbiquityTestSupport

/// Large binary values of attributes that allow external storage travel as content-addressed
/// files under `.externalData/<ContentName>/` (Docs/ContainerFormat.md, "External binary data").
@Suite("External binary data: files before logs, waits, quarantine, collection")
struct ExternalDataTests {
    static let model = try! ObjectModel(name: "Photos", entities: [
        EntityDescription("Photo", attributes: [
            AttributeDescription("caption", .string),
            AttributeDescription("image", .binary, allowsExternalBinaryDataStorage: true),
            AttributeDescription("thumbnail", .binary),
        ]),
    ])

    /// Garbage collection on every sync, no roll unless asked, unreferenced files collected at once.
    static var policy: BaselinePolicy {
        var policy = BaselinePolicy(transactionThreshold: 1_000_000, minimumLogBytes: .max)
        policy.externalDataGracePeriod = 0
        return policy
    }

    /// `count` bytes drawn from `seed`, written to `path` a megabyte at a time.
    static func makeFile(_ path: String, count: Int, seed: UInt64) throws -> StreamingFile.Written {
        var generator = SeededGenerator(seed: seed)
        return try StreamingFile.write(to: path) { write in
            var left = count
            while left > 0 {
                let size = min(left, 1 << 20)
                var chunk = [UInt8](repeating: 0, count: size)
                for index in stride(from: 0, to: size, by: 8) {
                    var word = generator.next()
                    for offset in index..<min(size, index + 8) {
                        chunk[offset] = UInt8(truncatingIfNeeded: word)
                        word >>= 8
                    }
                }
                try write(chunk)
                left -= size
            }
        }
    }

    static func externalFiles(_ peer: UbiquityPeer) throws -> [DirectoryEntry] {
        DirectoryEntry.list(try #require(peer.location).externalDataDirectory).filter { $0.isRegularFile && !$0.name.hasPrefix(".") }
    }

    static func save(_ peer: UbiquityPeer, _ key: String, image: AttributeValue?, caption: String = "") throws {
        let context = peer.newContext()
        let object = try context.object(GlobalID(entity: "Photo", key: key)) ?? context.insert("Photo", key: key)
        try object.setValue(.string(caption), for: "caption")
        try object.setValue(image, for: "image")
        try context.save()
    }

    static func image(_ peer: UbiquityPeer, _ key: String) throws -> AttributeValue? {
        try peer.store.snapshot(of: GlobalID(entity: "Photo", key: key))?.values["image"] ?? nil
    }

    // MARK: Must hold

    /// A 50 MB value saved on one device arrives byte-identical on another as one file under
    /// `.externalData`, the log carrying only its hash and size; once no object refers to it and
    /// the baseline has rolled (and the logs naming it were collected), the file leaves the cloud.
    @Test func fiftyMegabytesArriveAsOneFileAndLeaveWhenNothingNamesThem() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        let a = try cloud.peer("a", policy: Self.policy), b = try cloud.peer("b", policy: Self.policy)
        let source = cloud.root + "/photo.bin"
        let written = try Self.makeFile(source, count: 50 << 20, seed: 17)
        let context = a.newContext()
        try context.insert("Photo", key: "p1").setValue(contentsOf: URL(fileURLWithPath: source), for: "image")
        try context.save()
        let reference = try #require(try Self.image(a, "p1")?.externalReference)
        #expect(reference.sha256 == written.sha256 && reference.size == 50 << 20)
        _ = try a.sync()

        let files = try Self.externalFiles(a)
        #expect(files.map(\.name) == [reference.sha256], "one file, named by its SHA-256")
        let logs = DirectoryEntry.list(try #require(a.location).logDirectory(of: a.peerID)).filter { $0.name.hasSuffix(".cdt") && $0.name != "receipt.0.cdt" }
        #expect(logs.count == 1 && logs.allSatisfy { $0.size < 4096 }, "the log carries the hash and size, not the bytes")

        let summary = try b.sync()
        #expect(summary.imported.applied.count == 1)
        #expect(try Self.image(b, "p1") == .externalBinary(reference))
        let copy = cloud.root + "/copy.bin"
        let reader = b.newContext()
        try #require(try reader.object(GlobalID(entity: "Photo", key: "p1"))).writeValue(of: "image", to: URL(fileURLWithPath: copy))
        #expect(try StreamingFile.sha256(of: copy) == written, "byte-identical on b")
        #expect(try a.dumpText() == b.dumpText())

        // Nobody refers to it any more: the logs naming it go by the log rule, then the file.
        try Self.save(a, "p1", image: nil)
        _ = try a.sync()
        _ = try b.sync()
        guard case .rolled = try a.rollBaseline(force: true) else {
            Issue.record("a rolls a baseline")
            return
        }
        _ = try b.sync()
        #expect(try Self.externalFiles(a).count == 1, "still there: logs naming it are not collected yet")
        let collected = try a.sync()
        #expect(collected.garbage?.deleted.count == 2, "both of a's logs are collected")
        #expect(collected.externalDataGarbage?.deleted == [reference.sha256])
        #expect(try Self.externalFiles(a).isEmpty)
        #expect(!a.store.externalData.contains(reference), "a's own copy goes with its last log")
        _ = try b.sync()
        #expect(!b.store.externalData.contains(reference), "and b's: no row, conflict or log of its own names it")
    }

    /// A log that arrives before its file waits (status and doctor name the hash), never
    /// applies without it, and other peers' logs keep flowing; when the file comes, it applies.
    @Test func aLogBeforeItsFileWaitsWhileOthersFlowThenApplies() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        // a writes XML logs: the reference reads the same from either format.
        let a = try cloud.peer("a", format: .xml, policy: nil), b = try cloud.peer("b", policy: nil), c = try cloud.peer("c", policy: nil)
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Self.save(a, "p1", image: .binary(bytes), caption: "first")
        try Self.save(a, "p2", image: nil, caption: "after it")
        _ = try a.sync()
        guard case let .externalBinary(reference)? = try Self.image(a, "p1") else {
            Issue.record("a value over the threshold is stored externally")
            return
        }
        // The file has not arrived yet (a file-sync tool delivered the log first).
        let location = try #require(a.location)
        let cloudFile = location.externalDataDirectory + "/" + reference.sha256
        let aside = cloud.root + "/aside"
        #expect(rename(cloudFile, aside) == 0)
        try Self.save(c, "c1", image: nil, caption: "from c")

        let waiting = try b.sync()
        #expect(waiting.imported.missingExternalData.map(\.sha256) == [reference.sha256])
        #expect(waiting.imported.applied.map(\.peerID) == [c.peerID], "c's log flows; a's wait")
        #expect(try b.store.snapshot(of: GlobalID(entity: "Photo", key: "p1")) == nil, "never applied without its value")
        #expect(try b.store.snapshot(of: GlobalID(entity: "Photo", key: "p2")) == nil, "its author's later log waits behind it")
        let report = try ContainerReport.make(for: b)
        let status = report.text
        #expect(!report.files.contains { $0.path.hasPrefix(".externalData/") }, "the file is not in the cloud")
        #expect(status.contains("waiting: transaction 1 of \(a.peerID) waits for external data \(reference.sha256): not arrived yet"), "\(status)")
        let doctor = try Doctor.examine(b)
        #expect(doctor.contains { $0.kind == .missingExternalData && $0.message.contains(reference.sha256) })

        #expect(rename(aside, cloudFile) == 0)
        let arrived = try b.sync()
        #expect(arrived.imported.applied.count == 2)
        #expect(try b.store.externalData.bytes(of: reference) == bytes)
        _ = try a.sync()
        #expect(try a.dumpText() == b.dumpText())
        #expect(try b.store.externalDataWaits().isEmpty)
        let files = try ContainerReport.make(for: b).files.filter { $0.path.hasPrefix(".externalData/") }
        #expect(files.map(\.path) == [".externalData/Photos/\(reference.sha256)"] && files.map(\.state) == [.current])
    }

    /// A file cut short in transfer is quarantined and the value never applied wrong; its author
    /// writes it again at its next sync, and then the log applies.
    @Test func aTruncatedFileIsQuarantinedThenWrittenAgainByItsAuthor() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        let bytes = (0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        try Self.save(a, "p1", image: .binary(bytes))
        _ = try a.sync()
        let reference = try #require(try Self.image(a, "p1")?.externalReference)
        let cloudFile = try #require(a.location).externalDataDirectory + "/" + reference.sha256
        #expect(truncate(cloudFile, 100_000) == 0)

        let first = try b.sync()
        #expect(first.imported.quarantined.map(\.path) == [".externalData/Photos/\(reference.sha256)"])
        #expect(first.imported.missingExternalData.first?.damage != nil)
        #expect(try b.store.snapshot(of: GlobalID(entity: "Photo", key: "p1")) == nil)
        #expect(!b.store.externalData.contains(reference), "nothing of the damaged file is kept")
        let findings = try Doctor.examine(b)
        #expect(findings.map(\.kind) == [.missingExternalData], "\(findings.map(\.message))")
        #expect(findings.first?.message.contains("its file is quarantined") == true)
        // Unchanged, it is not read again.
        let again = try b.sync()
        #expect(again.imported.quarantined.isEmpty && again.imported.missingExternalData.count == 1)

        _ = try a.sync()   // writes it again from its own copy
        let repaired = try b.sync()
        #expect(repaired.imported.applied.count == 1)
        #expect(try b.store.externalData.bytes(of: reference) == bytes)
        #expect(try a.dumpText() == b.dumpText())
    }

    /// A file of the right size whose bytes were altered is quarantined too, and the value is
    /// not applied.
    @Test func anAlteredFileIsQuarantinedAndNeverApplied() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        try Self.save(a, "p1", image: .binary([UInt8](repeating: 0x41, count: 200_000)))
        _ = try a.sync()
        let reference = try #require(try Self.image(a, "p1")?.externalReference)
        let cloudFile = try #require(a.location).externalDataDirectory + "/" + reference.sha256
        var altered = try AtomicFile.read(cloudFile, limit: 1 << 20)
        altered[123_456] ^= 1
        try AtomicFile.write(altered, to: cloudFile)
        let summary = try b.sync()
        #expect(summary.imported.quarantined.count == 1)
        #expect(summary.imported.applied.isEmpty)
        #expect(try b.store.quarantined().contains { $0.path == ".externalData/Photos/\(reference.sha256)" })
        #expect(try b.store.snapshot(of: GlobalID(entity: "Photo", key: "p1")) == nil)
    }

    /// Values under the threshold, and values of attributes without external storage, stay in
    /// the row and the log.
    @Test func smallValuesAndOtherAttributesStayInline() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        let small = [UInt8](repeating: 1, count: ExternalDataReference.threshold - 1)
        let large = [UInt8](repeating: 2, count: ExternalDataReference.threshold * 2)
        let context = a.newContext()
        let object = try context.insert("Photo", key: "p1")
        try object.setValue(.binary(small), for: "image")
        try object.setValue(.binary(large), for: "thumbnail")
        try context.save()
        _ = try a.sync()
        _ = try b.sync()
        let snapshot = try #require(try b.store.snapshot(of: GlobalID(entity: "Photo", key: "p1")))
        #expect(snapshot.values["image"] == .binary(small))
        #expect(snapshot.values["thumbnail"] == .binary(large))
        #expect(try Self.externalFiles(a).isEmpty)
    }

    /// A reference to a file the store does not hold is refused at save: no log ever names a
    /// file nobody wrote. An attribute without external storage refuses references.
    @Test func aReferenceToAFileNotHeldIsRefused() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        let a = try cloud.peer("a", policy: nil)
        let ghost = try #require(ExternalDataReference(sha256: String(repeating: "ab", count: 32), size: 1_000_000))
        #expect(throws: StoreError.missingExternalData(entity: "Photo", attribute: "image", sha256: ghost.sha256)) {
            try Self.save(a, "p1", image: .externalBinary(ghost))
        }
        let context = a.newContext()
        let object = try context.insert("Photo", key: "p2")
        try object.setValue(.externalBinary(ghost), for: "thumbnail")
        #expect(throws: ValidationError.externalNotAllowed(entity: "Photo", property: "thumbnail")) { try context.save() }
        #expect(try a.store.pendingOutbox().isEmpty)
    }

    /// Hostile logs: a reference for an attribute without external storage, or one whose hash is
    /// not 64 lower-case hex digits, breaks the model: the log is quarantined, never applied.
    @Test func aForgedReferenceIsQuarantined() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        let b = try cloud.peer("b", policy: nil)
        let location = try #require(b.location)
        let mallory = "mallory~00000000-0000-4000-8000-000000000001"
        let ghost = try #require(ExternalDataReference(sha256: String(repeating: "cd", count: 32), size: 10))
        let forged: [(String, PlistValue)] = [
            ("thumbnail", ghost.plistValue),
            ("image", .dictionary(["externalData": .string("../../etc/passwd"), "size": .integer(10)])),
        ]
        for (index, (attribute, value)) in forged.enumerated() {
            let number = Int64(index + 1)
            let log = TransactionLog(
                peerID: mallory, transactionNumber: number, knowledge: KnowledgeVector([mallory: number]),
                stamp: Stamp(wallMilliseconds: Int64(b.store.now * 1000) + number, counter: 0, peerID: mallory),
                transactionDate: b.store.now, modelVersionHash: Self.model.hash, storeName: b.store.storeName, contentName: "Photos",
                inserted: [ChangeRecord(id: try GlobalID(entity: "Photo", key: "forged-\(number)"))], updated: [], deleted: [])
            var fields = log.payload()
            guard case var .array(records)? = fields["inserted"], case var .dictionary(record) = records[0] else { continue }
            record["values"] = .dictionary([attribute: value])
            records[0] = .dictionary(record)
            fields["inserted"] = .array(records)
            fields["checksum"] = .string(CanonicalEncoding.sha256Hex(of: .dictionary(fields)))
            try AtomicFile.makeDirectory(location.logDirectory(of: mallory))
            try AtomicFile.write(PlistSeam.encode(.dictionary(fields), format: .binary), to: location.logDirectory(of: mallory) + "/" + log.fileName)
        }
        let summary = try b.sync()
        #expect(summary.imported.applied.isEmpty)
        let reasons = summary.imported.quarantined.map(\.reason)
        #expect(reasons.count == 2, "\(reasons)")
        #expect(reasons.first?.contains("Photo.thumbnail does not allow external storage") == true, "\(reasons)")
        #expect(reasons.last?.contains("value of 'image' is a dictionary, not binary") == true, "\(reasons)")
        #expect(try b.store.count(FetchRequest(entity: "Photo")) == 0)
        #expect(DirectoryEntry.list(b.store.externalData.directory).isEmpty, "nothing fetched for a refused log")
    }

    /// A newcomer that starts from a baseline gets the files the baseline's values name.
    @Test func aNewcomerFromABaselineFetchesItsFiles() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        let a = try cloud.peer("a", policy: nil)
        let bytes = [UInt8](repeating: 9, count: 150_000)
        try Self.save(a, "p1", image: .binary(bytes))
        _ = try a.sync()
        guard case .rolled = try a.rollBaseline(force: true) else {
            Issue.record("a rolls a baseline")
            return
        }
        let baseline = try BaselineMetadata(archiveAt: try #require(a.location).baselinePath)
        let reference = try #require(try Self.image(a, "p1")?.externalReference)
        #expect(baseline.externalData == [reference.sha256], "the baseline names the files its state holds")
        let newcomer = try cloud.peer("n", policy: nil)
        _ = try newcomer.sync()
        #expect(try newcomer.store.externalData.bytes(of: reference) == bytes)
        #expect(try newcomer.store.missingExternalData().isEmpty)
    }

    /// Moving the local store's objects into an account store brings their files along: the
    /// stores keep separate folders, and the account's peers receive the value.
    @Test func migratingTheLocalStoreCarriesTheFiles() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        let phone = try cloud.coordinator("phone", account: nil)
        try phone.addStore()
        let bytes = [UInt8](repeating: 7, count: 120_000)
        let local = try phone.newContext()
        try local.insert("Photo", key: "offline").setValue(.binary(bytes), for: "image")
        try local.save()
        _ = try Device.setAccount("alice", at: cloud.devicePath("phone"))
        try phone.checkAccount()
        try phone.waitForBackgroundImport()
        #expect(try phone.migrateLocalStoreToAccount().copied == 1)
        _ = try phone.sync()
        let other = try cloud.peer("other", account: "alice", policy: nil)
        _ = try other.sync()
        let reference = try #require(try Self.image(other, "offline")?.externalReference)
        #expect(try other.store.externalData.bytes(of: reference) == bytes)
        phone.close()
    }

    /// A value saved before encryption was turned on gets a sealed copy under its keyed name at
    /// the next sync, and the plaintext file is collected (`encryption status` lists it until then).
    @Test func turningEncryptionOnSealsEarlierValuesAndCollectsThePlainFile() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        let a = try cloud.peer("a", policy: Self.policy)
        let bytes = [UInt8](repeating: 3, count: 110_000)
        try Self.save(a, "p1", image: .binary(bytes))
        _ = try a.sync()
        let reference = try #require(try Self.image(a, "p1")?.externalReference)
        #expect(try Self.externalFiles(a).map(\.name) == [reference.sha256], "the plaintext file before")
        try a.enableEncryption(passphrase: "correct horse", parameters: .fast)
        _ = try a.sync()
        let names = try Self.externalFiles(a).map(\.name)
        #expect(names == [try #require(a.location).externalDataName(reference)], "only the sealed copy is left: \(names)")
        #expect(try a.encryptionStatus().plaintextFiles.allSatisfy { !$0.hasPrefix(".externalData/") })
        let b = try cloud.peer("b", policy: nil)
        try b.unlockEncryption(passphrase: "correct horse")
        _ = try b.sync()
        #expect(try b.store.externalData.bytes(of: reference) == bytes)
    }

    /// With encryption on, the file in the cloud is sealed and named by a keyed hash: the cloud
    /// shows neither the bytes nor their SHA-256; a device with the key reads the value.
    @Test func encryptedContentSealsTheFileUnderAKeyedName() throws {
        let cloud = try TestCloud(model: Self.model, contentName: "Photos")
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        try a.enableEncryption(passphrase: "correct horse", parameters: .fast)
        try b.unlockEncryption(passphrase: "correct horse")
        let bytes = Array(repeating: Array("zebra-secret".utf8), count: 20_000).flatMap { $0 }
        try Self.save(a, "p1", image: .binary(bytes))
        _ = try a.sync()
        let reference = try #require(try Self.image(a, "p1")?.externalReference)
        let files = try Self.externalFiles(a)
        #expect(files.count == 1)
        let name = try #require(files.first?.name)
        #expect(name != reference.sha256, "a keyed name, not the content's hash")
        let raw = try AtomicFile.read(try #require(a.location).externalDataDirectory + "/" + name, limit: 1 << 22)
        #expect(SealedFile.isSealed(raw))
        #expect(Int64(raw.count) == ContainerLocation.fileSize(of: reference, sealed: true))
        #expect(!String(decoding: raw, as: UTF8.self).contains("zebra-secret"))
        _ = try b.sync()
        #expect(try b.store.externalData.bytes(of: reference) == bytes)
    }
}

/// External data under the emulated iCloud daemon's faults: files and logs travel as separate
/// transfers, delayed, reordered and cut short, so a log may arrive before its file or a file in
/// part. The value is never applied wrong, other logs keep flowing, and everything converges.
@Suite("External binary data through the emulated daemon")
struct ExternalDataDaemonTests {
    struct Outcome {
        var sawWait = false
        var sawQuarantine = false
    }

    static func run(seed: UInt64) throws -> Outcome {
        let root = NSTemporaryDirectory() + "ubiquity-external-daemon-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cloud = EmulatedCloud(path: root + "/cloud")
        try AtomicFile.makeDirectory(cloud.path)
        var plan = FaultPlan()
        plan.delay = 0...90
        plan.reorder = true
        plan.truncateRate = 0.5
        plan.retryAfter = 5...30
        var daemons: [TransferDaemon] = []
        var peers: [UbiquityPeer] = []
        for (index, name) in ["phone", "mac"].enumerated() {
            _ = try Device.create(at: root + "/" + name, userName: name, mirrorsCloud: true)
            daemons.append(TransferDaemon(name: name, device: root + "/" + name, cloud: cloud, plan: plan, seed: seed * 10 + UInt64(index)))
            peers.append(try UbiquityPeer(configuration: PeerConfiguration(cloud: cloud.path, device: root + "/" + name, model: ExternalDataTests.model,
                                                                           contentName: "Photos", baselinePolicy: nil, logger: .silent)))
        }
        let (phone, mac) = (peers[0], peers[1])
        var generator = SeededGenerator(seed: seed)
        let bytes = (0..<300_000).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        try ExternalDataTests.save(phone, "p1", image: .binary(bytes), caption: "with its file")
        try ExternalDataTests.save(phone, "p2", image: nil, caption: "after it")
        try ExternalDataTests.save(mac, "m1", image: nil, caption: "mac's own")
        var outcome = Outcome()
        for now in stride(from: 0, through: 600, by: 5) {
            for (peer, daemon) in zip(peers, daemons) {
                let summary = try peer.sync()
                daemon.noteMirrorChanged()
                daemon.round(now: Double(now))
                if peer === mac {
                    if !summary.imported.missingExternalData.isEmpty { outcome.sawWait = true }
                    if summary.imported.quarantined.contains(where: { $0.path.hasPrefix(".externalData/") }) { outcome.sawQuarantine = true }
                }
            }
            // Never applied wrong: once the object is there, so are exactly its bytes.
            if let value = try ExternalDataTests.image(mac, "p1") {
                let reference = try #require(value.externalReference)
                #expect(try mac.store.externalData.bytes(of: reference) == bytes, "seed \(seed) at \(now) s")
            }
        }
        #expect(try mac.store.snapshot(of: GlobalID(entity: "Photo", key: "p2")) != nil, "seed \(seed): everything arrived")
        #expect(try phone.dumpText() == mac.dumpText(), "seed \(seed): converged")
        for peer in peers { peer.close() }
        return outcome
    }

    /// Fixed seeds (`UBIQUITY_SEED` adds one): across them both faults happen at least once.
    @Test func aLogBeforeItsFileAndATruncatedFileConverge() throws {
        var seeds: [UInt64] = [1, 2, 3]
        if let extra = ProcessInfo.processInfo.environment["UBIQUITY_SEED"].flatMap(UInt64.init) { seeds.append(extra) }
        var outcomes: [UInt64: Outcome] = [:]
        for seed in seeds { outcomes[seed] = try Self.run(seed: seed) }
        let seen = outcomes.sorted { $0.key < $1.key }.map { "seed \($0.key): wait \($0.value.sawWait), quarantine \($0.value.sawQuarantine)" }
        #expect(outcomes.values.contains { $0.sawWait }, "some seed delivers a log before its file: \(seen)")
        #expect(outcomes.values.contains { $0.sawQuarantine }, "some seed delivers a file cut short: \(seen)")
    }
}
