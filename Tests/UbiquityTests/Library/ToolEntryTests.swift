import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// The library entries the CLI's commands call (`soak`, `get`, `insert`/`update` with `@FILE`,
/// `store`), used without the CLI.
@Suite("Tool entries: SoakRun, AttributeValueRead, AttributeFileValues, StoreHandover")
struct ToolEntryTests {
    @Test func aSoakRunSavesEachKeyOnceAndARerunSkipsTheSavedOnes() throws {
        let cloud = try TestCloud()
        let peer = try cloud.peer("ann")
        var saved: [String] = []
        try SoakRun(entity: "Note", prefix: "s-", count: 3).run(on: peer) { saved.append($0.description) }
        #expect(saved == ["Note/s-0", "Note/s-1", "Note/s-2"])
        // A killed run runs again: only the keys not saved yet are saved and reported.
        saved.removeAll()
        try SoakRun(entity: "Note", prefix: "s-", count: 5).run(on: peer) { saved.append($0.description) }
        #expect(saved == ["Note/s-3", "Note/s-4"])
        #expect(try peer.store.count(FetchRequest(entity: "Note")) == 5)
        #expect(throws: ModelError.self) { try SoakRun(entity: "Nope", prefix: "s-", count: 1).run(on: peer) { _ in } }
    }

    @Test func anAttributeValueReadsAsTextOrRawBytesAndNamesWhatIsMissing() throws {
        let cloud = try TestCloud()
        let peer = try cloud.peer("ann")
        let context = peer.newContext()
        let note = try context.insert("Note", key: "n")
        try note.set("title", "a\u{0}b")
        try context.save()
        let id = try GlobalID("Note/n")
        let title = try AttributeValueRead("title", of: id, in: peer)
        #expect(title.value == .string("a\u{0}b"))
        var bytes: [UInt8] = []
        try title.writeRaw { bytes += $0 }
        #expect(bytes == Array("a\u{0}b".utf8), "a string is written as UTF-8, U+0000 included")
        let body = try AttributeValueRead("body", of: id, in: peer)
        #expect(body.value == nil)
        #expect(throws: AttributeValueReadError.self) { try body.writeRaw { _ in } }
        #expect((try? body.writeRaw { _ in }) == nil)
        do { try body.writeRaw { _ in } } catch { #expect("\(error)" == "Note/n.body has no value") }
        #expect(throws: ModelError.self) { try AttributeValueRead("colour", of: id, in: peer) }
        #expect(throws: StoreError.self) { try AttributeValueRead("title", of: GlobalID("Note/absent"), in: peer) }
    }

    @Test func aFileValueBecomesBase64OrExternalDataByItsSize() throws {
        let cloud = try TestCloud(model: ExternalDataTests.model, contentName: "Photos")
        let peer = try cloud.peer("ann")
        let entity = try peer.store.model.entity(named: "Photo")
        let small = cloud.root + "/small.bin", large = cloud.root + "/large.bin"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: small))
        let written = try ExternalDataTests.makeFile(large, count: ExternalDataReference.threshold, seed: 7)
        let given = [PropertyAssignment(name: "thumbnail", text: "@small.bin"), PropertyAssignment(name: "image", text: "@large.bin"),
                     PropertyAssignment(name: "caption", text: "@not-a-file")]
        let resolved = try AttributeFileValues.resolve(given, entity: entity, externalData: peer.store.externalData,
                                                       absolutePath: { cloud.root + "/" + $0 })
        #expect(resolved[0] == PropertyAssignment(name: "thumbnail", text: "base64:AQID"))
        #expect(resolved[1].text.hasPrefix("sha256:") && resolved[1].text.hasSuffix(":\(written.size)"),
                "a file of the threshold's size for an attribute allowing external storage goes to external data")
        #expect(resolved[2] == given[2], "a string attribute keeps '@' as text")
        let missing = [PropertyAssignment(name: "thumbnail", text: "@gone.bin")]
        #expect(throws: AttributeFileError.unreadable(path: cloud.root + "/gone.bin", property: "Photo.thumbnail", reason: nil)) {
            try AttributeFileValues.resolve(missing, entity: entity, externalData: peer.store.externalData, absolutePath: { cloud.root + "/" + $0 })
        }
        #expect(AttributeFileError.unreadable(path: "/x", property: "Photo.thumbnail", reason: nil).description == "cannot read /x for Photo.thumbnail")
    }

    @Test func aStoreHandoverReportsTheFirstChoiceAndTheStoreAfterTheImport() throws {
        let cloud = try TestCloud()
        _ = try Device.create(at: cloud.devicePath("ann"), userName: "ann")
        let seen = EventLog<CoordinatorEvent>()
        let first = try StoreHandover.run(configuration: cloud.configuration("ann"), event: { seen.append($0) })
        #expect(first.first.kind == .fallback, "a new device works on the fallback store during the initial import")
        #expect(first.now == .account, "the initial import hands over to the account store")
        #expect(first.events == seen.events && first.events.first.map { "\($0)" } == "did-change store added → fallback store", "\(first.events)")
        var added: [StoreChoice] = []
        let again = try StoreHandover.run(configuration: cloud.configuration("ann"), added: { added.append($0) })
        #expect(added == [again.first] && again.first.kind == .account, "the second launch starts on the account store")
    }
}
