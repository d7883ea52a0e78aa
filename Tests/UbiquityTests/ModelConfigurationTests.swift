import Foundation
import Testing
@testable import UbiquityCore

/// A store opened with a configuration holds its entities only, in a model of its own hash; a
/// configuration that would need a relationship across stores is refused.
@Suite("Model configurations")
struct ModelConfigurationTests {
    static func model() throws -> ObjectModel {
        try XcodeModelReader(file: "Notes.xcdatamodel/contents").read(Array(FetchRequestTemplateFixtures.xcode15.utf8), name: "Notes")
    }

    @Test func aRestrictedModelHoldsTheMembersOnly() throws {
        let model = try Self.model()
        let local = try model.restricted(toConfiguration: "Local")
        #expect(local.entities.map(\.name) == ["Setting"] && local.name == "Notes")
        #expect(local.hash != model.hash, "a configuration's peers share a folder of their own")
        #expect(try model.restricted(toConfiguration: "Local").hash == local.hash)
        let cloud = try model.restricted(toConfiguration: "Cloud")
        #expect(cloud.entities.map(\.name) == ["Folder", "Note"])
        #expect(cloud.fetchRequestTemplates.map(\.name) == ["LongerThan", "NotesTitled"] && local.fetchRequestTemplates.isEmpty)
        #expect(throws: ModelConfigurationError.unknownConfiguration("Phone", available: ["Cloud", "Local"])) {
            try model.restricted(toConfiguration: "Phone")
        }
        var split = model
        split.configurations.append(ModelConfiguration(name: "Folders", entities: ["Folder"]))
        #expect(throws: ModelConfigurationError.relationshipLeavesConfiguration(configuration: "Folders", relationship: "Folder.notes", destination: "Note")) {
            try split.restricted(toConfiguration: "Folders")
        }
    }

    @Test func aStoreOfAConfigurationHasOnlyItsTablesAndRefusesOtherEntities() throws {
        let local = try Self.model().restricted(toConfiguration: "Local")
        let directory = NSTemporaryDirectory() + "configuration-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try PersistentStore(path: directory + "/a.sqlite", model: local, peerID: "peer~a", storeName: "Store", contentName: "Notes")
        let tables = try store.locked { try store.database.statement("SELECT name FROM sqlite_master WHERE type = 'table'").rows { $0.string(0) ?? "" } }
        #expect(tables.contains { $0.contains("Setting") })
        #expect(!tables.contains { $0.contains("Note") || $0.contains("Folder") }, "\(tables)")
        let context = ObjectContext(store: store)
        #expect(throws: ModelError.entityOutsideConfiguration("Note", configuration: "Local")) { try context.insert("Note") }
        let setting = try context.insert("Setting", key: "theme")
        setting["value"] = .string("dark")
        #expect(try context.save() != nil)
    }
}
