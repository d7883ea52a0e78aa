import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// What `UbiquityPeer.repairKeyRecord(passphrase:)`, an unlock or a sync did with the key record.
public enum KeyRecordRepair: Sendable, Equatable {
    /// Nothing is wrong with the record, as far as this device can tell.
    case intact
    /// The record's key ID had been changed: put back to the content's, the rest as written.
    case keyIDRestored(from: String, to: String)
    /// The record was gone, unreadable or altered past what its check puts back: written again,
    /// the key this device holds wrapped under the passphrase given.
    case rewrapped(keyID: String)

    /// One line for people.
    public var line: String {
        switch self {
        case .intact: return "the key record is intact: nothing to repair"
        case let .keyIDRestored(from, to):
            return "the key record was altered (it named key \(from.prefix(8))…): put back with the content's key ID \(to.prefix(8))…, the rest as it was written"
        case let .rewrapped(keyID):
            return "the key record was written again: the content key \(keyID.prefix(8))… wrapped under the passphrase given, which opens it from now on"
        }
    }
}

// A key record altered in the cloud (Docs/ContainerFormat.md, "Encryption"): a device holding
// the key goes on with it and puts the record back where the record's check proves how; with
// the passphrase, any device repairs it.
extension UbiquityPeer {
    /// Repairs the content's key record. A key ID changed in a record this device's key can
    /// check is put back without a passphrase (a sync does that by itself). Otherwise
    /// `passphrase` opens the record under the key ID the content's files are sealed under
    /// (the device keeps the key, as `unlockEncryption` does); or, on a device holding the key
    /// whose record is gone, unreadable or altered past that, wraps the key anew under it
    /// (with `parameters`, else the record's, else `.standard`). Throws
    /// `EncryptionError.passphraseNeeded` when the repair needs a passphrase not given.
    @discardableResult
    public func repairKeyRecord(passphrase: String? = nil, parameters: ScryptParameters? = nil) throws -> KeyRecordRepair {
        try refuseUnlessWritable("repair the key record")
        guard let location else { throw EncryptionError.signedOut }
        let wasLocked = location.sealing.refresh() != .plain && location.sealing.contentKey == nil
        let repair = try syncLock.withLock {
            try Self.repairKeyRecord(location, keyFile: folder.keyFile, passphrase: passphrase,
                                     parameters: parameters, date: store.now)
        }
        if repair != .intact { logger.notice(.encryption, "repairKeyRecord", repair.line) }
        if wasLocked { try catchUpWithOwnLogs() }
        return repair
    }

    /// `repairKeyRecord(passphrase:parameters:)` for the content at `location`, whose key this
    /// device keeps in `keyFile`. The caller holds the sync lock, or runs before anything else
    /// may use the peer.
    static func repairKeyRecord(_ location: ContainerLocation, keyFile: String, passphrase: String?, parameters: ScryptParameters?,
                                date: Double) throws -> KeyRecordRepair {
        let sealing = location.sealing
        guard sealing.refresh() != .plain else { throw EncryptionError.notEnabled }
        defer { sealing.refresh() }
        // The key this device seals with: the content's, by the record or by its files.
        let held = sealing.contentKey
        let record: KeyRecord?, unreadable: EncryptionError?
        do { (record, unreadable) = (try sealing.record(), nil) } catch { (record, unreadable) = (nil, error) }   // as good as gone
        if let held, let record, let restored = record.restored(for: held) {
            try writeRecord(restored, in: location)
            return .keyIDRestored(from: record.keyID, to: held.idHex)
        }
        if held != nil, record != nil, sealing.alteration == nil { return .intact }
        guard let passphrase, !passphrase.isEmpty else {
            throw EncryptionError.passphraseNeeded(sealing.alteration?.description
                ?? (record == nil ? "the key record is gone or unreadable" : "this device holds no key to check the key record with"))
        }
        if let record, let key = try? record.unwrap(passphrase: passphrase, alsoUnder: [held?.idHex].compactMap { $0 } + sealing.contentKeyIDs()),
           held.map({ $0.id == key.id }) ?? true {
            if held == nil { try DeviceKey.write(key, to: keyFile) }
            guard key.idHex != record.keyID else { return .intact }
            try writeRecord(record.confirmed(for: key), in: location)
            return .keyIDRestored(from: record.keyID, to: key.idHex)
        }
        if let held, record == nil || sealing.alteration != nil {
            let fresh = try KeyRecord.wrap(held, passphrase: passphrase, parameters: parameters ?? record?.parameters ?? .standard, date: date,
                                           created: record?.created)
            try writeRecord(fresh, in: location)
            return .rewrapped(keyID: held.idHex)
        }
        // Without the key, a record gone or unreadable cannot be written again.
        if let unreadable { throw unreadable }
        if record == nil { throw sealing.lockedError }
        if case let .keyID(recorded, content, _)? = sealing.alteration { throw EncryptionError.alteredRecord(recordedKeyID: recorded, contentKeyID: content) }
        throw EncryptionError.wrongPassphrase
    }

    /// What a sync does with a key record found altered while this device seals with the key
    /// it holds: puts back a key ID the record's check proves changed; otherwise says so at
    /// level 0 and goes on. Returns the line for the sync's summary.
    func answerAlteredKeyRecord(_ location: ContainerLocation, _ alteration: KeyRecordAlteration) -> Advice {
        if alteration.isRestorable {
            do {
                let repair = try syncLock.withLock {
                    try Self.repairKeyRecord(location, keyFile: folder.keyFile, passphrase: nil, parameters: nil, date: store.now)
                }
                logger.notice(.encryption, "repairKeyRecord", repair.line)
                return "\(repair.line)"
            } catch {
                logger.error(.encryption, "repairKeyRecord", "\(alteration.description); it could not be put back: \(error)")
            }
        }
        let advice: Advice = "\(alteration.description) (\(location.encryptionRecordPath)); this device goes on with the key it holds: to repair the record, \(.repairKeyRecord) with the passphrase"
        logger.error(.encryption, "refresh", advice.description)
        return advice
    }

    /// Writes `record` in place of the content's key record (a repair: the one there is altered or gone).
    static func writeRecord(_ record: KeyRecord, in location: ContainerLocation) throws {
        let directory = (location.encryptionRecordPath as NSString).deletingLastPathComponent
        do {
            try location.checkWritable(directory)
            try AtomicFile.makeDirectory(directory)
            try AtomicFile.write(record.encoded, to: location.encryptionRecordPath)
        } catch {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
    }
}
