import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// A device whose own folder in the cloud was replaced by a symbolic link (a sync tool, a
/// script, an attacker) would refuse every write for ever: sync moves the link aside, never
/// following it, makes the folder again and writes its logs from its copies.
@Suite("A device takes its own folder back")
struct OwnFolderReclaimTests {
    func save(_ peer: UbiquityPeer, _ title: String) throws {
        let context = peer.newContext()
        try context.insert("Note").set("title", title)
        try context.save()
    }

    func logNames(_ folder: String) -> [String] {
        DirectoryEntry.list(folder).map(\.name).filter { $0.hasSuffix(".1.cdt") }
    }

    @Test("its peer folder made a link: moved aside, written again, the link's target untouched")
    func aLinkInPlaceOfThePeerFolder() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        for index in 0..<3 { try save(a, "n\(index)") }
        _ = try a.sync()
        let location = try #require(a.location)
        let peerFolder = location.peerDirectory(of: a.peerID)
        let elsewhere = cloud.root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.removeItem(atPath: peerFolder)
        try FileManager.default.createSymbolicLink(atPath: peerFolder, withDestinationPath: elsewhere)

        try save(a, "after the link")
        let summary = try a.sync()
        #expect(summary.exportError == nil, "\(String(describing: summary.exportError))")
        #expect(summary.repaired == [1, 2, 3], "the three logs that went with the folder are written again")
        #expect(try #require(DirectoryEntry.at(peerFolder)).isDirectory)
        #expect(logNames(location.logDirectory(of: a.peerID)).count == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty, "nothing was written through the link")
        let aside = DirectoryEntry.list(location.ubiquityRoot).filter { $0.name.hasPrefix(".\(a.peerID).moved-aside-") && $0.name.hasSuffix(".nosync") }
        #expect(aside.count == 1 && aside.first?.kindIfNotRegular == "a symbolic link", "\(aside.map(\.name))")

        _ = try b.sync()
        #expect(try b.store.count(FetchRequest(entity: "Note")) == 4)
        #expect(try a.dumpText() == b.dumpText())
    }

    @Test("its model folder made a link to another peer's: moved aside, that peer's folder untouched, every later save travels")
    func aLinkInPlaceOfTheModelFolder() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try save(a, "first")
        _ = try a.sync()
        try save(b, "b's")
        _ = try b.sync()
        let location = try #require(a.location)
        let folder = location.logDirectory(of: a.peerID), others = location.logDirectory(of: b.peerID)
        let before = logNames(others)
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: others)

        try save(a, "second")
        #expect(try a.sync().exportError == nil)
        #expect(try #require(DirectoryEntry.at(folder)).isDirectory && logNames(folder).count == 2)
        #expect(logNames(others) == before, "nothing was written into the other peer's folder")
        _ = try b.sync()
        #expect(try b.store.count(FetchRequest(entity: "Note")) == 3)
    }

    @Test("a regular file in place of its folder stops its writes, as an unreachable cloud does, and loses nothing")
    func aFileInPlaceOfTheFolderIsLeft() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a")
        try save(a, "first")
        _ = try a.sync()
        let location = try #require(a.location)
        let folder = location.peerDirectory(of: a.peerID)
        try FileManager.default.moveItem(atPath: folder, toPath: cloud.root + "/away")
        try AtomicFile.write([0], to: folder)
        try save(a, "second")
        let summary = try a.sync()
        #expect(summary.exportError != nil && summary.outboxPending >= 1, "\(String(describing: summary.exportError))")
        #expect(try #require(DirectoryEntry.at(folder)).isRegularFile)
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.moveItem(atPath: cloud.root + "/away", toPath: folder)
        #expect(try a.sync().exportError == nil)
        #expect(logNames(location.logDirectory(of: a.peerID)).count == 2)
    }
}
