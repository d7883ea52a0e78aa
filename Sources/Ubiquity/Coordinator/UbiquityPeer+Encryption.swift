import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// What `ubiq encryption status` shows.
public struct EncryptionStatus: Sendable {
    public var state: ContentSealing.State
    /// The key record's scrypt parameters and dates (`nil` when the content is not encrypted).
    public var parameters: ScryptParameters?
    public var created: Date?
    public var passphraseChanged: Date?
    /// Files of this content in the cloud written before encryption was turned on, still plaintext
    /// (logs, receipts, baselines, the content epoch); garbage collection removes the logs.
    public var plaintextFiles: [String] = []
    /// How the key record was found altered, if it was.
    public var alteration: KeyRecordAlteration?

    public var line: String {
        switch state {
        case .plain: return "not encrypted"
        case let .sealed(keyID):
            let remaining = plaintextFiles.isEmpty ? "no plaintext file left" : "\(plaintextFiles.count) file(s) from before still plaintext until collected"
            let altered = alteration.map { "; \($0.description)" } ?? ""
            return "encrypted (key \(keyID.prefix(8))…, scrypt log2 N \(parameters?.logN ?? 0), r \(parameters?.r ?? 0), p \(parameters?.p ?? 0)); this device holds the key; \(remaining)\(altered)"
        case .locked: return alteration.map { "\($0.description); \(ContentSealing.noKeyMessage)" } ?? ContentSealing.noKeyMessage
        }
    }
}

// Encryption of the content in the cloud (Docs/ContainerFormat.md, "Encryption"):
// turned on once per content, a device given the passphrase once, the passphrase changed.
extension UbiquityPeer {
    /// `content.key` in the account's folder of the device: the content key kept here (0600).

    /// Whether this peer's content is encrypted and whether this device holds the key (read again now).
    public var encryptionState: ContentSealing.State {
        location.map { $0.sealing.refresh() } ?? .plain
    }

    /// The encryption of this peer's content, with the plaintext files left from before it.
    public func encryptionStatus() throws -> EncryptionStatus {
        guard let location else { throw EncryptionError.signedOut }
        var status = EncryptionStatus(state: location.sealing.refresh())
        status.alteration = location.sealing.alteration
        if let record = try location.sealing.record() {
            status.parameters = record.parameters
            status.created = Date(timeIntervalSince1970: record.created)
            status.passphraseChanged = Date(timeIntervalSince1970: record.changed)
            status.plaintextFiles = Self.plaintextFiles(location)
        }
        return status
    }

    /// Turns encryption on for this account's content: a new random content key, wrapped under
    /// `passphrase` (scrypt with `parameters`) in the cloud and kept on this device. From then on
    /// everything this peer writes into the cloud is sealed; it rolls a sealed baseline at once
    /// when it may (it has imported every log), rewrites its receipt and the content epoch sealed,
    /// and every other device stops writing until it is given the passphrase.
    public func enableEncryption(passphrase: String, parameters: ScryptParameters = .standard) throws {
        try refuseUnlessWritable("enable encryption")
        guard let location else { throw EncryptionError.signedOut }
        guard !passphrase.isEmpty else { throw EncryptionError.emptyPassphrase }
        if let problem = parameters.problem { throw EncryptionError.invalidParameters(problem) }
        try syncLock.withLock {
            guard location.sealing.refresh() == .plain else { throw EncryptionError.alreadyEnabled }
            let key = ContentKey.generate()
            let record = try KeyRecord.wrap(key, passphrase: passphrase, parameters: parameters, date: store.now)
            let keyFile = folder.keyFile
            try DeviceKey.write(key, to: keyFile)
            do {
                try Self.createRecord(record, in: location)
            } catch {
                unlink(keyFile)
                throw error
            }
            location.sealing.refresh()
        }
        logger.notice(.encryption, "enable", "encryption is on for \(location.contentName): everything written from now on is sealed")
        try resealAfterEnabling(location)
    }

