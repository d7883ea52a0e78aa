import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// Which peers of a content are on which model version, and what waits for an upgrade
/// (`ubiq status`, `ubiq peers`, `ubiq doctor`).
public struct ModelVersionReport: Sendable {
    /// One model-hash folder of the content.
    public struct Version: Sendable {
        public let modelHash: String
        /// This peer's version.
        public let isThisPeers: Bool
        /// The version this store was migrated from.
        public let isPrevious: Bool
        /// Peers whose latest writes are in this version's folder.
        public let peersOnIt: [String]
        public let hasBaseline: Bool
        /// For another version: transactions in its folder that this store does not hold, by
        /// peer. They reach this version when their author (or a peer that imported them)
        /// upgrades and carries them over in its migration baseline.
        public let waiting: [String: Int64]
    }

    public let versions: [Version]
    /// The model hash this store was migrated from.
    public let migratedFrom: String?
    /// The store was migrated and its state is not in a baseline of its version yet: its new
    /// saves wait (the next sync retries).
    public let migrationBaselineOwed: Bool
    /// Saves of the version before the migration not yet written into its folder.
    public let previousVersionOutbox: Int

    /// The report for `peer`'s content; `nil` for a store that does not sync.
    public static func make(for peer: UbiquityPeer) throws -> ModelVersionReport? {
        guard let location = peer.location else { return nil }
        let scan = ModelVersionScan(location: location)
        let current = scan.currentVersions
        let knowledge = peer.store.knowledge
        let migratedFrom = try peer.store.migratedFrom()
        var hashes = Set(scan.versions.keys)
        hashes.insert(location.modelHash)
        let versions = hashes.sorted().map { hash in
            let found = scan.versions[hash]
            var waiting: [String: Int64] = [:]
            if hash != location.modelHash {
                for (other, activity) in found?.peers ?? [:] where activity.highest > knowledge[other] {
                    waiting[other] = activity.highest - knowledge[other]
                }
            }
            return Version(modelHash: hash, isThisPeers: hash == location.modelHash, isPrevious: hash == migratedFrom,
                           peersOnIt: current.filter { $0.value == hash }.map(\.key).sorted(), hasBaseline: found?.hasBaseline ?? false,
                           waiting: waiting)
        }
        return ModelVersionReport(versions: versions, migratedFrom: migratedFrom, migrationBaselineOwed: try peer.store.migrationKnowledgeOwed() != nil,
                                  previousVersionOutbox: try peer.store.previousVersionOutbox().count)
    }

    /// The model hash `peer` is on now (the folder it last wrote into).
    public func version(of peer: String) -> Version? {
        versions.first { $0.peersOnIt.contains(peer) }
    }

    /// What is worth telling: another version in use, or anything waiting.
    public var needsAttention: Bool {
        versions.contains { !$0.isThisPeers && (!$0.peersOnIt.isEmpty || !$0.waiting.isEmpty) } || migrationBaselineOwed || previousVersionOutbox > 0
    }

    public var jsonValue: JSONValue {
        .object([
            "versions": .array(versions.map { version in
                .object(["modelHash": .string(version.modelHash), "thisPeer": .bool(version.isThisPeers), "previous": .bool(version.isPrevious),
                         "peers": .array(version.peersOnIt.map(JSONValue.string)), "baseline": .bool(version.hasBaseline),
                         "waiting": .object(version.waiting.mapValues { .int($0) })])
            }),
            "migratedFrom": migratedFrom.map(JSONValue.string) ?? .null,
            "migrationBaselineOwed": .bool(migrationBaselineOwed),
            "previousVersionOutbox": .int(Int64(previousVersionOutbox)),
        ])
    }

    /// One line per version, then what waits.
    public var lines: [String] {
        var lines: [String] = []
        for version in versions {
            let role = version.isThisPeers ? " (this peer's)" : version.isPrevious ? " (this store's previous version)" : ""
            let peers = version.peersOnIt.isEmpty ? "no peer on it now" : version.peersOnIt.joined(separator: ", ")
            lines.append("\(version.modelHash)\(role): \(peers)\(version.hasBaseline ? "; baseline" : "")")
            for (peer, count) in version.waiting.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(count) transaction(s) of \(peer) on this version wait for an upgrade (this peer never applies another version's logs)")
            }
        }
        if migrationBaselineOwed {
            lines.append("this store was migrated and its state is not in a baseline of its version yet: its new saves wait (the next sync retries)")
        }
        if previousVersionOutbox > 0 {
            lines.append("\(previousVersionOutbox) save(s) made before the migration wait to be written into the old version's folder")
        }
        return lines
    }
}
