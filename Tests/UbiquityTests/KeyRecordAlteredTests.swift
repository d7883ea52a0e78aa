import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquitySync
import UbiquityTestSupport

/// The key record of encrypted content with its key ID edited in the cloud. The passphrase seal
/// authenticates the key ID, so the right passphrase no longer opens the record under the ID it
/// names: that is told apart from a wrong passphrase, devices holding the key go on with it,
/// and the record is put back — never a word of plaintext, no save lost.
@Suite("An altered key record")
struct KeyRecordAlteredTests {
    static let passphrase = "correct horse battery staple"

    /// Changes the record's fields as `change` says; returns the record's bytes from before.
    @discardableResult
    static func edit(_ path: String, _ change: (inout [String: PlistValue]) -> Void) throws -> [UInt8] {
        let before = try AtomicFile.read(path, limit: 1 << 16)
        guard case var .dictionary(fields) = try PlistSeam.decode(before) else { throw FileError(path: path, operation: "read", message: "not a dictionary") }
        change(&fields)
        try AtomicFile.write(PlistSeam.encode(.dictionary(fields), format: .xml), to: path)
        return before
    }

    /// Replaces the record's key ID by another one; returns the record's bytes from before.
    @discardableResult
    static func alterKeyID(_ path: String) throws -> [UInt8] {
        try edit(path) { $0["keyID"] = .string(ContentKey.generate().idHex) }
    }

    /// Every regular file under `folder` that is not sealed, but the key record and `.nosync` files.
    static func plaintextFiles(under folder: String) -> [String] {
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

    /// `a` turned encryption on and saved; `b` was given the passphrase and synced.
    func twoDevicesHoldingTheKey(_ cloud: TestCloud) throws -> (UbiquityPeer, UbiquityPeer) {
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        try a.enableEncryption(passphrase: Self.passphrase, parameters: .fast)
        _ = try saveNote(a, "n1", title: "Secret-one")
        _ = try a.sync()
        try b.unlockEncryption(passphrase: Self.passphrase)
        _ = try b.sync()
        return (a, b)
    }

    @Test("a device holding the key goes on, and puts the key ID back by itself")
    func aDeviceHoldingTheKeyGoesOnAndRestoresTheRecord() throws {
        let cloud = try TestCloud()
        let (a, b) = try twoDevicesHoldingTheKey(cloud)
        let location = try #require(a.location)
        let keyID = try #require(location.sealing.contentKey?.idHex)
        let original = try Self.alterKeyID(location.encryptionRecordPath)

        #expect(a.encryptionState == .sealed(keyID: keyID), "the record names a key no file is sealed under")
        guard case let .keyID(recorded, content, restorable)? = location.sealing.alteration else {
            Issue.record("no alteration found: \(String(describing: location.sealing.alteration))")
            return
        }
        #expect(recorded != keyID && content == keyID && restorable)
        #expect(try Doctor.examine(a).contains { $0.kind == .alteredKeyRecord })
        _ = try saveNote(a, "n2", title: "Secret-two")
        let summary = try a.sync()
        #expect(summary.keyRecordAltered?.description.contains("the key record was altered") == true, "\(summary.line)")
        #expect(try AtomicFile.read(location.encryptionRecordPath, limit: 1 << 16) == original, "the record is back as it was written")
        #expect(location.sealing.alteration == nil)
        _ = try b.sync()
        #expect(try noteKeys(b) == ["n1", "n2"])
        #expect(Self.plaintextFiles(under: cloud.cloud) == [])
    }

    @Test("the right passphrase opens an altered record on a new device, which puts it back")
    func theRightPassphraseIsNeverCalledWrong() throws {
        let cloud = try TestCloud()
        let (a, _) = try twoDevicesHoldingTheKey(cloud)
        let location = try #require(a.location)
        let original = try Self.alterKeyID(location.encryptionRecordPath)

        let newcomer = try cloud.peer("newcomer", policy: nil)
        _ = try saveNote(newcomer, "n3", title: "Secret-three")     // waits in its outbox
        let locked = #expect(throws: SyncError.self) { try newcomer.sync() }
        guard case let .keyRecordAltered(path, recorded, content)? = locked else {
            Issue.record("sync said: \(String(describing: locked))")
            return
        }
        #expect(path == location.encryptionRecordPath && content == location.sealing.contentKey?.idHex && recorded != content)
        #expect(locked?.description.hasPrefix("the key record \(path) was altered") == true)
        #expect(try Doctor.examine(newcomer).contains { $0.kind == .alteredKeyRecord })
        #expect(throws: EncryptionError.alteredRecord(recordedKeyID: recorded, contentKeyID: content), "never 'wrong passphrase' for an altered record") {
            try newcomer.unlockEncryption(passphrase: "not the passphrase")
        }
        #expect(try newcomer.unlockEncryption(passphrase: Self.passphrase) == .keyIDRestored(from: recorded, to: content))
        #expect(try AtomicFile.read(location.encryptionRecordPath, limit: 1 << 16) == original)
        _ = try newcomer.sync()
        _ = try a.sync()
        #expect(try noteKeys(a) == ["n1", "n3"])
        #expect(try a.mergeStateText() == newcomer.mergeStateText())
        #expect(Self.plaintextFiles(under: cloud.cloud) == [])
    }

