import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// A container that writes XML logs must not change a value XML cannot hold: the
/// log holding it is written in binary instead, and readers take either format.
@Suite("XML logs and control characters")
struct XMLLogControlCharacterTests {
    @Test func titleWithU0001ArrivesByteIdenticalFromAnXMLLogContainer() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", format: .xml), b = try cloud.peer("b", format: .xml)
        let context = a.newContext()
        let plain = try context.insert("Note")
        plain["title"] = .string("plain")
        try context.save()
        // (Not U+0000: the SQLite layer binds text up to the first NUL, a separate matter.)
        let title = "bell\u{1}here\u{1F}\u{B}end\u{FFFF}"
        let note = try context.insert("Note")
        note["title"] = .string(title)
        try context.save()

        // The first log is XML as configured; the second, which XML cannot hold, binary.
        let location = try #require(a.location)
        let directory = location.logDirectory(of: a.store.peerID)
        let logs = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let heads = try logs.map { String(decoding: try AtomicFile.read(directory + "/" + $0, limit: 1 << 20).prefix(8), as: UTF8.self) }
        #expect(heads.sorted() == ["<?xml ve", "bplist00"], "\(logs)")

        let summary = try b.sync()
        #expect(summary.imported.applied.count == 2)
        let seen = try #require(try b.store.snapshot(of: note.id))
        guard case let .string(received)? = seen.values["title"] else {
            Issue.record("no title on b: \(seen.values)")
            return
        }
        #expect(Array(received.utf8) == Array(title.utf8))
        #expect(try a.dumpText() == b.dumpText())
    }
}
