import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// What `ubiq status` reports about the files of a container, from one listing of it.
@Suite("Status report")
struct ContainerReportTests {
    @Test func everyFileHasItsState() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", policy: nil), b = try cloud.peer("b", policy: nil)
        for key in ["one", "two"] {
            let context = a.newContext()
            try context.insert("Note", key: key)["title"] = .string(key)
            try context.save()
        }
        _ = try b.importAvailable()
        let context = a.newContext()
        try context.insert("Note", key: "three")["title"] = .string("three")
        try context.save()
        let folder = try #require(a.location).logDirectory(of: a.peerID)
        try AtomicFile.write([1, 2, 3], to: folder + "/.partial.nosync")

        let report = try ContainerReport.make(for: b)
        let states = Dictionary(uniqueKeysWithValues: report.files.map { (($0.path as NSString).lastPathComponent, $0.state) })
        let logs = DirectoryEntry.list(folder).map(\.name).filter { TransactionLog.transactionNumber(inFileName: $0) != nil }.sorted()
        #expect(logs.count == 3)
        #expect(logs.prefix(2).allSatisfy { states[$0] == .current } && states[logs[2]] == .storedInCloud, "\(states)")
        #expect(states[".partial.nosync"] == .excluded)
        #expect(report.files.map(\.path) == report.files.map(\.path).sorted())
        let peerA = try #require(report.peers.first { $0.peerID == a.peerID })
        #expect(peerA.logCount == 3 && peerA.highestLog == 3)
    }
}
