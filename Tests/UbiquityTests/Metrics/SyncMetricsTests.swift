import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// A peer counts what it exports and imports, and times its activities, through the factory
/// its configuration names: each test reads its own in-memory backend.
@Suite("Sync metrics count logs, bytes, conflicts, quarantines and waits")
struct SyncMetricsTests {
    /// Opens a peer on device `name` whose metrics go to `factory`.
    func peer(_ cloud: TestCloud, _ name: String, _ factory: InMemoryMetricsFactory) throws -> UbiquityPeer {
        if !FileManager.default.fileExists(atPath: cloud.devicePath(name) + "/device.plist") {
            _ = try Device.create(at: cloud.devicePath(name), userName: name, identityToken: Device.defaultAccount)
        }
        var configuration = cloud.configuration(name)
        configuration.metricsFactory = factory
        return try UbiquityPeer(configuration: configuration)
    }

    func save(_ peer: UbiquityPeer, _ key: String, title: String) throws {
        let context = peer.newContext()
        let id = try GlobalID(entity: "Note", key: key)
        let note = try context.object(id) ?? context.insert("Note", key: key)
        note["title"] = .string(title)
        try context.save()
    }

    /// The sizes of `peer`'s log files in the container, summed.
    func logBytes(_ peer: UbiquityPeer) throws -> (count: Int, bytes: Int64) {
        let directory = try #require(peer.location).logDirectory(of: peer.peerID)
        let logs = DirectoryEntry.list(directory).filter { TransactionLog.transactionNumber(inFileName: $0.name) != nil }
        return (logs.count, logs.reduce(0) { $0 + $1.size })
    }

    @Test func logsAndBytesExportedByOneAreImportedByTheOther() throws {
        let cloud = try TestCloud()
        let metricsA = InMemoryMetricsFactory(), metricsB = InMemoryMetricsFactory()
        let a = try peer(cloud, "a", metricsA), b = try peer(cloud, "b", metricsB)
        defer { a.close(); b.close() }
        for index in 1...3 { try save(a, "n\(index)", title: "note \(index)") }
        _ = try a.sync()
        _ = try b.sync()

        let written = try logBytes(a)
        #expect(written.count == 3)
        let store = cloud.contentName
        #expect(metricsA.counter(SyncMetricName.logsExported.rawValue, store: store) == 3)
        #expect(metricsA.counter(SyncMetricName.bytesExported.rawValue, store: store) == written.bytes)
        #expect(metricsB.counter(SyncMetricName.logsImported.rawValue, store: store) == 3)
        #expect(metricsB.counter(SyncMetricName.bytesImported.rawValue, store: store) == written.bytes)
        #expect(metricsB.counter(SyncMetricName.logsExported.rawValue, store: store) == 0)
        #expect(metricsB.counter(SyncMetricName.conflictsRecorded.rawValue, store: store) == 0)
        #expect(metricsB.counter(SyncMetricName.filesQuarantined.rawValue, store: store) == 0)
        #expect(metricsB.counter(SyncMetricName.importWaits.rawValue, store: store) == 0)
        // B's first round was its initial import; each round imports once.
        #expect(metricsB.timings(SyncMetricName.initialImportDuration.rawValue, store: store).count == 1)
        #expect(metricsB.timings(SyncMetricName.importDuration.rawValue, store: store).count == 1)
        #expect(metricsA.timings(SyncMetricName.exportDuration.rawValue, store: store).count >= 3)
        // One series per name, and its only dimension is the store: nothing per peer.
        #expect(metricsB.made == Set(SyncMetricName.allCases.map { InMemoryMetricsFactory.key($0.rawValue, [("store", store)]) }))
    }

    @Test func aConcurrentEditIsOneConflict() throws {
        let cloud = try TestCloud()
        let metricsA = InMemoryMetricsFactory(), metricsB = InMemoryMetricsFactory()
        let a = try peer(cloud, "a", metricsA), b = try peer(cloud, "b", metricsB)
        defer { a.close(); b.close() }
        try save(a, "n", title: "first")
        _ = try a.sync()
        _ = try b.sync()
        try save(a, "n", title: "from a")
        try save(b, "n", title: "from b")
        _ = try b.sync()
        _ = try a.sync()

        let store = cloud.contentName
        #expect(try a.store.conflicts().count == 1)
        #expect(metricsA.counter(SyncMetricName.conflictsRecorded.rawValue, store: store) == 1)
        #expect(metricsA.counter(SyncMetricName.logsImported.rawValue, store: store) == 1)
    }

    @Test func aDamagedLogIsOneQuarantineAndOneWait() throws {
        let cloud = try TestCloud()
        let metricsA = InMemoryMetricsFactory(), metricsB = InMemoryMetricsFactory()
        let a = try peer(cloud, "a", metricsA), b = try peer(cloud, "b", metricsB)
        defer { a.close(); b.close() }
        try save(a, "n1", title: "w1")
        try save(a, "n2", title: "w2")
        let directory = try #require(a.location).logDirectory(of: a.peerID)
        let name = try #require(DirectoryEntry.list(directory).first { TransactionLog.transactionNumber(inFileName: $0.name) == 1 }?.name)
        let first = directory + "/" + name
        // Its title altered in place: still a plist, but the checksum no longer matches.
        var bytes = try AtomicFile.read(first, limit: 1 << 20)
        let title = try #require(bytes.indices.first { bytes[$0] == UInt8(ascii: "w") && bytes[$0 + 1] == UInt8(ascii: "1") })
        bytes[title] = UInt8(ascii: "x")
        try AtomicFile.write(bytes, to: first)
        _ = try b.sync()

        let store = cloud.contentName
        #expect(metricsB.counter(SyncMetricName.filesQuarantined.rawValue, store: store) == 1)
        // Log 2 waits behind the quarantined log 1.
        #expect(metricsB.counter(SyncMetricName.importWaits.rawValue, store: store) == 1)
        #expect(metricsB.counter(SyncMetricName.logsImported.rawValue, store: store) == 0)
    }
}