    /// Gives this device the key of encrypted content: the passphrase opens the key record and
    /// the key is kept on the device. A wrong passphrase changes nothing. A record whose key ID
    /// was changed opens under the key ID the content's files are sealed under, and is put back
    /// (returned); one the passphrase opens under neither is `EncryptionError.alteredRecord`.
    @discardableResult
    public func unlockEncryption(passphrase: String) throws -> KeyRecordRepair? {
        try refuseUnlessWritable("unlock the content")
        guard let location else { throw EncryptionError.signedOut }
        let repair = try Self.unlock(location, keyFile: folder.keyFile, passphrase: passphrase)
        if let repair { logger.notice(.encryption, "unlock", repair.line) }
        logger.notice(.encryption, "unlock", "this device holds the key of \(location.contentName) now")
        try catchUpWithOwnLogs()
        return repair
    }

    /// Gives the device of `configuration` the key of its account's encrypted content without
    /// opening its store: an app running there picks the key up at its next sync (a fallback
    /// store's initial import is tried again then).
    @discardableResult
    public static func unlockEncryption(configuration: PeerConfiguration, passphrase: String) throws -> KeyRecordRepair? {
        guard let (location, keyFile) = try accountLocation(configuration) else { throw EncryptionError.signedOut }
        return try unlock(location, keyFile: keyFile, passphrase: passphrase)
    }

    /// Keeps `key` on the device of `configuration` as the content key of `account`'s content,
    /// with no passphrase and no record: simulations that run every device with encryption on.
    package static func provisionContentKey(_ key: ContentKey, configuration: PeerConfiguration, account: String) throws {
        let device: Device
        do { device = try Device.load(from: configuration.device) } catch { throw PeerError.device(error) }
        try DeviceKey.write(key, to: try DeviceLocation(configuration, device: device).storeFolder(kind: .account, token: account).keyFile)
    }

    /// What the device of `configuration` can do with its account's content, without opening its store.
    public static func encryptionState(configuration: PeerConfiguration) throws -> ContentSealing.State {
        try accountLocation(configuration)?.location.sealing.state ?? .plain
    }

    private static func unlock(_ location: ContainerLocation, keyFile: String, passphrase: String) throws -> KeyRecordRepair? {
        guard let record = try location.sealing.record() else { throw EncryptionError.notEnabled }
        let key = try openRecord(record, in: location, passphrase: passphrase)
        try DeviceKey.write(key, to: keyFile)
        defer { location.sealing.refresh() }
        guard key.idHex != record.keyID else { return nil }
        try writeRecord(record.confirmed(for: key), in: location)
        return .keyIDRestored(from: record.keyID, to: key.idHex)
    }

    /// The content key `passphrase` opens `record` to, under the record's key ID or one the
    /// content's files are sealed under (a record whose key ID was changed); a passphrase that
    /// opens it under neither while the files say the record was altered is told so, never
    /// called wrong.
    private static func openRecord(_ record: KeyRecord, in location: ContainerLocation, passphrase: String) throws -> ContentKey {
        let held = location.sealing.contentKey.map { [$0.idHex] } ?? []
        let opened = Result { () throws(EncryptionError) in try record.unwrap(passphrase: passphrase, alsoUnder: held + location.sealing.contentKeyIDs()) }
        guard case let .failure(error) = opened, error == .wrongPassphrase else { return try opened.get() }
        location.sealing.refresh()
        if case let .keyID(recorded, content, _)? = location.sealing.alteration {
            throw EncryptionError.alteredRecord(recordedKeyID: recorded, contentKeyID: content)
        }
        throw EncryptionError.wrongPassphrase
    }

    /// The current account's location with the device's sealing, and where its key is kept.
    private static func accountLocation(_ configuration: PeerConfiguration) throws -> (location: ContainerLocation, keyFile: String)? {
        let device: Device
        do { device = try Device.load(from: configuration.device) } catch { throw PeerError.device(error) }
        guard let token = device.identityToken else { return nil }
        let folder = try DeviceLocation(configuration, device: device).storeFolder(kind: .account, token: token)
        let location = ContainerLocation(
            cloud: device.cloudSeenHere(configuration.cloud), identityToken: token, containerIdentifier: configuration.containerIdentifier,
            contentURL: configuration.contentURL, contentName: configuration.contentName, modelHash: configuration.model.hash)
            .sealed(keyFile: folder.keyFile, scratchDirectory: folder.stagingDirectory)
        return (location, folder.keyFile)
    }

