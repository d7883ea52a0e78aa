import Foundation
import Testing
@testable import Ubiquity

/// The classification of each change between two model versions (Docs/Models.md, "Versions").
@Suite("Model diff: what changed and whether the mapping can be inferred")
struct ModelDiffTests {
    static let base: [EntityDescription] = [
        EntityDescription("Note", attributes: [
            AttributeDescription("title", .string, optional: false, default: .string("")),
            AttributeDescription("body", .string),
            AttributeDescription("count", .integer32),
        ], relationships: [
            RelationshipDescription("folder", destination: "Folder", inverse: "notes"),
            RelationshipDescription("tags", destination: "Tag", toMany: true),
        ]),
        EntityDescription("Folder", relationships: [RelationshipDescription("notes", destination: "Note", inverse: "folder", toMany: true)]),
        EntityDescription("Tag", attributes: [AttributeDescription("name", .string)]),
    ]

    static func diff(_ change: (inout [EntityDescription]) -> Void) throws -> ModelDiff {
        var entities = base
        change(&entities)
        return ModelDiff(from: try ObjectModel(name: "A", entities: base), to: try ObjectModel(name: "B", entities: entities))
    }

    /// (what changes, the detail shown, whether Core Data infers it)
    @Test(arguments: [
        ("add optional attribute", "attribute added (date)", true),
        ("add required attribute with default", "attribute added (boolean)", true),
        ("add required attribute", "attribute added (boolean)", false),
        ("remove attribute", "attribute removed (its values are dropped)", true),
        ("rename attribute", "renamed from body", true),
        ("required to optional", "required → optional", true),
        ("optional to required with default", "optional → required, with a default value", true),
        ("optional to required", "optional → required", false),
        ("change type", "type integer32 → integer", false),
        ("to-one to to-many", "to-one → to-many", true),
        ("to-many to to-one", "to-many → to-one", false),
        ("ordered", "unordered → ordered", true),
        ("rename entity", "renamed from Tag", true),
        ("add entity", "entity added", true),
        ("remove entity", "entity removed (its objects are dropped)", true),
        ("new parent", "parent none → Document", true),
        ("merge hierarchies", "parent none → Folder", false),
        ("destination", "destination Tag → Folder", false),
        ("make abstract", "becomes abstract", false),
    ])
    func eachChangeIsClassified(_ change: String, _ detail: String, _ inferred: Bool) throws {
        let diff = try Self.diff { entities in
            switch change {
            case "add optional attribute": entities[0].attributes.append(AttributeDescription("due", .date))
            case "add required attribute with default":
                entities[0].attributes.append(AttributeDescription("done", .boolean, optional: false, default: .boolean(false)))
            case "add required attribute": entities[0].attributes.append(AttributeDescription("done", .boolean, optional: false))
            case "remove attribute": entities[0].attributes.remove(at: 1)
            case "rename attribute":
                entities[0].attributes[1].name = "text"
                entities[0].attributes[1].renamingIdentifier = "body"
            case "required to optional": entities[0].attributes[0].isOptional = true
            case "optional to required with default":
                entities[0].attributes[1].isOptional = false
                entities[0].attributes[1].defaultValue = .string("")
            case "optional to required": entities[0].attributes[1].isOptional = false
            case "change type": entities[0].attributes[2].type = .integer
            case "to-one to to-many": entities[0].relationships[0].isToMany = true  // one-to-many becomes many-to-many
            case "to-many to to-one": entities[0].relationships[1].isToMany = false
            case "ordered": entities[0].relationships[1].isOrdered = true
            case "rename entity":
                entities[2].name = "Label"
                entities[2].renamingIdentifier = "Tag"
                entities[0].relationships[1].destination = "Label"
            case "add entity": entities.append(EntityDescription("Attachment"))
            case "remove entity":
                entities.remove(at: 2)
                entities[0].relationships.remove(at: 1)
            case "new parent":
                entities.append(EntityDescription("Document", abstract: true))
                entities[0].parent = "Document"
            case "merge hierarchies": entities[2].parent = "Folder"
            case "destination": entities[0].relationships[1].destination = "Folder"
            case "make abstract": entities[2].isAbstract = true
            default: Issue.record("no change \(change)")
            }
        }
        #expect(diff.changes.contains { $0.detail == detail }, "\(change): \(diff.textDescription)")
        #expect(diff.canInferMapping == inferred, "\(change): \(diff.textDescription)")
        #expect(!diff.sameHash)
    }

    @Test func changesOutsideTheHashNeedNoMigration() throws {
        let diff = try Self.diff { entities in
            entities[0].attributes[1].defaultValue = .string("…")
            entities[0].attributes[1].validation = AttributeValidation(maxLength: 10)
            entities[1].relationships[0].deleteRule = .cascade
        }
        #expect(diff.sameHash && diff.canInferMapping)
        #expect(diff.changes.map(\.mapping) == [.noMigration, .noMigration])
        #expect(diff.textDescription.hasSuffix("same model hash: no migration, peers on either version share their logs"))
        #expect(try Self.diff { _ in }.changes.isEmpty)
    }
}
