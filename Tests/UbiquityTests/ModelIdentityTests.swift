import Foundation
import Testing
@testable import Ubiquity

/// The model hash changes exactly when Core Data's `versionHash` of an entity would
/// (Docs/Models.md, "The model hash").
@Suite("Model identity: the hash follows Core Data's versionHash inputs")
struct ModelIdentityTests {
    /// The built-in model's hash names the folders of every existing container
    /// (containers/demo included): it must never change.
    @Test func theBuiltInModelKeepsItsHash() {
        #expect(ObjectModel.notes.hash == "Hk_GtulM2b1CbZWPu5ZNRXcEtCJq0Glup0oSTyOw-dI")
    }

    static let base: [EntityDescription] = [
        EntityDescription("Item", attributes: [
            AttributeDescription("title", .string, optional: false, default: .string("")),
            AttributeDescription("count", .integer32),
        ], relationships: [
            RelationshipDescription("shelf", destination: "Shelf", inverse: "items"),
        ], abstract: true),
        EntityDescription("Book", attributes: [AttributeDescription("isbn", .string)], parent: "Item"),
        EntityDescription("Magazine", parent: "Item"),
        EntityDescription("Shelf", attributes: [AttributeDescription("name", .string)], relationships: [
            RelationshipDescription("items", destination: "Item", inverse: "shelf", toMany: true, deleteRule: .cascade),
            RelationshipDescription("favourite", destination: "Item"),
        ]),
    ]

    static func hash(_ change: (inout [EntityDescription]) -> Void) throws -> String {
        var entities = base
        change(&entities)
        return try ObjectModel(name: "M", entities: entities).hash
    }

    /// Each of these is an input of Core Data's versionHash: each changes the hash.
    @Test(arguments: [
        "entity name", "abstract", "parent", "entity modifier", "attribute name", "attribute type", "optional",
        "transient", "attribute modifier", "relationship name", "destination", "inverse", "to-many", "ordered",
        "min count", "max count", "relationship optional", "relationship transient", "relationship modifier",
        "merge group",
    ])
    func anInputChangesTheHash(_ input: String) throws {
        let original = try Self.hash { _ in }
        let changed = try Self.hash { entities in
            switch input {
            case "entity name": entities[2].name = "Journal"
            case "abstract": entities[0].isAbstract = false
            case "parent": entities[2].parent = nil
            case "entity modifier": entities[1].versionHashModifier = "v2"
            case "attribute name": entities[1].attributes[0].name = "code"
            case "attribute type": entities[0].attributes[1].type = .integer16
            case "optional": entities[1].attributes[0].isOptional = false
            case "transient": entities[1].attributes[0].isTransient = true
            case "attribute modifier": entities[1].attributes[0].versionHashModifier = "x"
            case "relationship name":
                entities[0].relationships[0].name = "place"
                entities[3].relationships[0].inverse = "place"
            case "destination": entities[3].relationships[1].destination = "Book"
            case "inverse":
                entities[0].relationships[0].inverse = nil
                entities[3].relationships[0].inverse = nil
            case "to-many":
                entities[0].relationships[0].isToMany = true
                entities[3].relationships[0].isToMany = false
            case "ordered": entities[3].relationships[0].isOrdered = true
            case "min count": entities[3].relationships[0].minCount = 1
            case "max count": entities[3].relationships[0].maxCount = 9
            case "relationship optional": entities[0].relationships[0].isOptional = false
            case "relationship transient":
                entities[0].relationships[0].isTransient = true
                entities[3].relationships[0].isTransient = true
            case "relationship modifier": entities[0].relationships[0].versionHashModifier = "r"
            case "merge group":
                entities[0].attributes.append(AttributeDescription("subtitle", .string))
                let withAttribute = try! ObjectModel(name: "M", entities: entities).hash
                entities[0].mergeGroups = [["title", "subtitle"]]
                #expect(try! ObjectModel(name: "M", entities: entities).hash != withAttribute)
            default: Issue.record("no change for \(input)")
            }
        }
        #expect(changed != original, "\(input) must change the hash")
    }

