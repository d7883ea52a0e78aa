import Foundation
import UbiquityBase
import UbiquityCore
import UbiquityPlist

/// What a migration between stores did.
public struct MigrationReport: Sendable, Equatable {
    /// Objects copied into the target store.
    public var copied = 0
    /// Objects already alive in the target (same global ID, so the same natural key): left as they are.
    public var alreadyPresent = 0
    /// Local transactions the copy was saved as.
    public var transactions = 0
}

/// Copies every live object of one store into another as ordinary local transactions,
/// deduplicating by global ID (Apple offered no such thing between the local and account stores).
enum StoreMigration {
    static func copy(from source: PersistentStore, to target: PersistentStore, format: PlistFormat, batch: Int = 500) throws -> MigrationReport {
        var report = MigrationReport()
        var records: [ChangeRecord] = []
        func flush() throws {
            guard !records.isEmpty else { return }
            if try target.commitLocal(inserted: records, updated: [], deleted: [], format: format) != nil { report.transactions += 1 }
            records.removeAll()
        }
        for entity in source.model.entities {
            for snapshot in try source.fetch(FetchRequest(entity: entity.name)) {
                if try target.isAlive(snapshot.id) {
                    report.alreadyPresent += 1
                    continue
                }
                // External values travel with their files (stores of other accounts keep other folders).
                for case let .externalBinary(reference)? in snapshot.values.values {
                    try target.externalData.copy(reference, from: source.externalData)
                }
                records.append(try source.reinsertionRecord(of: snapshot))
                report.copied += 1
                if records.count >= batch { try flush() }
            }
        }
        try flush()
        return report
    }
}

extension UbiquitousStoreCoordinator {
    /// Copies the objects of the local store (saved while signed out) into the current account's
    /// store, as new local transactions that sync; objects the account already has are skipped.
    public func migrateLocalStoreToAccount() throws -> MigrationReport {
        guard let peer, peer.kind == .account else { throw PeerError.needsAccountStore }
        let local = try openSibling(.local)
        let report = try StoreMigration.copy(from: local, to: peer.store, format: configuration.logFormat)
        _ = try? peer.exportPending()
        return report
    }

    /// Copies the current account's objects into the local store, without sync metadata reaching
    /// any cloud (the remove-metadata path: what the app keeps when iCloud is turned off).
    public func migrateAccountStoreToLocal() throws -> MigrationReport {
        guard let peer, peer.kind == .account else { throw PeerError.needsAccountStore }
        return try StoreMigration.copy(from: peer.store, to: try openSibling(.local), format: configuration.logFormat)
    }

    private func openSibling(_ kind: StoreKind) throws -> PersistentStore {
        let folder = try DeviceLocation(configuration, device: device).storeFolder(kind: kind, token: device.identityToken)
        return try PersistentStore(path: folder.storeFile(kind: kind, storeName: configuration.storeName),
                                   model: configuration.model, peerID: device.peerID(peerToken: configuration.peerToken),
                                   storeName: configuration.storeName, contentName: configuration.contentName)
    }
}

extension UbiquitousStoreCoordinator {
    /// Deletes this device's stores of accounts other than the current one that were last used
    /// more than `seconds` ago (their data stays in their cloud containers). Returns the tokens.
    @discardableResult
    public func removeUnusedAccountStores(unusedFor seconds: Double, now: Date? = nil) throws -> [String] {
        let now = now ?? configuration.clock.now
        let device = self.device
        let deviceLocation = DeviceLocation(configuration, device: device)
        var map = try deviceLocation.tokenMap()
        var removed: [String] = []
        for (token, cid) in map.sorted(by: { $0.key < $1.key }) where token != device.identityToken {
            let folder = deviceLocation.accountStore(containerID: cid)
            let marker = (try? AtomicFile.read(folder.lastUsedFile, limit: 64)).flatMap { Double(String(decoding: $0, as: UTF8.self)) } ?? 0
            guard marker < now.timeIntervalSince1970 - seconds else { continue }
            try? FileManager.default.removeItem(atPath: folder.path)
            map[token] = nil
            removed.append(token)
        }
        if !removed.isEmpty {
            try deviceLocation.writeTokenMap(map)
            logger.log(.info, .setupAssistant, "removeUnusedAccountStores", "removed the stores of \(removed.joined(separator: ", "))")
        }
        return removed
    }
}
