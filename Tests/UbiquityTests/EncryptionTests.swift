import Foundation
import Testing
import ZIPFoundation
@testable import Ubiquity
@testable import UbiquitySync
@testable import UbiquityCore
import UbiquityTestSupport

@Suite("Encryption of the content in the cloud")
struct EncryptionTests {
    static let passphrase = "correct horse battery staple"

    func save(_ peer: UbiquityPeer, _ key: String, title: String) throws {
        let context = peer.newContext()
        let note = try context.object(GlobalID(entity: "Note", key: key)) ?? context.insert("Note", key: key)
        note["title"] = .string(title)
        try context.save()
    }

    func converge(_ peers: [UbiquityPeer]) throws {
        for _ in 0..<3 { for peer in peers { _ = try peer.sync() } }
        let states = try peers.map { try $0.mergeStateText() }
        #expect(Set(states).count == 1, "peers converge")
    }

    /// Every file under `root` (recursively), with the entries of any zip archive among them.
    static func contents(under root: String) throws -> [(path: String, bytes: [UInt8])] {
        var result: [(String, [UInt8])] = []
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        while let relative = enumerator.nextObject() as? String {
            let path = root + "/" + relative
            guard DirectoryEntry.at(path)?.isRegularFile == true else { continue }
            let bytes = try AtomicFile.read(path, limit: 1 << 28)
            result.append((relative, bytes))
            if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
                let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
                for entry in archive {
                    var inner: [UInt8] = []
                    _ = try archive.extract(entry) { inner.append(contentsOf: $0) }
                    result.append((relative + "!" + entry.path, inner))
                }
            }
        }
        return result
    }

    static func holds(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    // MARK: The sealed form

    @Test func aSealedFileOpensWholeAndRefusesEveryDamage() throws {
        let key = ContentKey.generate(), other = ContentKey.generate()
        for size in [0, 1, 100, 65_535, 65_536, 65_537, 200_000] {
            let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let sealed = try SealedFile.seal(plaintext, key: key)
            #expect(SealedFile.isSealed(sealed))
            #expect(try SealedFile.open(sealed, key: key) == plaintext, "size \(size) round-trips")
            #expect(sealed.count <= SealedFile.sealedSize(ofAtMost: size))
            #expect(throws: SealError.self, "another key") { try SealedFile.open(sealed, key: other) }
            // Cut at the header, inside a chunk, at a chunk boundary, one byte short.
            for cut in Set([SealedFile.headerSize - 1, SealedFile.headerSize, SealedFile.headerSize + 10,
                            SealedFile.headerSize + 65_536 + 16, sealed.count - 1]) where cut < sealed.count {
                #expect(throws: SealError.self, "size \(size) cut at \(cut)") { try SealedFile.open(Array(sealed.prefix(cut)), key: key) }
            }
            for position in Set([9, 20, SealedFile.headerSize, sealed.count - 1]) where position < sealed.count {
                var altered = sealed
                altered[position] ^= 0x01
                #expect(throws: SealError.self, "size \(size) altered at \(position)") { try SealedFile.open(altered, key: key) }
            }
        }
    }

    @Test func theKeyRecordOpensOnlyWithItsPassphrase() throws {
        let key = ContentKey.generate()
        let record = try KeyRecord.wrap(key, passphrase: Self.passphrase, parameters: .fast, date: 1_000)
        let read = try KeyRecord(decoding: record.encoded)
        #expect(read == record)
        #expect(try read.unwrap(passphrase: Self.passphrase).bytes == key.bytes)
        #expect(throws: EncryptionError.wrongPassphrase) { try read.unwrap(passphrase: "wrong") }
        var downgraded = read
        downgraded.parameters.logN = 11
        #expect(throws: EncryptionError.wrongPassphrase, "the parameters are authenticated") { try downgraded.unwrap(passphrase: Self.passphrase) }
    }

    // MARK: Must hold

    /// Three devices with encryption on save notes and a baseline rolls: no title is anywhere in
    /// the cloud, not even inside the baseline; they converge. A fourth device without the
    /// passphrase says so clearly, loses nothing it saves meanwhile, writes nothing, sets nothing
    /// aside as damaged, and converges once given the passphrase.
    @Test func noTitleInTheCloudAndADeviceWithoutTheKeyWaitsThenConverges() throws {
        let cloud = try TestCloud()
        let manual: BaselinePolicy? = nil
        let a = try cloud.peer("a", policy: manual), b = try cloud.peer("b", policy: manual), c = try cloud.peer("c", policy: manual)
        try a.enableEncryption(passphrase: Self.passphrase, parameters: .fast)
        #expect(a.encryptionState == .sealed(keyID: try #require(a.location?.sealing.contentKey?.idHex)))
        #expect(b.encryptionState == .locked(keyID: a.location?.sealing.contentKey?.idHex))
        try b.unlockEncryption(passphrase: Self.passphrase)
        try c.unlockEncryption(passphrase: Self.passphrase)
        var titles: [String] = []
        for (index, peer) in [a, b, c].enumerated() {
            for number in 0..<4 {
                let title = "Secret-\(index)-\(number)-zebra"
                titles.append(title)
                try save(peer, "n\(index)-\(number)", title: title)
            }
        }
        try converge([a, b, c])
        guard case .rolled = try a.rollBaseline(force: true) else {
            Issue.record("a baseline rolls")
            return
        }
        try save(b, "after-baseline", title: "Secret-after-zebra")
        titles.append("Secret-after-zebra")
        try converge([a, b, c])
        #expect(try a.store.snapshot(of: GlobalID(entity: "Note", key: "n2-3"))?.values["title"] == .string("Secret-2-3-zebra"))

        let files = try Self.contents(under: cloud.cloud)
        #expect(files.contains { $0.path.hasSuffix("baseline.zip") })
        #expect(files.count(where: { $0.path.hasSuffix(".1.cdt") }) >= 13)
        for file in files {
            for title in titles + ["zebra", "Secret"] {
                #expect(!Self.holds(file.bytes, title), "\(file.path) holds '\(title)'")
            }
            // Only the key record is plaintext (and `.nosync` files, which never travel: the baseline lock's pid).
            if !file.path.contains("/.encryption/") && !file.path.hasSuffix(".nosync") {
                #expect(SealedFile.isSealed(file.bytes), "\(file.path) is sealed")
            }
        }

        // The fourth device, without the passphrase.
        let d = try cloud.peer("d", policy: manual)
        #expect(d.encryptionState == .locked(keyID: a.location?.sealing.contentKey?.idHex))
        try save(d, "d-own", title: "Kept by d")
        #expect(throws: SyncError.encryptedWithoutKey) { try d.sync() }
        #expect(SyncError.encryptedWithoutKey.description == "content is encrypted; no key on this device (give it the passphrase: call UbiquityPeer.unlockEncryption(passphrase:))")
        #expect(try d.store.quarantined().isEmpty, "nothing set aside as damaged")
        #expect(try d.store.pendingOutbox().count == 1, "its save waits in the outbox")
        #expect(DirectoryEntry.at(try #require(d.location).logDirectory(of: d.peerID)) == nil, "it wrote nothing into the cloud")
        let findings = try Doctor.examine(d)
        #expect(findings.contains { $0.kind == .encryptedWithoutKey && $0.message.contains("content is encrypted; no key on this device") })
        #expect(!findings.contains { $0.kind == .unreadableFile })
        #expect(throws: EncryptionError.wrongPassphrase) { try d.unlockEncryption(passphrase: "guess") }
        #expect(d.encryptionState == .locked(keyID: a.location?.sealing.contentKey?.idHex), "a wrong passphrase changes nothing")

        try d.unlockEncryption(passphrase: Self.passphrase)
        try converge([a, b, c, d])
        #expect(try a.store.snapshot(of: GlobalID(entity: "Note", key: "d-own"))?.values["title"] == .string("Kept by d"))
        #expect(try d.store.snapshot(of: GlobalID(entity: "Note", key: "n0-0"))?.values["title"] == .string("Secret-0-0-zebra"))
        #expect(try Self.contents(under: cloud.cloud).allSatisfy { !Self.holds($0.bytes, "Kept by d") })
    }

    // MARK: Passphrase, damage, plaintext from before

    @Test func aChangedPassphraseRewrapsTheKeyOnly() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        try a.enableEncryption(passphrase: Self.passphrase, parameters: .fast)
        try save(a, "x", title: "before the change")
        _ = try a.sync()
        let location = try #require(a.location)
        let logs = location.names(in: location.logDirectory(of: a.peerID))
        let before = try logs.map { try AtomicFile.read(location.logDirectory(of: a.peerID) + "/" + $0, limit: 1 << 20) }
        #expect(throws: EncryptionError.wrongPassphrase) { try a.changePassphrase(from: "wrong", to: "new one") }
        try a.changePassphrase(from: Self.passphrase, to: "new one")
        #expect(try logs.map { try AtomicFile.read(location.logDirectory(of: a.peerID) + "/" + $0, limit: 1 << 20) } == before, "no log rewritten")
        #expect(throws: EncryptionError.wrongPassphrase) { try b.unlockEncryption(passphrase: Self.passphrase) }
        try b.unlockEncryption(passphrase: "new one")
        try converge([a, b])
        #expect(try b.store.snapshot(of: GlobalID(entity: "Note", key: "x"))?.values["title"] == .string("before the change"))
    }

    /// A sealed log altered or cut short fails authentication and is quarantined like a damaged
    /// log: its author's later logs wait, every other peer's import.
    @Test func aTamperedOrTruncatedSealedLogIsQuarantinedAlone() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil), reader = try cloud.peer("reader", policy: nil)
        try a.enableEncryption(passphrase: Self.passphrase, parameters: .fast)
        try b.unlockEncryption(passphrase: Self.passphrase)
        try reader.unlockEncryption(passphrase: Self.passphrase)
        for number in 0..<3 { try save(a, "a\(number)", title: "from a \(number)") }
        try save(b, "b0", title: "from b")
        _ = try a.sync()
        _ = try b.sync()
        let location = try #require(a.location)
        let directory = location.logDirectory(of: a.peerID)
        let names = location.names(in: directory).filter { $0.hasSuffix(".1.cdt") }
        #expect(names.count == 3)
        var altered = try AtomicFile.read(directory + "/" + names[1], limit: 1 << 20)
        altered[altered.count - 20] ^= 0x40
        try AtomicFile.write(altered, to: directory + "/" + names[1])
        let summary = try reader.sync()
        #expect(summary.imported.quarantined.map(\.path) == [location.relativeLogPath(a.peerID, names[1])])
        #expect(summary.imported.quarantined.first?.reason.contains("fails authentication") == true)
        #expect(try reader.store.snapshot(of: GlobalID(entity: "Note", key: "b0")) != nil, "the other peer's log imports")
        #expect(try reader.store.snapshot(of: GlobalID(entity: "Note", key: "a0")) != nil)
        #expect(reader.store.knowledge[a.peerID] == 1, "a's later logs wait")

        // Cut short instead: quarantined the same way (the earlier record is for other bytes).
        let truncated = try AtomicFile.read(directory + "/" + names[1], limit: 1 << 20)
        try AtomicFile.write(Array(truncated.prefix(truncated.count - 30)), to: directory + "/" + names[1])
        #expect(try reader.sync().imported.quarantined.first?.reason.contains("fails authentication") == true)
        // Its author writes it again from its copy (sealed), and everything imports.
        _ = try a.sync()
        try converge([a, b, reader])
        #expect(try reader.store.snapshot(of: GlobalID(entity: "Note", key: "a2")) != nil)
    }

    /// Turned on for content with plaintext logs: the other device stops writing until it has
    /// the key, a sealed baseline is rolled, and once every peer synced, garbage collection
    /// takes every plaintext log; nothing is left in plaintext but the key record.
    @Test func plaintextFromBeforeIsCollectedByTheUsualRules() throws {
        let cloud = try TestCloud()
        var policy = BaselinePolicy.apple
        policy.gracePeriod = 3_600
        let a = try cloud.peer("a", policy: policy), b = try cloud.peer("b", policy: policy)
        try save(a, "old-a", title: "plaintext-a")
        try save(b, "old-b", title: "plaintext-b")
        try converge([a, b])
        try a.enableEncryption(passphrase: Self.passphrase, parameters: .fast)
        #expect(try !a.encryptionStatus().plaintextFiles.isEmpty, "b's logs and receipt are still plaintext")
        try save(b, "while-locked", title: "saved while locked")
        #expect(throws: SyncError.encryptedWithoutKey) { try b.sync() }
        try b.unlockEncryption(passphrase: Self.passphrase)
        try converge([a, b])
        for _ in 0..<2 {
            _ = try a.sync(); _ = try b.sync()
            _ = try a.rollBaseline(force: true)
            _ = a.collectGarbage(); _ = b.collectGarbage()
        }
        #expect(try a.encryptionStatus().plaintextFiles == [])
        for file in try Self.contents(under: cloud.cloud) {
            #expect(!Self.holds(file.bytes, "plaintext-") && !Self.holds(file.bytes, "saved while locked"), "\(file.path)")
        }
        #expect(try a.store.snapshot(of: GlobalID(entity: "Note", key: "while-locked"))?.values["title"] == .string("saved while locked"))
        let newcomer = try cloud.peer("newcomer", policy: policy)
        try newcomer.unlockEncryption(passphrase: Self.passphrase)
        try converge([a, b, newcomer])
    }

    @Test func enablingTwiceOrWithoutAPassphraseIsRefused() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        #expect(throws: EncryptionError.emptyPassphrase) { try a.enableEncryption(passphrase: "", parameters: .fast) }
        #expect(throws: EncryptionError.invalidParameters("scrypt log2(N) must be 10 to 20, not 40")) {
            try a.enableEncryption(passphrase: "x", parameters: ScryptParameters(logN: 40))
        }
        #expect(throws: EncryptionError.invalidParameters("scrypt with log2(N) 20 and r 8 needs 1024 MiB; at most 256 MiB is allowed")) {
            try a.enableEncryption(passphrase: "x", parameters: ScryptParameters(logN: 20, r: 8))
        }
        #expect(throws: EncryptionError.notEnabled) { try b.unlockEncryption(passphrase: "x") }
        try a.enableEncryption(passphrase: Self.passphrase, parameters: .fast)
        #expect(throws: EncryptionError.alreadyEnabled) { try b.enableEncryption(passphrase: "other", parameters: .fast) }
        let keyFile = a.folder.keyFile
        #expect(DirectoryEntry.at(keyFile) != nil)
        var info = stat()
        #expect(stat(keyFile, &info) == 0 && info.st_mode & 0o777 == 0o600, "the device's key is its owner's only")
        #expect(DirectoryEntry.at(b.folder.keyFile) == nil)

        // A hostile record asking for an endless derivation is refused in one line, and the
        // content stays locked: the device writes nothing.
        let location = try #require(a.location)
        var plist = try PlistSeam.decode(try AtomicFile.read(location.encryptionRecordPath, limit: 1 << 16))
        if case var .dictionary(fields) = plist { fields["logN"] = .integer(30); plist = .dictionary(fields) }
        try AtomicFile.write(PlistSeam.encode(plist, format: .xml), to: location.encryptionRecordPath)
        #expect(throws: EncryptionError.damagedRecord("scrypt log2(N) must be 10 to 20, not 30")) { try b.unlockEncryption(passphrase: Self.passphrase) }
        #expect(b.encryptionState == .locked(keyID: nil))
        #expect(throws: SyncError.encryptedWithoutKey) { try b.sync() }
        #expect(a.encryptionState == .sealed(keyID: try #require(location.sealing.contentKey?.idHex)), "a device holding the key goes on sealing")
    }
}
