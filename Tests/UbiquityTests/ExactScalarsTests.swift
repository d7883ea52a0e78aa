import Foundation
import Testing
import UbiquityBase
import UbiquityPlist
import UbiquityTestSupport
@testable import Ubiquity
@testable import UbiquityCore

/// A key and a string value are their exact Unicode scalars, as SQLite and NSString compare
/// them: "café" with a precomposed é (U+00E9) and "café" with e and a combining acute (U+0301)
/// are two texts in every layer, though Swift's `String` calls them equal.
@Suite("Strings and keys are their exact scalars")
struct ExactScalarsTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    static func scalars(_ value: AttributeValue??) -> [UInt32]? {
        guard case let .string(text)?? = value else { return nil }
        return text.unicodeScalars.map(\.value)
    }

    static func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }

    /// One log holding both forms as two values of one object and as the keys of two objects:
    /// each writer's bytes read back with the exact scalars and a checksum that verifies.
    @Test func everyWriterKeepsBothForms() throws {
        #expect(Self.composed == Self.decomposed, "the premise: Swift's String calls the two equal")
        let model = ObjectModel.notes, peer = "author~00000000-0000-0000-0000-0000000000b2"
        let one = try GlobalID(entity: "Note", key: Self.composed), other = try GlobalID(entity: "Note", key: Self.decomposed)
        #expect(one != other)
        #expect(Set([one, other]).count == 2)
        let records = [
            ChangeRecord(id: one, values: ["title": .string(Self.composed), "body": .string(Self.decomposed)]),
            ChangeRecord(id: other, values: ["title": .string(Self.decomposed), "body": .string(Self.composed)]),
        ]
        let log = TransactionLog(peerID: peer, transactionNumber: 1, knowledge: KnowledgeVector([peer: 1]),
                                 stamp: Stamp(wallMilliseconds: 1_700_000_000_000, counter: 0, peerID: peer), transactionDate: 1_700_000_000,
                                 modelVersionHash: model.hash, storeName: "Notes", contentName: "Notes", inserted: records, updated: [], deleted: [])
        let outputs: [(String, [UInt8])] = [("log writer", log.encodedBinary()), ("binary tree writer", log.encoded(format: .binary)),
                                            ("XML writer", log.encoded(format: .xml))]
        for (writer, bytes) in outputs {
            let read = try TransactionLog(decoding: bytes, model: model)  // throws on a checksum mismatch
            #expect(read.inserted.count == 2, "\(writer)")
            #expect(Set(read.inserted.map(\.id)) == [one, other], "\(writer)")
            for record in read.inserted {
                let first = Self.scalars(record.id.key) == Self.scalars(Self.composed)
                #expect(Self.scalars(record.values["title"]) == Self.scalars(first ? Self.composed : Self.decomposed), "\(writer)")
                #expect(Self.scalars(record.values["body"]) == Self.scalars(first ? Self.decomposed : Self.composed), "\(writer)")
            }
            // The plist alone, read back, is the value that was written (strings by scalars).
            let plist = try PropertyListCodec.decode(bytes)
            #expect(plist == log.plistValue, "\(writer)")
        }
        #expect(log.encodedBinary() == log.encoded(format: .binary))
    }

    /// Two peers, each log format: one save with both forms in one object and as two natural
    /// keys, then a save of each key alone. Nothing is quarantined, the author keeps exporting,
    /// and both peers hold four distinct objects with their exact scalars.
    @Test(arguments: [PlistFormat.binary, .xml])
    func twoPeersConvergeOnDistinctObjects(format: PlistFormat) throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a", format: format), b = try cloud.peer("b", format: format)
        let context = a.newContext()
        let plain = try context.insert("Note")
        plain["title"] = .string(Self.composed)
        plain["body"] = .string(Self.decomposed)
        let keyed = [try context.insert("Note", key: Self.composed), try context.insert("Note", key: Self.decomposed)]
        keyed[0]["title"] = .string("first")
        keyed[1]["title"] = .string("second")
        try context.save()
        let first = try b.sync()
        #expect(first.imported.quarantined.isEmpty, "\(first.imported.quarantined)")
        #expect(first.imported.changes.inserted.count == 3)

        // Separate saves of the two forms as keys.
        let later = a.newContext()
        let composedOnly = try later.insert("Note", key: "only " + Self.composed)
        composedOnly["title"] = .string(Self.composed)
        try later.save()
        let decomposedOnly = try later.insert("Note", key: "only " + Self.decomposed)
        decomposedOnly["title"] = .string(Self.decomposed)
        try later.save()
        let second = try b.sync()
        #expect(second.imported.quarantined.isEmpty, "\(second.imported.quarantined)")
        #expect(second.imported.applied.count == 2)
        #expect(second.imported.changes.inserted.count == 2)

        for peer in [a, b] {
            let notes = try peer.store.fetch(FetchRequest(entity: "Note"))
            #expect(notes.count == 5)
            let seen = try #require(try peer.store.snapshot(of: plain.id))
            #expect(Self.scalars(seen.values["title"]) == Self.scalars(Self.composed))
            #expect(Self.scalars(seen.values["body"]) == Self.scalars(Self.decomposed))
            for (object, title) in [(keyed[0], "first"), (keyed[1], "second"),
                                    (composedOnly, Self.composed), (decomposedOnly, Self.decomposed)] {
                let snapshot = try #require(try peer.store.snapshot(of: object.id))
                #expect(Self.scalars(snapshot.values["title"]) == Self.scalars(title))
                #expect(Self.scalars(snapshot.id.key) == Self.scalars(object.id.key))
            }
        }
        #expect(try a.dumpText() == b.dumpText())
        #expect(try a.mergeStateText() == b.mergeStateText())
    }

    /// A title changed from one form to the other is a change: saved, logged and imported.
    @Test func changingTheFormIsAChange() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        let context = a.newContext()
        let note = try context.insert("Note")
        note["title"] = .string(Self.composed)
        try context.save()
        _ = try b.sync()
        let editing = a.newContext()
        let edited = try #require(try editing.object(note.id))
        edited["title"] = .string(Self.decomposed)
        let saved = try editing.save()
        #expect(saved != nil, "a change of form is a change to save")
        let own = try #require(try a.store.snapshot(of: note.id))
        #expect(Self.scalars(own.values["title"]) == Self.scalars(Self.decomposed))
        let summary = try b.sync()
        #expect(summary.imported.applied.count == 1)
        let seen = try #require(try b.store.snapshot(of: note.id))
        #expect(Self.scalars(seen.values["title"]) == Self.scalars(Self.decomposed))
    }

    /// A UTF-16 string with an unpaired surrogate cannot be read as written: the log is
    /// quarantined for that reason, never read with U+FFFD in its place.
    @Test func loneSurrogateInABinaryLogIsQuarantined() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        let context = a.newContext()
        let note = try context.insert("Note")
        note["title"] = .string("x\u{E9}x")
        try context.save()
        let path = try #require(try Self.logFiles(in: cloud.cloud).first)
        var bytes = try #require(FileManager.default.contents(atPath: path).map { [UInt8]($0) })
        let utf16: [UInt8] = [0x00, 0x78, 0x00, 0xE9, 0x00, 0x78]
        let at = try #require(Self.firstRange(of: utf16, in: bytes))
        bytes[at + 2] = 0xD8; bytes[at + 3] = 0x00
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let summary = try b.sync()
        let reason = try #require(summary.imported.quarantined.first?.reason)
        #expect(reason.contains("unpaired surrogate"), "\(reason)")
        #expect(try b.store.snapshot(of: note.id) == nil)
    }

    /// An XML log whose text is not UTF-8 (a byte 0xFF; a character reference to a
    /// surrogate) is refused as unreadable, not read with U+FFFD in its place.
    @Test func invalidTextInAnXMLLogIsRefused() throws {
        let model = ObjectModel.notes, peer = "author~00000000-0000-0000-0000-0000000000b2"
        let record = ChangeRecord(id: GlobalID(entity: "Note"), values: ["title": .string("x\u{E9}x")])
        let log = TransactionLog(peerID: peer, transactionNumber: 1, knowledge: KnowledgeVector([peer: 1]),
                                 stamp: Stamp(wallMilliseconds: 1_700_000_000_000, counter: 0, peerID: peer), transactionDate: 1_700_000_000,
                                 modelVersionHash: model.hash, storeName: "Notes", contentName: "Notes", inserted: [record], updated: [], deleted: [])
        let bytes = log.encoded(format: .xml)
        let at = try #require(Self.firstRange(of: Array("x\u{E9}x".utf8), in: bytes))
        var invalid = bytes
        invalid.replaceSubrange(at ..< at + 4, with: [0x78, 0xFF, 0x78])
        var surrogate = bytes
        surrogate.replaceSubrange(at ..< at + 4, with: Array("x&#xD800;x".utf8))
        for damaged in [invalid, surrogate] {
            #expect(throws: (any Error).self) { try PropertyListCodec.decode(damaged) }
            do {
                _ = try TransactionLog(decoding: damaged, model: model)
                Issue.record("a log with text that is not UTF-8 was read")
            } catch {
                #expect(!"\(error)".contains("checksum"), "refused as unreadable, not read as other text: \(error)")
            }
        }
    }

    /// A dictionary whose keys differ only in normalisation cannot be held by a `PlistValue`:
    /// every reader refuses it rather than keep one of the two.
    @Test func dictionaryKeysDifferingInNormalisationAreRefused() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>\(Self.composed)</key><string>1</string><key>\(Self.decomposed)</key><string>2</string></dict></plist>
            """
        #expect(throws: PlistError.self) { try PropertyListCodec.decode(Array(xml.utf8)) }
        let json = "{\"\(Self.composed)\": 1, \"\(Self.decomposed)\": 2}"
        #expect(throws: PlistError.self) { try PlistDocument(decoding: Array(json.utf8)) }
        // A binary plist of that dictionary, put together by hand: two one-key dictionaries'
        // files spliced would be long; instead write one key, then change its scalars.
        let single = PropertyListCodec.encodeBinary(.dictionary([Self.composed: .string("1"), "cafX\u{301}": .string("2")]))
        let marker = try #require(Self.firstRange(of: [0x00, 0x58, 0x03, 0x01], in: single))  // "X" before U+0301
        var spliced = single
        spliced[marker + 1] = 0x65  // "cafe\u{301}"
        #expect(throws: PlistError.self) { try PropertyListCodec.decode(spliced) }
    }

    /// The files under `root` holding the UTF-16 text "xé".
    static func logFiles(in root: String) throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            guard let bytes = FileManager.default.contents(atPath: root + "/" + path).map({ [UInt8]($0) }) else { continue }
            if firstRange(of: [0x00, 0x78, 0x00, 0xE9], in: bytes) != nil { found.append(root + "/" + path) }
        }
        return found
    }

    static func firstRange(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        for start in 0 ... bytes.count - needle.count where bytes[start ..< start + needle.count].elementsEqual(needle) { return start }
        return nil
    }
}