    /// Wraps the content key under `newPassphrase` (and new scrypt `parameters`, if given); no
    /// file but the key record is rewritten, and devices holding the key go on as they were.
    /// `currentPassphrase` must open the record: a wrong one changes nothing.
    public func changePassphrase(from currentPassphrase: String, to newPassphrase: String, parameters: ScryptParameters? = nil) throws {
        try refuseUnlessWritable("change the passphrase")
        guard let location else { throw EncryptionError.signedOut }
        guard !newPassphrase.isEmpty else { throw EncryptionError.emptyPassphrase }
        if let problem = parameters?.problem { throw EncryptionError.invalidParameters(problem) }
        guard let record = try location.sealing.record() else { throw EncryptionError.notEnabled }
        // A record whose key ID was changed is written again with the content's.
        let key = try Self.openRecord(record, in: location, passphrase: currentPassphrase)
        let rewrapped = try KeyRecord.wrap(key, passphrase: newPassphrase, parameters: parameters ?? record.parameters,
                                           date: store.now, created: record.created)
        try Self.writeRecord(rewrapped, in: location)
        try DeviceKey.write(key, to: folder.keyFile)
        location.sealing.refresh()
        logger.notice(.encryption, "changePassphrase", "the key of \(location.contentName) is wrapped under a new passphrase")
    }

    /// Writes the record only if none is there (`link` never replaces): of two devices turning
    /// encryption on at once on one file system, one wins and the other is told.
    private static func createRecord(_ record: KeyRecord, in location: ContainerLocation) throws {
        let directory = (location.encryptionRecordPath as NSString).deletingLastPathComponent
        let temporary = directory + "/.record-" + UUID().uuidString + ContainerLocation.temporarySuffix
        defer { unlink(temporary) }
        do {
            try location.checkWritable(directory)
            try AtomicFile.makeDirectory(directory)
            try AtomicFile.write(record.encoded, to: temporary)
        } catch {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
        guard link(temporary, location.encryptionRecordPath) == 0 else {
            if errno == EEXIST { throw EncryptionError.alreadyEnabled }
            let error = FileError(path: location.encryptionRecordPath, operation: "create", errno: errno)
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
    }

    /// After encryption is turned on: the outbox goes out sealed, this peer's receipt and the
    /// content epoch are written again sealed, and a sealed baseline is rolled when this peer
    /// may roll one, so newcomers need no plaintext log. What is left in plaintext goes by the
    /// usual rules (Docs/ContainerFormat.md, "Encryption").
    private func resealAfterEnabling(_ location: ContainerLocation) throws {
        _ = try sync()
        try syncLock.withLock {
            let view = makeBaseliner(location).catalog().view
            try Exporter(store: store, location: location, logger: logger).writeReceipt(baselineView: view)
            if let removal = ContentEpoch.current(location) { try ContentEpoch.write(location, removal) }
        }
        let decision = try rollBaseline(force: true)
        logger.log(.info, .encryption, "enable", "sealed baseline: \(decision.reason)")
    }

    /// The content's files in the cloud that are not sealed.
    static func plaintextFiles(_ location: ContainerLocation) -> [String] {
        var paths: [String] = []
        func visit(_ directory: String) {
            for entry in location.entries(in: directory) where !ContainerLocation.isTemporary(entry.name) && !entry.name.hasPrefix(".lock") {
                let path = directory + "/" + entry.name
                if entry.isDirectory {
                    visit(path)
                } else if entry.isRegularFile, !SealedFile.isSealedFile(path) {
                    paths.append(location.relative(path) ?? path)
                }
            }
        }
        for peer in ContainerScan.peers(of: location) { visit(location.logDirectory(of: peer)) }
        visit(location.baselineDirectory)
        // External values saved before: plain files under their plain SHA-256, collected when nothing names them.
        visit(location.externalDataDirectory)
        if DirectoryEntry.at(location.contentEpochPath) != nil, !SealedFile.isSealedFile(location.contentEpochPath) {
            paths.append(location.relativeEpochFolderPath(location.contentEpochName))
        }
        return paths
    }
}
