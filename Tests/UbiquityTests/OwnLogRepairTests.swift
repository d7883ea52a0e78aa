import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// A peer keeps a copy of every log it sent until garbage collection collects it, and writes
/// again one whose file is damaged or gone — but never one it collected on purpose.
@Suite("Own logs written again from their copies")
struct OwnLogRepairTests {
    func logPath(_ peer: UbiquityPeer, number: Int64) throws -> String {
        let directory = try #require(peer.location).logDirectory(of: peer.peerID)
        let name = try #require(DirectoryEntry.names(directory).first { TransactionLog.transactionNumber(inFileName: $0) == number })
        return directory + "/" + name
    }

    @Test func aDamagedLogIsWrittenAgainAndTheOthersImportIt() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        for key in ["one", "two", "three"] { try saveNote(a, key) }
        let path = try logPath(a, number: 2)
        var bytes = try AtomicFile.read(path, limit: 1 << 20)
        bytes[bytes.count / 2] ^= 0xFF
        try AtomicFile.write(bytes, to: path)
        #expect(try b.sync().imported.quarantined.count == 1, "b sets the damaged copy aside")
        #expect(try noteKeys(b) == ["one"])
        #expect(try a.sync().repaired == [2])
        _ = try b.sync()
        #expect(try noteKeys(b) == ["one", "three", "two"])
    }

    @Test func aLogDeletedBehindThePeersBackIsWrittenAgain() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        for key in ["one", "two", "three"] { try saveNote(a, key) }
        try FileManager.default.removeItem(atPath: try logPath(a, number: 1))
        #expect(try b.sync().imported.missingPredecessors.first?.number == 1)
        #expect(try a.sync().repaired == [1])
        _ = try b.sync()
        #expect(try noteKeys(b) == ["one", "three", "two"])
    }

    @Test func aLogCollectedOnPurposeIsNotWrittenAgain() throws {
        let cloud = try TestCloud()
        let policy = BaselinePolicy(transactionThreshold: 2, gracePeriod: 3_600)
        let a = try cloud.peer("a", policy: policy), b = try cloud.peer("b", policy: policy)
        for key in ["one", "two", "three"] { try saveNote(a, key) }
        for _ in 0..<3 {
            _ = try b.sync()
            _ = try a.sync()
        }
        let directory = try #require(a.location).logDirectory(of: a.peerID)
        let left = DirectoryEntry.names(directory).compactMap(TransactionLog.transactionNumber(inFileName:))
        #expect(left.count < 3, "the baseline let a collect some of its logs: \(left)")
        #expect(try a.sync().repaired.isEmpty)
        #expect(DirectoryEntry.names(directory).compactMap(TransactionLog.transactionNumber(inFileName:)).sorted() == left.sorted())
    }
}
