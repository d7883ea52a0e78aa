import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// Xcode's model files read as they are (Tests/Fixtures/models, written as Xcode 4, 9 and 16
/// write them; containers/models/Notes.xcdatamodeld, the built-in model drawn in Xcode).
@Suite("Xcode model files: .xcdatamodeld bundles and .xcdatamodel versions")
struct XcodeModelTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("Tests/Fixtures/models").path
    static let library = fixtures + "/Library.xcdatamodeld"

    @Test func aBundleListsItsVersionsAndLoadsTheCurrentOne() throws {
        let bundle = try XcodeModelBundle(path: Self.library)
        #expect(bundle.versions == ["Library", "Library 2", "Library 3"])
        #expect(bundle.currentVersion == "Library 3")
        let current = try ObjectModel.load(contentsOf: Self.library)
        #expect(current.name == "Library 3")
        #expect(current.entities.map(\.name) == ["Author", "Book", "Item", "Magazine", "Shelf", "Tag"])
        var hashes: Set<String> = []
        for version in bundle.versions {
            let model = try ObjectModel.load(contentsOf: Self.library, version: version)
            #expect(model.name == version)
            #expect(try bundle.model(version: version + ".xcdatamodel") == model)
            hashes.insert(model.hash)
        }
        #expect(hashes.count == 3, "each version is another model")
        #expect(throws: ModelError.unreadableFile(Self.library, "no version 'Library 9' (versions: Library, Library 2, Library 3)")) {
            try bundle.model(version: "Library 9")
        }
    }

    @Test func everyTypeInheritanceOrderAndRulesAreRead() throws {
        let model = try ObjectModel.load(contentsOf: Self.library)
        let book = try model.entity(named: "Book"), item = try model.entity(named: "Item")
        #expect(item.isAbstract && book.parent == "Item" && !book.isAbstract)
        #expect(book.attributes.map(\.name) == ["added", "identifier", "title", "copiesSold", "cover", "edition", "inPrint",
                                                "isbn", "link", "metadata", "pages", "price", "rating", "weight"])
        #expect(book.relationships.map(\.name) == ["shelf", "tags", "authors"])
        #expect(book.transientAttributes.map(\.name) == ["scratch"])
        let types = Set(model.entities.flatMap { $0.attributes.map(\.type) })
        #expect(types == Set(AttributeType.allCases).subtracting([.undefined]), "every Core Data type but Undefined is in the fixture")
        #expect(model.family(of: "Item") == ["Item", "Book", "Magazine"])

        #expect(book.attribute("pages")?.type == .integer16)
        #expect(book.attribute("pages")?.validation == AttributeValidation(minimum: .integer(1), maximum: .integer(10000)))
        #expect(book.attribute("price")?.defaultValue == .decimal(.zero))
        #expect(book.attribute("price")?.validation.minimum == .decimal(.zero))
        #expect(book.attribute("rating")?.validation.maximum == .float(5))
        #expect(book.attribute("isbn")?.validation.pattern == "[0-9]{9}[0-9X]")
        #expect(book.attribute("inPrint")?.defaultValue == .boolean(true) && book.attribute("inPrint")?.isOptional == false)
        #expect(book.attribute("cover")?.allowsExternalBinaryDataStorage == true)
        #expect(book.attribute("metadata")?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(book.attribute("weight")?.versionHashModifier == "grams")
        #expect(item.attribute("title")?.validation == AttributeValidation(minLength: 1, maxLength: 200))
        // Xcode writes dates as seconds since 2001.
        #expect(item.attribute("added")?.defaultValue == .date(secondsSince1970: 694_224_000 + 978_307_200))
        let born = try model.entity(named: "Author").attribute("born")
        #expect(born?.validation.minimum == .date(secondsSince1970: -31_622_400_000 + 978_307_200))
        let shelf = try model.entity(named: "Shelf")
        let items = try #require(shelf.relationship("items"))
        #expect(items.isToMany && items.isOrdered && items.maxCount == 500 && items.deleteRule == .cascade && items.inverse == "shelf")
        #expect(try model.entity(named: "Tag").versionHashModifier == "2")
        #expect(model.storage(of: try #require(book.relationship("tags")), in: book) == .pairTable(owner: "Item", relationship: "tags", selfIsSource: true),
                "an inherited relationship is stored as its declaring entity's")

        let version2 = try ObjectModel.load(contentsOf: Self.library, version: "Library 2")
        let renamed = try version2.entity(named: "Shelf")
        #expect(renamed.attribute("name")?.renamingIdentifier == "label")
        #expect(renamed.relationship("items")?.renamingIdentifier == "books")
    }

    /// The built-in Notes model drawn in Xcode has the built-in model's hash: peers on either
    /// form share one folder and one store layout.
    @Test func theNotesModelDrawnInXcodeIsTheBuiltInModel() throws {
        let path = Self.repository.appendingPathComponent("containers/models/Notes.xcdatamodeld").path
        let model = try ObjectModel.load(contentsOf: path)
        #expect(model.hash == ObjectModel.notes.hash)
        #expect(Set(model.entities.map(\.name)) == Set(ObjectModel.notes.entities.map(\.name)))
        // Its contents file alone, and its version folder, read the same.
        #expect(try ObjectModel.load(contentsOf: path + "/Notes.xcdatamodel").hash == model.hash)
        #expect(try ObjectModel.load(contentsOf: path + "/Notes.xcdatamodel/contents").hash == model.hash)
    }

    /// Peers on the two forms of the built-in model (attributes declared in another order, so
    /// their tables' columns lie in another order) share logs and baselines and converge.
    @Test func peersOnThePlistAndTheXcodeFormOfOneModelConverge() throws {
        let xcode = try ObjectModel.load(contentsOf: Self.repository.appendingPathComponent("containers/models/Notes.xcdatamodeld").path)
        #expect(xcode.entity("Note")?.attributes.map(\.name) != ObjectModel.notes.entity("Note")?.attributes.map(\.name))
        let cloud = try TestCloud()
        let manual: BaselinePolicy? = nil
        let plist = try cloud.peer("plist", policy: manual)
        _ = try Device.create(at: cloud.devicePath("xcode"), userName: "xcode", identityToken: Device.defaultAccount)
        var configuration = cloud.configuration("xcode", policy: manual)
        configuration.model = xcode
        let drawn = try UbiquityPeer(configuration: configuration)
        for (peer, key) in [(plist, "p"), (drawn, "x")] {
            let context = peer.newContext()
            let note = try context.insert("Note", key: key)
            note["title"] = .string("from \(key)")
            note["body"] = .string("body \(key)")
            note["pinned"] = .boolean(key == "x")
            try context.save()
        }
        _ = try plist.sync()
        _ = try drawn.sync()
        #expect(try plist.dumpText() == drawn.dumpText())
        #expect(try drawn.store.snapshot(of: try GlobalID("Note/p"))?.values["body"] == .string("body p"))
        guard case .rolled = try drawn.rollBaseline(force: true) else {
            Issue.record("the Xcode-model peer rolls a baseline")
            return
        }
        let newcomer = try cloud.peer("newcomer", policy: manual)
        #expect(try newcomer.sync().adoptedBaseline == drawn.peerID)
        #expect(try newcomer.dumpText() == plist.dumpText())
        #expect(try newcomer.store.snapshot(of: try GlobalID("Note/x"))?.values["pinned"] == .boolean(true))
    }

    /// The same model saved by Xcode 4 (counts on to-ones, `syncable`, a diagram layout) and by
    /// Xcode 16 (none of those) is the same model.
    @Test func theSameModelFromTwoXcodeErasHasOneHash() throws {
        let old = try Self.model("""
            <model name="" userDefinedModelVersionIdentifier="" type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1171" systemVersion="11D50" minimumToolsVersion="Automatic" macOSVersion="Automatic" iOSVersion="Automatic">
                <entity name="A" representedClassName="A" syncable="YES">
                    <attribute name="n" optional="YES" attributeType="Integer 64" defaultValueString="0" syncable="YES"/>
                    <relationship name="b" optional="YES" minCount="1" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="a" inverseEntity="B" syncable="YES"/>
                </entity>
                <entity name="B" representedClassName="B" syncable="YES">
                    <relationship name="a" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="A" inverseName="b" inverseEntity="A" syncable="YES"/>
                </entity>
                <elements>
                    <element name="A" positionX="0" positionY="0" width="128" height="60"/>
                    <element name="B" positionX="200" positionY="0" width="128" height="60"/>
                </elements>
            </model>
            """)
        let new = try Self.model("""
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="23231" systemVersion="24A335" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="A" representedClassName="A" syncable="YES" codeGenerationType="class">
                    <attribute name="n" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                    <relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="a" inverseEntity="B"/>
                </entity>
                <entity name="B" representedClassName="B" syncable="YES" codeGenerationType="class">
                    <relationship name="a" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="A" inverseName="b" inverseEntity="A"/>
                </entity>
            </model>
            """)
        #expect(old.hash == new.hash)
        #expect(old.entities == new.entities)
    }

    @Test func aBareVersionOfXcode4Loads() throws {
        let model = try ObjectModel.load(contentsOf: Self.fixtures + "/Recipes.xcdatamodel")
        #expect(model.name == "Recipes")
        let recipe = try model.entity(named: "Recipe")
        #expect(recipe.attribute("thumbnailImage")?.type == .transformable)
        let type = try #require(recipe.relationship("type"))
        #expect(!type.isToMany && type.inverse == nil && type.minCount == 0)
        #expect(model.storage(of: try #require(recipe.relationship("ingredients")), in: recipe) == .derivedFromInverse("recipe"))
    }

    /// What Core Data refuses is an error with the file, the line and the element (for XML
    /// that does not parse, the innermost element read before libxml2 stopped).
    @Test(arguments: [
        ("<entity name=\"A\"><attribute name=\"x\" attributeType=\"Money\"/></entity>", 3, "attribute", "unknown attribute type 'Money' of A.x"),
        ("<entity name=\"A\"><attribute name=\"x\" optional=\"YES\"/></entity>", 3, "attribute", "A.x has no attributeType (Undefined), which Core Data allows on transient attributes only"),
        ("<entity name=\"A\">\n<relationship name=\"r\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"Gone\"/></entity>", 4, "relationship", "the destination entity 'Gone' of A.r is not in the model"),
        ("<entity name=\"A\"/>\n<entity name=\"B\">\n<relationship name=\"a\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"A\" inverseName=\"b\" inverseEntity=\"A\"/></entity>", 5, "relationship", "the inverse 'b' of B.a is not a relationship of A"),
        ("<entity name=\"A\"><attribute name=\"x\" attributeType=\"String\" derived=\"YES\"/></entity>", 3, "attribute", "derived attribute A.x has no derivationExpression"),
        ("<entity name=\"A\"><attribute name=\"x\" attributeType=\"Composite\"/></entity>", 3, "attribute", "composite attribute A.x has no parts"),
        ("<entity name=\"A\"><attribute name=\"x\" optional=\"yes\" attributeType=\"String\"/></entity>", 3, "attribute", "optional=\"yes\" is neither YES nor NO"),
        ("<entity name=\"A\"><attribute name=\"x\" attributeType=\"Integer 16\" defaultValueString=\"many\"/></entity>", 3, "attribute", "default value 'many' is not a Integer 16"),
        ("<entity name=\"A\"><relationship name=\"r\" deletionRule=\"Explode\" destinationEntity=\"A\"/></entity>", 3, "relationship", "unknown deletion rule 'Explode'"),
        ("<entity name=\"A\">&custom;</entity>", 3, "model", "malformed XML: Entity 'custom' not defined"),
        ("<entity name=\"A\"><attribute name=\"x\" attributeType=\"String\"></entity>", 3, "model", "malformed XML: Opening and ending tag mismatch: attribute line 3 and entity"),
    ])
    func whatCoreDataRefusesIsAnErrorWithItsLine(_ body: String, _ line: Int, _ element: String, _ reason: String) throws {
        let file = NSTemporaryDirectory() + "ubiquity-model-\(UUID().uuidString)/M.xcdatamodel"
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        let contents = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\" documentVersion=\"1.0\">\n\(body)\n</model>\n"
        try Data(contents.utf8).write(to: URL(fileURLWithPath: file + "/contents"))
        let error = try #require(throws: ModelError.self) { try ObjectModel.load(contentsOf: file) }
        guard case let .unsupportedElement(path, foundLine, foundElement, foundReason) = error else {
            Issue.record("expected an error with a line, got \(error)")
            return
        }
        #expect(path == file + "/contents")
        #expect(foundLine == line)
        #expect(foundElement == element)
        #expect(foundReason.hasPrefix(reason), "\(foundReason)")
        #expect(error.description.hasPrefix("\(file)/contents:\(line): <\(element)>: "))
    }

    @Test func bundlesAndVersionsThatCannotBeReadSayWhy() throws {
        let root = NSTemporaryDirectory() + "ubiquity-model-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let old = root + "/Old.xcdatamodel"
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)
        try Data([0x62, 0x70]).write(to: URL(fileURLWithPath: old + "/elements"))
        #expect(throws: ModelError.unreadableFile(old, "an Xcode 3 model (a binary 'elements' archive, no 'contents'): open and save it in Xcode 4 or later")) {
            try ObjectModel.load(contentsOf: old)
        }
        let bundle = root + "/Two.xcdatamodeld"
        for version in ["A", "B"] {
            try FileManager.default.createDirectory(atPath: bundle + "/\(version).xcdatamodel", withIntermediateDirectories: true)
        }
        #expect(throws: ModelError.unreadableFile(bundle, "no .xccurrentversion says which of its 2 versions is current")) {
            try ObjectModel.load(contentsOf: bundle)
        }
        try Data(PlistSeam.encode(.dictionary(["_XCCurrentVersionName": .string("C.xcdatamodel")]), format: .xml))
            .write(to: URL(fileURLWithPath: bundle + "/.xccurrentversion"))
        #expect(throws: ModelError.unreadableFile(bundle + "/.xccurrentversion", "names version 'C.xcdatamodel', which the bundle does not hold (it holds A, B)")) {
            try ObjectModel.load(contentsOf: bundle)
        }
        #expect(throws: ModelError.unreadableFile(root + "/none", "no such file or folder")) {
            try ObjectModel.load(contentsOf: root + "/none")
        }
    }

    /// A model's own checks (a uniqueness constraint naming no property of its entity) name
    /// the file they are in.
    @Test func aModelThatIsReadButInconsistentNamesItsFile() throws {
        let contents = NSTemporaryDirectory() + "ubiquity-model-\(UUID().uuidString)-contents"
        defer { try? FileManager.default.removeItem(atPath: contents) }
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="A">
                    <attribute name="city" optional="YES" attributeType="String"/>
                    <uniquenessConstraints><uniquenessConstraint><constraint value="zip"/></uniquenessConstraint></uniquenessConstraints>
                </entity>
            </model>
            """.utf8).write(to: URL(fileURLWithPath: contents))
        #expect(throws: ModelError.unreadableFile(contents, "A: its uniqueness constraint (zip) names 'zip', which is no stored attribute or to-one relationship of the entity")) {
            try ObjectModel.load(contentsOf: contents)
        }
    }

    static func model(_ xml: String) throws -> ObjectModel {
        try XcodeModelReader(file: "test").read(Array(("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n" + xml).utf8), name: "Test")
    }
}
