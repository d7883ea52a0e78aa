import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// The NSPredicate operators a Core Data user expects: modifiers, IN, LIKE, BEGINSWITH,
/// ENDSWITH, MATCHES, key paths through to-ones, ANY/ALL/NONE and @count, offset and limit,
/// case-insensitive sorts — and one clear error line with its position for bad input.
@Suite("Fetching with NSPredicate's operators, key paths, offsets and case-insensitive sorts")
struct FetchPredicateTests {
    /// Folders Trip (3 notes) and Home (1); tags food and travel.
    func store() throws -> (TestCloud, UbiquityPeer) {
        let cloud = try TestCloud()
        let peer = try cloud.peer("solo")
        let context = peer.newContext()
        let trip = try context.insert("Folder", key: "trip")
        trip["name"] = .string("Trip")
        let home = try context.insert("Folder", key: "home")
        home["name"] = .string("Home")
        let food = try context.insert("Tag", key: "food")
        food["name"] = .string("food")
        let travel = try context.insert("Tag", key: "travel")
        travel["name"] = .string("Travel")
        for (key, title, folder, tags) in [("cafe", "Café de Flore", trip, [food, travel]), ("train", "train times", trip, [travel]),
                                           ("museum", "Musée d'Orsay", trip, []), ("milk", "Milk", home, [food]),
                                           ("loose", "loose ends", nil, [])] {
            let note = try context.insert("Note", key: key)
            note["title"] = .string(title)
            if let folder { try note.setTarget(folder.id, of: "folder") }
            for tag in tags { try note.add(tag.id, to: "tags") }
        }
        try context.save()
        return (cloud, peer)
    }

    func keys(_ peer: UbiquityPeer, _ text: String?, entity: String = "Note", sort: [FetchSortDescriptor] = [],
              limit: Int? = nil, offset: Int = 0) throws -> [String] {
        let description = try peer.store.model.entity(named: entity)
        let predicate = try text.map { try FetchPredicate.parse($0, entity: description, model: peer.store.model) }
        return try peer.store.fetch(FetchRequest(entity: entity, predicate: predicate, sortDescriptors: sort, limit: limit, offset: offset))
            .map { String($0.id.description.split(separator: "/")[1]) }
    }

    @Test func caseAndDiacriticModifiers() throws {
        let (cloud, peer) = try store()
        defer { withExtendedLifetime(cloud) {} }   // the cloud outlives its peer
        #expect(try keys(peer, "title == 'milk'") == [])
        #expect(try keys(peer, "title ==[c] 'milk'") == ["milk"])
        #expect(try keys(peer, "title BEGINSWITH[c] 'cafe'") == [], "é is not e without [d]")
        #expect(try keys(peer, "title BEGINSWITH[cd] 'cafe'") == ["cafe"])
        #expect(try keys(peer, "title CONTAINS[d] 'Musee'") == ["museum"])
        #expect(try keys(peer, "title CONTAINS[c] 'TIMES'") == ["train"])
        #expect(try keys(peer, "title !=[c] 'MILK' AND title ENDSWITH[cd] 'E'") == ["cafe"])
    }

    @Test func inLikeEndsWithAndMatches() throws {
        let (cloud, peer) = try store()
        defer { withExtendedLifetime(cloud) {} }   // the cloud outlives its peer
        #expect(try keys(peer, "title IN {'Milk', 'loose ends'}") == ["loose", "milk"])
        #expect(try keys(peer, "title IN ('milk')") == [])
        #expect(try keys(peer, "title IN[c] {'milk', \"TRAIN TIMES\"}") == ["milk", "train"])
        #expect(try keys(peer, "title LIKE 'M*'") == ["milk", "museum"])
        #expect(try keys(peer, "title LIKE 'Mil?'") == ["milk"])
        #expect(try keys(peer, "title LIKE 'Mi?'") == [], "LIKE matches the whole string")
        #expect(try keys(peer, "title LIKE[c] '*E*'") == ["cafe", "loose", "museum", "train"])
        #expect(try keys(peer, "title LIKE 'a.b'") == [], "a dot is a dot in LIKE")
        #expect(try keys(peer, "title ENDSWITH 'ends'") == ["loose"])
        #expect(try keys(peer, "title BEGINSWITH 'Mu'") == ["museum"])
        #expect(try keys(peer, "title MATCHES '[a-z ]+'") == ["loose", "train"])
        #expect(try keys(peer, "title MATCHES 'train'") == [], "MATCHES matches the whole string, as NSPredicate's")
        #expect(try keys(peer, "title MATCHES[c] 'MILK'") == ["milk"])
    }

