import Foundation
import Testing
import Ubiquity
import UbiquityBase
import UbiquitySimulation

/// Several machines, each with its own copy of the cloud and its own devices, whose clouds a
/// `FileSyncEngine` (the simulation's, which `--transport file-sync` drives on simulated time)
/// keeps in step, move by move: the multi-machine harness of the file-sync tests.
public final class TestMachines {
    public let machines: [TestCloud]
    public let engine: FileSyncEngine

    public init(_ count: Int) throws {
        machines = try (0..<count).map { _ in try TestCloud() }
        engine = FileSyncEngine(clouds: machines.map(\.cloud))
    }

    /// A peer on machine `host` (device `name`, created on first use).
    public func peer(_ name: String, on host: Int, policy: BaselinePolicy? = .apple) throws -> UbiquityPeer {
        try machines[host].peer(name, policy: policy)
    }

    /// Scans every machine and delivers everything, in the order `random` gives.
    public func settle(seed: UInt64 = 1) {
        var random = SeededGenerator(seed: seed)
        engine.settle(using: &random)
    }
}

/// Saves a note with natural key `key` on `peer`; returns its transaction number.
@discardableResult
public func saveNote(_ peer: UbiquityPeer, _ key: String, title: String? = nil) throws -> Int64 {
    let context = peer.newContext()
    let note = try context.object(GlobalID(entity: "Note", key: key)) ?? context.insert("Note", key: key)
    note["title"] = .string(title ?? key)
    try context.save()
    return peer.store.knowledge[peer.peerID]
}

/// The log files (names) of `author` as `peer`'s machine sees them.
public func logNames(of author: String, at peer: UbiquityPeer) throws -> [String] {
    DirectoryEntry.list(try #require(peer.location).logDirectory(of: author)).map(\.name)
        .filter { TransactionLog.transactionNumber(inFileName: $0) != nil }
}

/// The note keys in `peer`'s store, sorted.
public func noteKeys(_ peer: UbiquityPeer) throws -> [String] {
    try peer.store.fetch(FetchRequest(entity: "Note")).map(\.id.key).sorted()
}