    /// A record written before records carried a check: the key ID changed, the device holding
    /// the key knows from the content's files that the record is wrong and goes on, but cannot
    /// prove the rest as written; the passphrase repairs it.
    @Test("without a check in the record, the content's files decide and the passphrase repairs it")
    func aRecordWithoutACheckIsRepairedWithThePassphrase() throws {
        let cloud = try TestCloud()
        let (a, b) = try twoDevicesHoldingTheKey(cloud)
        let location = try #require(a.location)
        let keyID = try #require(location.sealing.contentKey?.idHex)
        try Self.edit(location.encryptionRecordPath) { $0["keyCheck"] = nil }
        let legacy = try AtomicFile.read(location.encryptionRecordPath, limit: 1 << 16)
        try Self.alterKeyID(location.encryptionRecordPath)

        _ = try saveNote(a, "n2", title: "Secret-two")
        let summary = try a.sync()
        #expect(summary.keyRecordAltered?.remedies == [.repairKeyRecord], "\(summary.line)")
        #expect(try AtomicFile.read(location.encryptionRecordPath, limit: 1 << 16) != legacy, "nothing unproven is written back")
        _ = try b.sync()
        #expect(try noteKeys(b) == ["n1", "n2"], "both go on with the key they hold")
        #expect(throws: EncryptionError.self) { try a.repairKeyRecord() }
        let repaired = try a.repairKeyRecord(passphrase: Self.passphrase)
        guard case let .keyIDRestored(_, to) = repaired else {
            Issue.record("repair did \(repaired)")
            return
        }
        #expect(to == keyID)
        #expect(a.location?.sealing.alteration == nil)
        #expect(try KeyRecord(decoding: AtomicFile.read(location.encryptionRecordPath, limit: 1 << 16)).keyCheck != nil, "written back with its check")
        let newcomer = try cloud.peer("newcomer", policy: nil)
        try newcomer.unlockEncryption(passphrase: Self.passphrase)
        _ = try newcomer.sync()
        #expect(try noteKeys(newcomer) == ["n1", "n2"])
        #expect(Self.plaintextFiles(under: cloud.cloud) == [])
    }

    /// A changed salt: the record names the key a device holds, but its check fails. That
    /// device goes on, says the record was altered, and wraps its key anew under the passphrase.
    @Test func anAlteredWrappingIsWrappedAnewByADeviceHoldingTheKey() throws {
        let cloud = try TestCloud()
        let (a, _) = try twoDevicesHoldingTheKey(cloud)
        let location = try #require(a.location)
        let keyID = try #require(location.sealing.contentKey?.idHex)
        try Self.edit(location.encryptionRecordPath) { $0["salt"] = .data(Array(repeating: 7, count: 32)) }
        #expect(a.encryptionState == .sealed(keyID: keyID))
        #expect(location.sealing.alteration == .wrapping(keyID: keyID))
        #expect(try a.repairKeyRecord(passphrase: Self.passphrase, parameters: .fast) == .rewrapped(keyID: keyID))
        #expect(location.sealing.alteration == nil)
        let newcomer = try cloud.peer("newcomer", policy: nil)
        try newcomer.unlockEncryption(passphrase: Self.passphrase)
        _ = try newcomer.sync()
        #expect(try noteKeys(newcomer) == ["n1"])
    }

    /// A record gone: a device holding the key writes it again under the passphrase given.
    @Test func aRecordGoneIsWrittenAgainByADeviceHoldingTheKey() throws {
        let cloud = try TestCloud()
        let (a, _) = try twoDevicesHoldingTheKey(cloud)
        let location = try #require(a.location)
        let keyID = try #require(location.sealing.contentKey?.idHex)
        #expect(unlink(location.encryptionRecordPath) == 0)
        #expect(throws: EncryptionError.self) { try a.repairKeyRecord() }
        #expect(try a.repairKeyRecord(passphrase: Self.passphrase, parameters: .fast) == .rewrapped(keyID: keyID))
        let newcomer = try cloud.peer("newcomer", policy: nil)
        try newcomer.unlockEncryption(passphrase: Self.passphrase)
        _ = try newcomer.sync()
        #expect(try noteKeys(newcomer) == ["n1"])
    }

    /// A device holding another key than the one the record names and the content's files are
    /// sealed under is locked, as before: the record is no altered one.
    @Test func aDeviceHoldingAnotherKeyIsStillLocked() throws {
        let cloud = try TestCloud()
        let (a, b) = try twoDevicesHoldingTheKey(cloud)
        let keyID = try #require(a.location?.sealing.contentKey?.idHex)
        try DeviceKey.write(ContentKey.generate(), to: b.folder.keyFile)
        #expect(b.encryptionState == .locked(keyID: keyID))
        #expect(b.location?.sealing.alteration == nil)
        #expect(throws: SyncError.encryptedWithoutKey) { try b.sync() }
        #expect(throws: EncryptionError.self) { try b.repairKeyRecord() }
    }
}
