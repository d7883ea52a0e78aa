import Foundation
import Testing
@testable import UbiquityCore

/// Xcode's fetch request templates, fetched properties and configurations: read from both eras'
/// `contents`, kept out of the model's identity, and templates made into requests that fetch.
@Suite("Fetch request templates, fetched properties and configurations")
struct FetchRequestTemplateTests {
    static func model(_ xml: String) throws -> ObjectModel {
        try XcodeModelReader(file: "Notes.xcdatamodel/contents").read(Array(xml.utf8), name: "Notes")
    }

    @Test(arguments: [FetchRequestTemplateFixtures.xcode4, FetchRequestTemplateFixtures.xcode15])
    func everyElementIsReadWithoutNotes(_ xml: String) throws {
        let model = try Self.model(xml)
        #expect(model.fetchRequestTemplates == [
            FetchRequestTemplate(name: "LongerThan", entity: "Note", predicate: "pages >= $PAGES", limit: 2),
            FetchRequestTemplate(name: "NotesTitled", entity: "Note", predicate: "title == $TITLE"),
        ])
        #expect(model.fetchedProperties == [FetchedPropertyDescription(
            name: "longNotes", entity: "Folder",
            request: FetchRequestTemplate(name: "fetchedPropertyFetchRequest", entity: "Note", predicate: "folder == $FETCH_SOURCE AND pages > 10"))])
        #expect(Set(model.configurations.map(\.name)) == ["Cloud", "Local"])
        #expect(Set(model.configurations.first { $0.name == "Cloud" }?.entities ?? []) == ["Folder", "Note"])
        #expect(model.configurations.first { $0.name == "Local" }?.entities == ["Setting"])
        #expect(model.notes.isEmpty, "every attribute Xcode writes on these elements is known")
    }

    @Test func theyLeaveTheModelHashAlone() throws {
        let plain = try Self.model(FetchRequestTemplateFixtures.plain)
        #expect(plain.fetchRequestTemplates.isEmpty && plain.configurations.isEmpty)
        #expect(try Self.model(FetchRequestTemplateFixtures.xcode4).hash == plain.hash)
        #expect(try Self.model(FetchRequestTemplateFixtures.xcode15).hash == plain.hash)
    }

    @Test func unknownEntitiesAreRefusedWithTheLine() throws {
        let xml = FetchRequestTemplateFixtures.xcode15.replacingOccurrences(of: "entity=\"Note\" predicateString=\"title", with: "entity=\"Memo\" predicateString=\"title")
        #expect(throws: ModelError.unsupportedElement(file: "Notes.xcdatamodel/contents", line: 26, element: "fetchRequest",
                                                      reason: "fetch request 'NotesTitled' names an unknown entity 'Memo'")) { try Self.model(xml) }
    }

    @Test func aTemplateTakesTypedVariables() throws {
        let model = try Self.model(FetchRequestTemplateFixtures.xcode15)
        let titled = try model.fetchRequest(fromTemplate: "NotesTitled", substitutionVariables: ["TITLE": .value(.string("Trip"))])
        #expect(titled.entity == "Note" && titled.predicate == .comparison("title", .equal, .string("Trip")))
        let longer = try model.fetchRequest(fromTemplate: "LongerThan", substitutionVariables: ["PAGES": .text("12")])
        #expect(longer.predicate == .comparison("pages", .greaterOrEqual, .integer(12)), "text is read as the attribute's type")
        #expect(longer.limit == 2)
        #expect(throws: FetchTemplateError.missingVariable(template: "LongerThan", variable: "PAGES")) {
            try model.fetchRequest(fromTemplate: "LongerThan")
        }
        #expect(throws: FetchTemplateError.unknownTemplate("Pinned", available: ["LongerThan", "NotesTitled"])) {
            try model.fetchRequest(fromTemplate: "Pinned")
        }
        #expect(throws: FetchTemplateError.invalidPredicate(template: "LongerThan", message: "invalid predicate: 'many' is not a integer32 (for Note.pages) (at character 10)")) {
            try model.fetchRequest(fromTemplate: "LongerThan", substitutionVariables: ["PAGES": .text("many")])
        }
    }

    @Test func templatesAndFetchedPropertiesFetchTheRightObjects() throws {
        let model = try Self.model(FetchRequestTemplateFixtures.xcode4)
        let directory = NSTemporaryDirectory() + "fetch-templates-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try PersistentStore(path: directory + "/a.sqlite", model: model, peerID: "peer~a", storeName: "Store", contentName: "Notes")
        let context = ObjectContext(store: store)
        let trip = try context.insert("Folder", key: "trip"), work = try context.insert("Folder", key: "work")
        for (key, pages, folder) in [("a", 5, trip), ("b", 20, trip), ("c", 30, work), ("d", 11, trip)] {
            let note = try context.insert("Note", key: key)
            note["title"] = .string(key == "c" ? "b" : key)
            note["pages"] = .integer(Int64(pages))
            try note.setTarget(folder.id, of: "folder")
        }
        _ = try context.save()
        func keys(_ request: FetchRequest) throws -> [String] { try store.fetch(request).map(\.id.key) }

        #expect(try keys(model.fetchRequest(fromTemplate: "NotesTitled", substitutionVariables: ["TITLE": .text("b")])) == ["b", "c"])
        #expect(try keys(model.fetchRequest(fromTemplate: "LongerThan", substitutionVariables: ["PAGES": .value(.integer(11))])) == ["b", "c"],
                "the template's limit of 2 holds")
        #expect(try keys(model.fetchRequest(forFetchedProperty: "longNotes", of: trip.id)) == ["b", "d"])
        #expect(try keys(model.fetchRequest(forFetchedProperty: "longNotes", of: work.id)) == ["c"])
        #expect(throws: FetchTemplateError.unknownFetchedProperty(entity: "Note", property: "longNotes", available: [])) {
            try model.fetchRequest(forFetchedProperty: "longNotes", of: GlobalID(entity: "Note", key: "a"))
        }
    }
}
