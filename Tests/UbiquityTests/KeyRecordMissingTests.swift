import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquitySync
import UbiquityTestSupport

/// The key record of encrypted content deleted, as a file-sync engine carries a deletion: its
/// absence never turns sealing off. A device that holds the key goes on sealing; one that has
/// seen the content encrypted, or finds its files sealed, says the record is missing and waits,
/// losing nothing and writing nothing — never plaintext, never a new key.
@Suite("A missing key record")
struct KeyRecordMissingTests {
    static let passphrase = "correct horse battery staple"

    func save(_ peer: UbiquityPeer, _ key: String, title: String) throws {
        let context = peer.newContext()
        try context.insert("Note", key: key).set("title", title)
        try context.save()
    }

    /// Every regular file under `folder` that is not sealed, but the key record and `.nosync` files.
    func plaintextFiles(under folder: String) throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var found: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            let path = folder + "/" + relative
            guard DirectoryEntry.at(path)?.isRegularFile == true, !relative.contains("/.encryption/"), !relative.hasSuffix(".nosync"),
                  !relative.hasSuffix(".lock") else { continue }
            if !SealedFile.isSealedFile(path) { found.append(relative) }
        }
        return found
    }

    @Test("a new device waits for the record, writes nothing, and converges once it is back")
    func aNewDeviceWaits() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a")
        try a.enableEncryption(passphrase: Self.passphrase, parameters: .fast)
        try save(a, "n1", title: "Secret-one")
        _ = try a.sync()
        let record = try #require(a.location?.encryptionRecordPath)
        let kept = try AtomicFile.read(record, limit: 1 << 16)
        #expect(unlink(record) == 0)

        let newcomer = try cloud.peer("newcomer")
        #expect(newcomer.encryptionState == .locked(keyID: nil))
        let error = #expect(throws: SyncError.self) { try newcomer.sync() }
        #expect(error == .keyRecordMissing(path: record), "\(String(describing: error))")
        #expect(error?.description.contains("key record") == true && error?.description.contains("missing") == true)
        try save(newcomer, "n2", title: "Secret-two")                       // kept in its outbox
        _ = try? newcomer.exportPending()
        #expect(throws: EncryptionError.alreadyEnabled) { try newcomer.enableEncryption(passphrase: "another", parameters: .fast) }
        #expect(try plaintextFiles(under: cloud.cloud) == [], "nothing was written in plaintext")
        let findings = try Doctor.examine(newcomer)
        #expect(findings.contains { $0.kind == .encryptedWithoutKey && $0.message.contains("missing") }, "\(findings.map(\.message))")

        // The device holding the key goes on sealing meanwhile.
        try save(a, "n3", title: "Secret-three")
        _ = try a.sync()
        #expect(try plaintextFiles(under: cloud.cloud) == [])

        try AtomicFile.write(kept, to: record)
        try newcomer.unlockEncryption(passphrase: Self.passphrase)
        _ = try newcomer.sync()
        _ = try a.sync()
        #expect(try a.dumpText() == newcomer.dumpText())
        #expect(try a.store.snapshot(of: GlobalID(entity: "Note", key: "n2"))?.values["title"] == .string("Secret-two"))
        #expect(try plaintextFiles(under: cloud.cloud) == [])
    }

    @Test("a device that has seen the content encrypted stays locked when the record goes, even with no file of it sealed")
    func aDeviceThatSawItEncryptedStaysLocked() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        try a.enableEncryption(passphrase: Self.passphrase, parameters: .fast)
        #expect(b.encryptionState == .locked(keyID: a.location?.sealing.contentKey?.idHex))
        let location = try #require(a.location)
        #expect(unlink(location.encryptionRecordPath) == 0)
        // The witnesses gone too (a removal in flight, a tool's late deletions): only b's memory is left.
        unlink(location.contentEpochPath)
        unlink(location.baselinePath)
        _ = b.location?.sealing.refresh()
        #expect(b.encryptionState == .locked(keyID: nil))
        try save(b, "n1", title: "Secret-b")
        #expect(throws: SyncError.self) { try b.sync() }
        #expect(try plaintextFiles(under: cloud.cloud) == [])
    }
}
