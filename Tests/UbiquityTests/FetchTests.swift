import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

@Suite("Fetching with predicates, sorting and limits")
struct FetchTests {
    func notesStore() throws -> (TestCloud, UbiquityPeer, [String: GlobalID]) {
        let cloud = try TestCloud()
        let peer = try cloud.peer("solo")
        let context = peer.newContext()
        var ids: [String: GlobalID] = [:]
        let folder = try context.insert("Folder", key: "work")
        for (index, title) in ["apple", "banana", "cherry", "date", "elderberry"].enumerated() {
            let note = try context.insert("Note", key: title)
            note["title"] = .string(title)
            note["pinned"] = .boolean(index % 2 == 0)
            note["created"] = .date(secondsSince1970: 1_000 + Double(index))
            if index < 2 { try note.setTarget(folder.id, of: "folder") }
            if index == 4 { note["body"] = .string("has a body") }
            ids[title] = note.id
        }
        try context.save()
        return (cloud, peer, ids)
    }

    func titles(_ peer: UbiquityPeer, _ text: String?, sort: [FetchSortDescriptor] = [], limit: Int? = nil) throws -> [String] {
        let entity = try peer.store.model.entity(named: "Note")
        let predicate = try text.map { try FetchPredicate.parse($0, entity: entity) }
        return try peer.store.fetch(FetchRequest(entity: "Note", predicate: predicate, sortDescriptors: sort, limit: limit))
            .map { $0.values["title"]!!.stringValue! }
    }

    @Test func predicatesCombineComparisonsWithAndOrNot() throws {
        let (cloud, peer, _) = try notesStore()
        defer { withExtendedLifetime(cloud) {} }   // the cloud outlives its peer
        #expect(try titles(peer, "pinned == true") == ["apple", "cherry", "elderberry"])
        #expect(try titles(peer, "pinned == true AND title != 'cherry'") == ["apple", "elderberry"])
        #expect(try titles(peer, "title == \"banana\" OR (pinned == true && created >= 1004)") == ["banana", "elderberry"])
        #expect(try titles(peer, "NOT pinned == true") == ["banana", "date"])
        #expect(try titles(peer, "title CONTAINS 'rr'") == ["cherry", "elderberry"])
        #expect(try titles(peer, "title BEGINSWITH b") == ["banana"])
        #expect(try titles(peer, "body == nil AND created < 1002") == ["apple", "banana"])
        #expect(try titles(peer, "body != nil") == ["elderberry"])
        #expect(try titles(peer, "folder == 'Folder/work'") == ["apple", "banana"])
    }

    @Test func sortingAndLimits() throws {
        let (cloud, peer, _) = try notesStore()
        defer { withExtendedLifetime(cloud) {} }   // the cloud outlives its peer
        #expect(try titles(peer, nil, sort: [FetchSortDescriptor("created", ascending: false)], limit: 2) == ["elderberry", "date"])
        #expect(try titles(peer, nil, sort: [FetchSortDescriptor("pinned"), FetchSortDescriptor("title", ascending: false)]) == ["date", "banana", "elderberry", "cherry", "apple"])
        #expect(try peer.store.count(FetchRequest(entity: "Note", limit: 1)) == 5)
    }

    @Test func deepButBoundedPredicatesStillParse() throws {
        let entity = try ObjectModel.notes.entity(named: "Note")
        let text = String(repeating: "NOT (", count: 50) + "pinned == true" + String(repeating: ")", count: 50)
        #expect(throws: Never.self) { try FetchPredicate.parse(text, entity: entity) }
    }

    @Test func badPredicatesSayWhatIsWrong() throws {
        let entity = try ObjectModel.notes.entity(named: "Note")
        for (text, message) in [
            ("title ==", "expected a value"),
            ("nosuch == 1", "has no attribute or to-one relationship 'nosuch'"),
            ("pinned == maybe", "'maybe' is not a boolean"),
            ("title ~ 'x'", "unknown operator"),
            ("(title == 'x'", "missing ')'"),
            ("title == 'x", "unterminated string"),
            ("title == 'x' extra", "unexpected 'extra'"),
            // Hostile depth: an error, never a stack overflow (each level is a recursion).
            (String(repeating: "(", count: 5_000) + "title == 'x'" + String(repeating: ")", count: 5_000), "nest deeper than 100 levels"),
            (String(repeating: "NOT ", count: 10_000) + "pinned == true", "nest deeper than 100 levels"),
            (String(repeating: "!(", count: 3_000) + "pinned == true", "nest deeper than 100 levels"),
        ] {
            #expect { try FetchPredicate.parse(text, entity: entity) } throws: { error in
                "\(error)".contains(message)
            }
        }
    }
}
