import Testing
@testable import UbiquityCore

/// Derived attributes' expressions, parsed and checked against the model as Core Data checks
/// them when a model loads.
@Suite("Derivation expressions: the forms Core Data accepts, checked at model load")
struct DerivationExpressionTests {
    /// Folder ↔ Note as Xcode writes it, with one more derived attribute on Note.
    static func model(noteDerived extra: String) throws -> ObjectModel {
        try XcodeModelLeniencyTests.model("""
            <entity name="Folder" representedClassName="Folder" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="noteCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="notes.@count" usesScalarValueType="YES"/>
                <attribute name="totalSize" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="notes.@sum.size" usesScalarValueType="YES"/>
                <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
            </entity>
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="size" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                <attribute name="created" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="draft" optional="YES" transient="YES" attributeType="String"/>
                <attribute name="folderName" optional="YES" attributeType="String" derived="YES" derivationExpression="folder.name"/>
                <attribute name="searchTitle" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(title)"/>
                <attribute name="modified" optional="YES" attributeType="Date" derived="YES" derivationExpression="now()" usesScalarValueType="NO"/>
                \(extra)
                <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
            </entity>
            """)
    }

    static func derived(_ type: String, _ expression: String) -> String {
        "<attribute name=\"extra\" optional=\"YES\" attributeType=\"\(type)\" derived=\"YES\" derivationExpression=\"\(expression)\"/>"
    }

    /// Every form Xcode's inspector offers parses to what it means.
    @Test(arguments: [
        ("folder.name", DerivationExpression.keyPath(["folder", "name"])),
        ("title", .keyPath(["title"])),
        ("notes.@count", .count(["notes"])),
        ("folder.notes.@count", .count(["folder", "notes"])),
        ("notes.@sum.size", .aggregate(.sum, ["notes"], attribute: "size")),
        ("notes.size.@avg", .aggregate(.avg, ["notes"], attribute: "size")),
        ("notes.@max.created", .aggregate(.max, ["notes"], attribute: "created")),
        ("now()", .now),
        (" now( ) ", .now),
        ("lowercase:(title)", .function(.lowercase, ["title"])),
        ("uppercase:(folder.name)", .function(.uppercase, ["folder", "name"])),
        ("canonical:( title )", .function(.canonical, ["title"])),
    ])
    func parses(_ text: String, _ expected: DerivationExpression) throws {
        #expect(try DerivationExpression(parsing: text) == expected)
    }

    /// What Core Data would not take is refused, saying why.
    @Test(arguments: [
        ("", "is empty"),
        ("notes.@median.size", "uses @median, which is not @count, @sum, @avg, @min or @max"),
        ("trim:(title)", "calls 'trim:', which is not lowercase:, uppercase: or canonical:"),
        ("lowercase:title", "gives lowercase: no key path in parentheses, as in lowercase:(title)"),
        ("@count", "must end in @count after a to-many relationship, as in notes.@count"),
        ("notes.@count.size", "must end in @count after a to-many relationship, as in notes.@count"),
        ("notes.@sum", "must name a to-many relationship, @sum and one attribute, as in notes.@sum.size"),
        ("folder..name", "is no key path of property names"),
        ("title + 1", "is no key path of property names"),
    ])
    func refusesWhatIsNoForm(_ text: String, _ reason: String) {
        #expect(throws: DerivationExpressionError(reason)) { try DerivationExpression(parsing: text) }
    }

    /// The model loads with its derivations parsed.
    @Test func aModelAsXcodeWritesItLoadsWithItsDerivationsParsed() throws {
        let model = try Self.model(noteDerived: "")
        let folder = try model.entity(named: "Folder"), note = try model.entity(named: "Note")
        #expect(folder.transientAttribute("noteCount")?.derivationExpression == .count(["notes"]))
        #expect(folder.transientAttribute("totalSize")?.derivationExpression == .aggregate(.sum, ["notes"], attribute: "size"))
        #expect(note.transientAttribute("folderName")?.derivationExpression == .keyPath(["folder", "name"]))
        #expect(note.transientAttribute("searchTitle")?.derivationExpression == .function(.canonical, ["title"]))
        #expect(note.transientAttribute("modified")?.derivationExpression == .now)
        #expect(note.attribute("title")?.derivationExpression == nil)
    }

    /// An expression that parses but does not fit the model is refused at load, naming the
    /// file, the attribute and the reason.
    @Test(arguments: [
        ("String", "folder.title", "names 'title', which is no attribute of Folder"),
        ("String", "owner.name", "names 'owner', which is no relationship of Note"),
        ("String", "draft", "names Note.draft, which is not stored"),
        ("String", "searchTitle", "names Note.searchTitle, which is not stored"),
        ("Integer 64", "folder.name", "names Folder.name, of type String, for an attribute of type Integer 64"),
        ("String", "folder.notes.title", "goes through the to-many relationship Folder.notes: count it (notes.@count) or aggregate it (notes.@sum.x)"),
        ("Integer 64", "folder.@count", "applies a collection operator to the to-one relationship Note.folder"),
        ("String", "folder.notes.@count", "counts objects, an integer, for an attribute of type String"),
        ("Integer 64", "folder.notes.@sum.title", "applies @sum to Note.title, of type String"),
        ("String", "now()", "is now(), which gives a Date, for an attribute of type String"),
        ("String", "lowercase:(size)", "applies lowercase: to Note.size, of type Integer 32, for an attribute of type String: it takes and gives a String"),
    ])
    func refusesAtLoadWhatDoesNotFitTheModel(_ type: String, _ expression: String, _ reason: String) {
        #expect(throws: ModelError.unreadableFile("M.xcdatamodel/contents", "Note.extra: the derivation '\(expression)' \(reason)")) {
            try Self.model(noteDerived: Self.derived(type, expression))
        }
    }

    /// A model's own file (plist) is checked the same way.
    @Test func aModelBuiltInCodeIsCheckedToo() {
        let entity = EntityDescription("A", attributes: [
            AttributeDescription("x", .string),
            AttributeDescription("y", .string, derivation: "x.@count"),
        ])
        #expect(throws: ModelError.invalidRule("A.y", "the derivation 'x.@count' names 'x', which is no relationship of A")) {
            try ObjectModel(name: "M", entities: [entity])
        }
    }
}
