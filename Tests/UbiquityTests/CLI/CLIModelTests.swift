import Foundation
import Testing

/// Xcode models, every attribute type and the model commands through the `ubiq` binary
/// (Docs/CLI.md, Docs/Models.md).
@Suite("CLI: Xcode models, every attribute type, model show/diff/check, get")
struct CLIModelTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/models").path
    static let library = fixtures + "/Library.xcdatamodeld"

    /// `model show --json` reports every entity, attribute and relationship with its type.
    @Test func modelShowReportsEverything() throws {
        let sandbox = try CLISandbox()
        let text = try sandbox.succeed(["model", "show", Self.library, "--json"], device: nil).stdout
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(shown["name"] as? String == "Library 3")
        #expect(shown["versions"] as? [String] == ["Library", "Library 2", "Library 3"] && shown["currentVersion"] as? String == "Library 3")
        #expect((shown["hash"] as? String)?.count == 43)
        let entities = try #require(shown["entities"] as? [[String: Any]])
        #expect(entities.compactMap { $0["name"] as? String } == ["Author", "Book", "Item", "Magazine", "Shelf", "Tag"])
        let book = try #require(entities.first { $0["name"] as? String == "Book" })
        #expect(book["parent"] as? String == "Item")
        let attributes = try #require(book["attributes"] as? [[String: Any]])
        let types = Dictionary(uniqueKeysWithValues: attributes.map { ($0["name"] as! String, $0["xcodeType"] as! String) })
        #expect(types == ["added": "Date", "identifier": "UUID", "title": "String", "copiesSold": "Integer 64", "cover": "Binary",
                          "edition": "Integer 32", "inPrint": "Boolean", "isbn": "String", "link": "URI", "metadata": "Transformable",
                          "pages": "Integer 16", "price": "Decimal", "rating": "Float", "weight": "Double", "scratch": "String"])
        #expect(attributes.first { $0["name"] as? String == "title" }?["inherited"] as? Bool == true)
        #expect(attributes.first { $0["name"] as? String == "scratch" }?["transient"] as? Bool == true)
        #expect(attributes.first { $0["name"] as? String == "pages" }?["max"] as? Int == 10000)
        let relationships = try #require(book["relationships"] as? [[String: Any]])
        #expect(relationships.compactMap { $0["name"] as? String } == ["shelf", "tags", "authors"])
        let shelf = try #require(entities.first { $0["name"] as? String == "Shelf" })
        let items = try #require((shelf["relationships"] as? [[String: Any]])?.first)
        #expect(items["ordered"] as? Bool == true && items["toMany"] as? Bool == true && items["destination"] as? String == "Item")
        #expect(items["maxCount"] as? Int == 500 && items["deleteRule"] as? String == "cascade")
        let item = try #require(entities.first { $0["name"] as? String == "Item" })
        #expect(item["abstract"] as? Bool == true && item["subentities"] as? [String] == ["Book", "Magazine"])

        let older = try sandbox.succeed(["model", "show", Self.library, "--version", "Library"], device: nil).stdout
        #expect(older.hasPrefix("Library  (model hash ") && older.contains("Shelf\n  label: String, optional"))
        #expect(older.hasSuffix("versions: Library, Library 2, Library 3 (current)\n"))
    }

    /// Each type written on one device through the CLI arrives on another, prints in `fetch`,
    /// `dump` and `get`; binary values come from files (`@path`) and leave through `get --raw`.
    @Test func everyTypeThroughTheCommandLine() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        let model = ["--model", Self.library, "--content", "Library"]
        let cover = Array(0...255).map(UInt8.init) + [0, 0, 0xFF]
        try Data(cover).write(to: URL(fileURLWithPath: sandbox.root + "/cover.bin"))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: sandbox.root + "/meta.bin"))
        try sandbox.succeed(["insert", "Shelf", "--id", "s", "name=Fiction"] + model, device: "phone")
        try sandbox.succeed(["insert", "Book", "--id", "dune", "title=Dune", "pages=412", "edition=2", "copiesSold=9223372036854775807",
                             "price=19.990", "rating=4.7", "weight=0.1", "inPrint=no", "added=1965-08-01T00:00:00Z",
                             "identifier=E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "link=https://example.com/dune?ed=2",
                             "cover=@cover.bin", "metadata=@meta.bin", "isbn=044117271X", "shelf=Shelf/s"] + model, device: "phone")
        try sandbox.succeed(["insert", "Magazine", "--id", "byte", "title=Byte", "issue=42"] + model, device: "phone")
        try sandbox.succeed(["sync"] + model, device: "laptop")
        try sandbox.succeed(["update", "Book/dune", "price=20", "rating=nil"] + model, device: "laptop")
        try sandbox.succeed(["sync"] + model, device: "phone")
        #expect(try sandbox.succeed(["dump", "--json"] + model, device: "phone").stdout == sandbox.succeed(["dump", "--json"] + model, device: "laptop").stdout)

        let fetched = try sandbox.succeed(["fetch", "Item", "--sort", "title", "--json"] + model, device: "phone").stdout
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(fetched.utf8)) as? [[String: Any]])
        #expect(objects.compactMap { $0["id"] as? String } == ["Magazine/byte", "Book/dune"], "a fetch of the parent returns both sub-entities")
        let values = try #require(objects.last?["values"] as? [String: Any])
        #expect(values["price"] as? String == "20" && values["pages"] as? Int == 412 && values["edition"] as? Int == 2)
        #expect(values["copiesSold"] as? Int64 == .max && values["inPrint"] as? Bool == false && values["rating"] is NSNull)
        #expect(values["weight"] as? Double == 0.1 && values["link"] as? String == "https://example.com/dune?ed=2")
        #expect(values["cover"] as? String == Data(cover).base64EncodedString() && values["metadata"] as? String == "AQID")
        #expect(values["scratch"] == nil, "transient attributes are not stored")

        #expect(try sandbox.succeed(["get", "Book/dune", "price"] + model, device: "laptop").stdout == "20\n")
        #expect(try sandbox.succeed(["get", "Book/dune", "title"] + model, device: "laptop").stdout == "\"Dune\"\n")
        #expect(try sandbox.succeed(["get", "Book/dune", "rating", "--json"] + model, device: "laptop").stdout == "null\n")
        #expect(try sandbox.succeed(["get", "Book/dune", "cover", "--raw"] + model, device: "laptop").stdoutBytes == cover)
        #expect(try sandbox.succeed(["get", "Book/dune", "title", "--raw"] + model, device: "laptop").stdoutBytes == Array("Dune".utf8))
        let absent = try sandbox.run(["get", "Book/dune", "rating", "--raw"] + model, device: "laptop")
        #expect(!absent.succeeded && absent.stderr == "ubiq: error: Book/dune.rating has no value\n")
        let line = try sandbox.succeed(["fetch", "Book"] + model, device: "laptop").stdout
        #expect(line.contains("price=20 ") && line.contains("cover=<259 bytes>") && line.contains("link=https://example.com/dune?ed=2"))
    }

    @Test func invalidValuesAreRefusedWithTheRule() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        let model = ["--model", Self.library, "--content", "Library"]
        for (arguments, message) in [
            (["insert", "Book", "pages=40000"], "validation failed: Book.pages is Integer 16 (-32768…32767); 40000 does not fit"),
            (["insert", "Book", "pages=0"], "validation failed: Book.pages is 0, below its minimum 1"),
            (["insert", "Book", "isbn=12"], "validation failed: Book.isbn does not match its regular expression [0-9]{9}[0-9X]"),
            (["insert", "Book", "price=1.5.2"], "invalid value '1.5.2' for Book.price: expected an exact decimal such as 12.50 or 1.5E+20 (or nil)"),
            (["insert", "Item", "title=x"], "entity Item is abstract: insert one of its sub-entities"),
            (["insert", "Book", "cover=@missing.bin"], "cannot read \(sandbox.root)/missing.bin for Book.cover"),
        ] {
            let result = try sandbox.run(arguments + model, device: "phone")
            #expect(!result.succeeded && result.stderr == "ubiq: error: \(message)\n", "\(arguments): \(result.stderr)")
        }
    }

    @Test func diffAndCheckSayWhatMigratesAndWhatAppleRefused() throws {
        let sandbox = try CLISandbox()
        let v1 = Self.library + "/Library.xcdatamodel", v2 = Self.library + "/Library 2.xcdatamodel"
        let diff = try sandbox.succeed(["model", "diff", v1, v2], device: nil).stdoutLines
        #expect(diff.contains("> Shelf.name: renamed from label  [inferred]"))
        #expect(diff.last == "the mapping can be inferred (lightweight migration)")
        // Version 3 with the type of Book.pages changed: no inference changes a type.
        let v3 = Self.library + "/Library 3.xcdatamodel"
        let edited = sandbox.root + "/Edited.xcdatamodel"
        try FileManager.default.createDirectory(atPath: edited, withIntermediateDirectories: true)
        let contents = try String(contentsOfFile: v3 + "/contents", encoding: .utf8)
            .replacingOccurrences(of: "name=\"pages\" optional=\"YES\" attributeType=\"Integer 16\" minValueString=\"1\" maxValueString=\"10000\"",
                                  with: "name=\"pages\" optional=\"YES\" attributeType=\"String\"")
        try contents.write(toFile: edited + "/contents", atomically: true, encoding: .utf8)
        let back = try sandbox.run(["model", "diff", v3, edited, "--json"], device: nil)
        #expect(back.status == 1, "a diff that needs a mapping model exits 1")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(back.stdout.utf8)) as? [String: Any])
        #expect(json["canInferMapping"] as? Bool == false && json["sameHash"] as? Bool == false)
        let changes = try #require(json["changes"] as? [[String: Any]])
        #expect(changes.map { $0["mapping"] as? String } == ["mappingModel", "none"], "the type, and the rules that went with it")
        #expect(changes.first?["entity"] as? String == "Book" && changes.first?["property"] as? String == "pages")
        #expect(changes.first?["detail"] as? String == "type integer16 → string")
        #expect(changes.first?["reason"] as? String == "an attribute's type cannot change by inference")
        let removal = try sandbox.succeed(["model", "diff", v2, v1], device: nil).stdoutLines
        #expect(removal.contains("- Item: entity removed (its objects are dropped)  [inferred]"))

        let check = try sandbox.run(["model", "check", "--icloud", Self.library], device: nil)
        #expect(check.status == 1)
        #expect(check.stdoutLines.contains("refused: Shelf.items: ordered relationships are not supported by iCloud Core Data"))
        let notes = try sandbox.run(["model", "check", "--icloud", "--content", "My.Notes"], device: nil)
        #expect(notes.status == 1 && notes.stdoutLines.first == "refused: content name My.Notes: the ubiquitous content name must not contain periods")
        #expect(try sandbox.succeed(["model", "check", "--icloud"], device: nil).stdout == "iCloud Core Data (iOS 7) would accept this model\n")
        // The built-in model as a plist and drawn in Xcode: one model.
        let containers = URL(fileURLWithPath: Self.fixtures).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("containers/models").path
        let same = try sandbox.succeed(["model", "diff", containers + "/Notes.plist", containers + "/Notes.xcdatamodeld"], device: nil).stdout
        #expect(same == "no change\nsame model hash: no migration, peers on either version share their logs\n")
    }
}