    @Test func keyPathsThroughToOnesAndAcrossToManys() throws {
        let (cloud, peer) = try store()
        defer { withExtendedLifetime(cloud) {} }   // the cloud outlives its peer
        #expect(try keys(peer, "folder.name == 'Trip'") == ["cafe", "museum", "train"])
        #expect(try keys(peer, "folder.name ==[c] 'home' OR folder == nil") == ["loose", "milk"])
        #expect(try keys(peer, "ANY tags.name == 'food'") == ["cafe", "milk"])
        #expect(try keys(peer, "ANY tags.name ==[c] 'travel' AND NOT ANY tags.name == 'food'") == ["train"])
        #expect(try keys(peer, "ALL tags.name BEGINSWITH[c] 't'") == ["loose", "museum", "train"], "ALL of no members holds")
        #expect(try keys(peer, "NONE tags.name == 'food'") == ["loose", "museum", "train"])
        #expect(try keys(peer, "notes.@count > 2", entity: "Folder") == ["trip"])
        #expect(try keys(peer, "notes.@count == 1", entity: "Folder") == ["home"])
        #expect(try keys(peer, "tags.@count >= 1 AND folder.name == 'Trip'") == ["cafe", "train"])
        #expect(try keys(peer, "ANY notes.folder.name == 'Home'", entity: "Tag") == ["food"])
    }

    @Test func offsetLimitAndCaseInsensitiveSorts() throws {
        let (cloud, peer) = try store()
        defer { withExtendedLifetime(cloud) {} }   // the cloud outlives its peer
        let byTitle = [FetchSortDescriptor("title")]
        #expect(try keys(peer, nil, sort: byTitle) == ["cafe", "milk", "museum", "loose", "train"], "bytes: capitals first")
        let folded = [FetchSortDescriptor("title", caseInsensitive: true)]
        #expect(try keys(peer, nil, sort: folded) == ["cafe", "loose", "milk", "museum", "train"])
        #expect(try keys(peer, nil, sort: [FetchSortDescriptor("title", ascending: false, caseInsensitive: true)]) == ["train", "museum", "milk", "loose", "cafe"])
        #expect(try keys(peer, nil, sort: folded, limit: 2, offset: 1) == ["loose", "milk"])
        #expect(try keys(peer, nil, sort: byTitle, limit: 2, offset: 3) == ["loose", "train"], "offset in SQL too")
        #expect(try keys(peer, nil, sort: byTitle, offset: 4) == ["train"])
        #expect(try keys(peer, nil, sort: byTitle, offset: 9) == [])
        #expect(try keys(peer, "folder.name == 'Trip'", sort: folded, limit: 1, offset: 1) == ["museum"])
        let predicate = try FetchPredicate.parse("folder.name == 'Trip'", entity: peer.store.model.entity(named: "Note"), model: peer.store.model)
        #expect(try peer.store.count(FetchRequest(entity: "Note", predicate: predicate, limit: 1, offset: 1)) == 3, "count ignores offset and limit")
    }

    @Test func badPredicatesGetOneLineNamingThePosition() throws {
        let (cloud, peer) = try store()
        defer { withExtendedLifetime(cloud) {} }   // the cloud outlives its peer
        let note = try peer.store.model.entity(named: "Note")
        for (text, message) in [
            ("title LIKES 'x'", "unknown operator 'LIKES' (use == != < <= > >= CONTAINS BEGINSWITH ENDSWITH LIKE MATCHES IN) (at character 7)"),
            ("title ==[x] 'a'", "a modifier is [c], [d] or [cd], not '[x]' (at character 9)"),
            ("title MATCHES '('", "'(' is not a valid regular expression (at character 7)"),
            ("folder.nope == 'x'", "entity Folder has no property 'nope' (at character 1)"),
            ("tags.name == 'x'", "'tags.name' goes through a to-many relationship: put ANY, ALL or NONE in front, or count it with @count (at character 1)"),
            ("tags == 'x'", "Note.tags is a to-many relationship: compare its @count or a key path through it (at character 1)"),
            ("title IN 'x'", "IN takes a list: {'a', 'b'} (at character 10)"),
            ("title IN {'a' 'b'}", "expected ',' or '}' in the list, not 'b' (at character 15)"),
            ("title IN {'a',", "missing '}' at the end of the list (at character 15)"),
            ("tags.@count > many", "'many' is not a integer (for Note.tags.@count) (at character 15)"),
            ("(title == 'x' OR pinned == true", "missing ')' for the '(' at character 1 (at character 32)"),
            ("title == 'x", "unterminated string (at character 10)"),
            ("title == 'x' extra", "unexpected 'extra' after the end of the predicate (at character 14)"),
            ("title.name == 'x'", "Note.title is an attribute; a key path cannot go on after it (at character 1)"),
        ] {
            #expect { try FetchPredicate.parse(text, entity: note, model: peer.store.model) } throws: { error in
                let line = "\(error)"
                return line == "invalid predicate: " + message && !line.contains("\n")
            }
        }
        #expect(throws: PredicateParseError.self) { try FetchPredicate.parse("folder.name == 'x'", entity: note) }
    }
}
