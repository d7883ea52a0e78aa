import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquitySync
import UbiquityTestSupport

/// A baseline whose `store.sqlite` is not an SQLite database — damaged before it was zipped, or
/// forged, its checksum matching — is a bad baseline like any other: set aside with its reason,
/// never a sync that fails for ever. A newcomer goes on from the logs, and the next roll
/// replaces it when the logs are gone.
@Suite("A baseline whose store is not a database")
struct DamagedBaselineStoreTests {
    func save(_ peer: UbiquityPeer, _ key: String) throws {
        let context = peer.newContext()
        try context.insert("Note", key: key).set("title", key)
        try context.save()
    }

    /// Replaces the current baseline by one with the same metadata whose store is `bytes`.
    func forgeBaseline(of peer: UbiquityPeer, storeBytes bytes: [UInt8]) throws {
        let location = try #require(peer.location)
        let metadata = try BaselineArchive.readMetadata(location.baselinePath, sealing: location.sealing, caches: nil)
        let folder = NSTemporaryDirectory() + "forged-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/store.sqlite"))
        _ = try BaselineArchive.write(metadata: metadata, model: peer.store.model, storeFile: folder + "/store.sqlite", to: folder + "/baseline.zip")
        #expect(rename(folder + "/baseline.zip", location.baselinePath) == 0)
    }

    func notes(_ peer: UbiquityPeer) throws -> Set<String> {
        Set(try peer.store.fetch(FetchRequest(entity: "Note")).map(\.id.key))
    }

    @Test("a newcomer sets it aside and converges from the logs", arguments: [
        Array(repeating: UInt8(0x5A), count: 8_192),                        // no database at all
        Array("SQLite format 3\u{0}".utf8) + Array(repeating: 0, count: 4_080), // the header, nothing behind it
    ])
    func aNewcomerGoesOnFromTheLogs(storeBytes: [UInt8]) throws {
        let cloud = try TestCloud()
        let author = try cloud.peer("author")
        for key in ["a", "b", "c"] { try save(author, key) }
        _ = try author.sync()
        _ = try author.rollBaseline(force: true)
        try forgeBaseline(of: author, storeBytes: storeBytes)

        let newcomer = try cloud.peer("newcomer")
        let summary = try newcomer.sync()
        #expect(summary.adoptedBaseline == nil)
        #expect(try notes(newcomer) == ["a", "b", "c"])
        let quarantined = try newcomer.store.quarantined().map(\.path)
        #expect(quarantined.contains { $0.hasSuffix("/baseline.zip") }, "\(quarantined)")
        #expect(try newcomer.sync().imported.applied.isEmpty, "the next sync neither fails nor tries it again")
    }

    @Test("with the logs collected, the author's next sync rolls a baseline that replaces it")
    func theNextRollReplacesIt() throws {
        let cloud = try TestCloud()
        let author = try cloud.peer("author"), other = try cloud.peer("other")
        for key in ["a", "b", "c"] { try save(author, key) }
        _ = try author.sync()
        _ = try other.sync()
        _ = try author.rollBaseline(force: true)
        _ = try other.sync()                                  // its receipt passes the baseline
        #expect(author.collectGarbage().deleted.count == 3, "the logs are gone: only the baseline holds them")
        try forgeBaseline(of: author, storeBytes: Array(repeating: 0x5A, count: 8_192))

        _ = try author.sync()                                 // sees its transactions held by no usable file
        let newcomer = try cloud.peer("newcomer")
        let summary = try newcomer.sync()
        #expect(summary.adoptedBaseline == author.peerID)
        #expect(try notes(newcomer) == ["a", "b", "c"])
        #expect(try newcomer.dumpText() == author.dumpText())
    }
}