    /// None of these is an input: the hash stays.
    @Test(arguments: [
        "default", "validation", "delete rule", "renaming identifier", "external storage", "transformer name",
        "declaration order", "to-one counts", "ordered to-one",
    ])
    func aNonInputKeepsTheHash(_ change: String) throws {
        let original = try Self.hash { _ in }
        let changed = try Self.hash { entities in
            switch change {
            case "default": entities[0].attributes[1].defaultValue = .integer(7)
            case "validation":
                entities[0].attributes[0].validation = AttributeValidation(minLength: 1, maxLength: 9, pattern: "[a-z]+")
                entities[0].attributes[1].validation = AttributeValidation(minimum: .integer(0), maximum: .integer(10))
            case "delete rule": entities[3].relationships[0].deleteRule = .deny
            case "renaming identifier":
                entities[1].renamingIdentifier = "Tome"
                entities[1].attributes[0].renamingIdentifier = "code"
                entities[0].relationships[0].renamingIdentifier = "place"
            case "external storage":
                entities[1].attributes.append(AttributeDescription("cover", .binary))
                let plain = try! ObjectModel(name: "M", entities: entities).hash
                entities[1].attributes[1].allowsExternalBinaryDataStorage = true
                #expect(try! ObjectModel(name: "M", entities: entities).hash == plain)
            case "transformer name":
                entities[1].attributes.append(AttributeDescription("meta", .transformable))
                let plain = try! ObjectModel(name: "M", entities: entities).hash
                entities[1].attributes[1].valueTransformerName = "NSSecureUnarchiveFromData"
                #expect(try! ObjectModel(name: "M", entities: entities).hash == plain)
                entities[1].attributes.removeLast()
            case "declaration order":
                entities.reverse()
                entities[3].attributes.reverse()
            case "to-one counts": entities[0].relationships[0].minCount = 1  // a to-one's counts are implied
            case "ordered to-one": entities[0].relationships[0].isOrdered = true
            default: Issue.record("no change for \(change)")
            }
        }
        if change == "external storage" || change == "transformer name" { return }  // compared inside
        #expect(changed == original, "\(change) must not change the hash")
    }

    /// A model built from another's resolved entities (inherited properties listed on each
    /// sub-entity, transient ones apart) is the same model with the same hash.
    @Test func resolvedEntitiesDeclareTheSameModel() throws {
        var entities = Self.base
        entities[1].attributes.append(AttributeDescription("scratch", .string, transient: true))
        let model = try ObjectModel(name: "M", entities: entities)
        let again = try ObjectModel(name: "M", entities: model.entities)
        #expect(again.hash == model.hash)
        #expect(again == model)
        let book = try #require(model.entity("Book"))
        #expect(book.attributes.map(\.name) == ["title", "count", "isbn"])
        #expect(book.relationships.map(\.name) == ["shelf"])
        #expect(book.transientAttributes.map(\.name) == ["scratch"])
        #expect(model.family(of: "Item") == ["Item", "Book", "Magazine"])
        #expect(model.isKind("Book", of: "Item") && !model.isKind("Item", of: "Book"))
    }

    @Test func inheritanceMistakesAreRefused() {
        #expect(throws: ModelError.unknownParent("A", "Nowhere")) {
            try ObjectModel(name: "x", entities: [EntityDescription("A", parent: "Nowhere")])
        }
        #expect(throws: ModelError.inheritanceCycle("A")) {
            try ObjectModel(name: "x", entities: [EntityDescription("A", parent: "B"), EntityDescription("B", parent: "A")])
        }
        #expect(throws: ModelError.duplicate("property B.a")) {
            try ObjectModel(name: "x", entities: [
                EntityDescription("A", attributes: [AttributeDescription("a", .string)]),
                EntityDescription("B", attributes: [AttributeDescription("a", .integer)], parent: "A"),
            ])
        }
        #expect(throws: ModelError.invalidRule("A.a", "only a transient attribute may be of type undefined")) {
            try ObjectModel(name: "x", entities: [EntityDescription("A", attributes: [AttributeDescription("a", .undefined)])])
        }
        #expect(throws: ModelError.invalidRule("A.a", "its regular expression [a- does not compile")) {
            try ObjectModel(name: "x", entities: [EntityDescription("A", attributes: [
                AttributeDescription("a", .string, validation: AttributeValidation(pattern: "[a-")),
            ])])
        }
        #expect(throws: ModelError.invalidDefault("A.a", expected: .integer16)) {
            try ObjectModel(name: "x", entities: [EntityDescription("A", attributes: [AttributeDescription("a", .integer16, default: .integer(40000))])])
        }
    }
}
