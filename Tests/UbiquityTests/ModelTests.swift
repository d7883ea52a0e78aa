import Foundation
import Testing
@testable import Ubiquity

@Suite("Models: validation, hash, model files")
struct ModelTests {
    static let everyType = try! ObjectModel(name: "Everything", entities: [
        EntityDescription("Thing", attributes: [
            AttributeDescription("text", .string, optional: false, default: .string("")),
            AttributeDescription("count", .integer, default: .integer(-7)),
            AttributeDescription("ratio", .double, default: .double(0.5)),
            AttributeDescription("flag", .boolean, optional: false, default: .boolean(true)),
            AttributeDescription("when", .date, default: .date(secondsSince1970: 1_700_000_000.123)),
            AttributeDescription("blob", .binary, default: .binary([0, 1, 255])),
            AttributeDescription("ident", .uuid, default: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
            AttributeDescription("street", .string), AttributeDescription("city", .string),
        ], relationships: [
            RelationshipDescription("parent", destination: "Thing", inverse: "children"),
            RelationshipDescription("children", destination: "Thing", inverse: "parent", toMany: true, deleteRule: .cascade),
            RelationshipDescription("labels", destination: "Label", inverse: "things", toMany: true, deleteRule: .deny),
            RelationshipDescription("favourite", destination: "Label"),
        ], mergeGroups: [["street", "city"]]),
        EntityDescription("Label", relationships: [RelationshipDescription("things", destination: "Thing", inverse: "labels", toMany: true)]),
    ])

    @Test func modelFilesRoundTripWithTheSameHash() throws {
        for format in [PlistFormatChoice.xml, .binary] {
            let bytes = Self.everyType.fileContents(format: format.value)
            let path = NSTemporaryDirectory() + "model-\(UUID().uuidString).plist"
            try AtomicFile.write(bytes, to: path)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let loaded = try ObjectModel.load(contentsOf: path)
            #expect(loaded == Self.everyType)
            #expect(loaded.hash == Self.everyType.hash)
        }
    }

    @Test func theHashIgnoresOrderDefaultsAndDeleteRulesButNotShape() throws {
        var reordered = Self.everyType.entities.reversed().map { $0 }
        reordered[1].attributes.reverse()
        reordered[1].relationships[1].deleteRule = .nullify
        reordered[1].attributes[0].defaultValue = nil
        #expect(try ObjectModel(name: "Other", entities: reordered).hash == Self.everyType.hash)
        var changed = Self.everyType.entities
        changed[0].attributes[1].type = .double
        changed[0].attributes[1].defaultValue = nil
        #expect(try ObjectModel(name: "Everything", entities: changed).hash != Self.everyType.hash)
        #expect(Self.everyType.hash.count == 43, "unpadded base64 of 32 bytes")
        #expect(!Self.everyType.hash.contains("/") && !Self.everyType.hash.contains("+") && !Self.everyType.hash.contains("="))
    }

    @Test func invalidModelsAreRefusedWithTheReason() {
        #expect(throws: ModelError.unknownDestination("A.b", "Nowhere")) {
            try ObjectModel(name: "x", entities: [EntityDescription("A", relationships: [RelationshipDescription("b", destination: "Nowhere")])])
        }
        #expect(throws: ModelError.inverseMismatch("A.b", "B.a")) {
            try ObjectModel(name: "x", entities: [
                EntityDescription("A", relationships: [RelationshipDescription("b", destination: "B", inverse: "a")]),
                EntityDescription("B", relationships: [RelationshipDescription("a", destination: "A")]),
            ])
        }
        #expect(throws: ModelError.invalidName("attribute", "A.../x")) {
            try ObjectModel(name: "x", entities: [EntityDescription("A", attributes: [AttributeDescription("../x", .string)])])
        }
        #expect(throws: ModelError.invalidMergeGroup("A", ["a"])) {
            try ObjectModel(name: "x", entities: [EntityDescription("A", attributes: [AttributeDescription("a", .string)], mergeGroups: [["a"]])])
        }
        #expect(throws: ModelError.invalidDefault("A.a", expected: .integer)) {
            try ObjectModel(name: "x", entities: [EntityDescription("A", attributes: [AttributeDescription("a", .integer, default: .string("1"))])])
        }
    }

    /// `containers/models/Notes.plist` is the built-in model's file. Regenerate it with
    /// `UBIQUITY_WRITE_FIXTURES=1 swift test --filter theNotesModelFile`.
    @Test func theNotesModelFileIsTheBuiltInModel() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("containers/models/Notes.plist").path
        if ProcessInfo.processInfo.environment["UBIQUITY_WRITE_FIXTURES"] == "1" {
            try AtomicFile.write(ObjectModel.notes.fileContents(format: .xml), to: path)
        }
        let loaded = try ObjectModel.load(contentsOf: path)
        #expect(loaded == ObjectModel.notes)
        #expect(loaded.hash == ObjectModel.notes.hash)
    }
}

import UbiquityPlist

/// Plist formats as test arguments.
enum PlistFormatChoice {
    case xml, binary
    var value: PlistFormat { self == .xml ? .xml : .binary }
}
