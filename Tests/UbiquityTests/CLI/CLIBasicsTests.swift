import Foundation
import Testing

/// Every command once, through real processes, on two devices of one cloud.
@Suite("CLI basics")
struct CLIBasicsTests {
    @Test func commandsRoundTripAcrossTwoDevices() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")

        let folder = try sandbox.succeed(["insert", "Folder", "--id", "home", "name=Home"], device: "phone").stdout
        #expect(folder == "Folder/home\n", "insert prints the global ID, one line")
        let note = try sandbox.succeed(["insert", "Note", "title=Groceries", "pinned=yes", "folder=Folder/home"], device: "phone").stdoutLines
        #expect(note.count == 1 && note[0].hasPrefix("Note/"))
        let noteID = note[0]
        try sandbox.succeed(["insert", "Note", "--id", "other", "title=Another"], device: "phone")
        try sandbox.succeed(["insert", "Tag", "--id", "food", "name=food"], device: "phone")
        try sandbox.succeed(["relate", noteID, "tags", "Tag/food"], device: "phone")

        let fetched = try sandbox.succeed(["fetch", "Note", "--where", "pinned == true", "--json"], device: "phone").stdout
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(fetched.utf8)) as? [[String: Any]])
        #expect(objects.count == 1)
        let object = try #require(objects.first)
        #expect(object["id"] as? String == noteID && object["entity"] as? String == "Note")
        #expect((object["values"] as? [String: Any])?["title"] as? String == "Groceries")
        #expect((object["relationships"] as? [String: Any])?["tags"] as? [String] == ["Tag/food"])
        #expect((object["relationships"] as? [String: Any])?["folder"] as? String == "Folder/home")

        let sorted = try sandbox.succeed(["fetch", "Note", "--sort", "title:desc", "--limit", "1"], device: "phone").stdoutLines
        #expect(sorted.count == 1 && sorted[0].contains("\"Groceries\""), "text fetch: one line per object: \(sorted)")

        // The laptop takes in the phone's saves, edits, and the phone takes those in.
        try sandbox.succeed(["sync"], device: "laptop")
        try sandbox.succeed(["update", noteID, "title=Groceries for Sunday", "body=milk"], device: "laptop")
        try sandbox.succeed(["unrelate", noteID, "tags", "Tag/food"], device: "laptop")
        try sandbox.succeed(["unrelate", noteID, "folder", "Folder/home"], device: "laptop")
        try sandbox.succeed(["update", "Note/other", "body=nil"], device: "laptop")
        try sandbox.succeed(["delete", "Tag/food"], device: "laptop")
        let summary = try sandbox.succeed(["sync"], device: "phone").stdout
        #expect(summary.hasPrefix("exported 0, imported 5"), "sync prints its summary: \(summary)")

        let phone = try sandbox.dump("phone"), laptop = try sandbox.dump("laptop")
        #expect(phone == laptop, "converged dumps are byte-identical")
        #expect(try objectIDs(inJSON: phone) == ["Folder/home", "Note/other", noteID].sorted())
        #expect(phone.contains("\"Groceries for Sunday\"") && phone.contains("\"tags\":[]") && phone.contains("\"folder\":null"))

        let listing = try sandbox.succeed(["dump"], device: "phone").stdout
        #expect(listing.contains("Tag (0)") && listing.contains("Note (2)"), "readable dump: \(listing)")
    }

    @Test func modelFileAndXMLLogsWork() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        try sandbox.succeed(["model", "--output", "Notes.plist"], device: nil)
        let model = try String(contentsOfFile: sandbox.root + "/Notes.plist", encoding: .utf8)
        #expect(model.hasPrefix("<?xml"), "the model file is XML by default")
        try sandbox.succeed(["model", "--binary", "--output", "Notes.bplist"], device: nil)
        let binary = try Data(contentsOf: URL(fileURLWithPath: sandbox.root + "/Notes.bplist"))
        #expect(binary.starts(with: Array("bplist00".utf8)), "--binary writes a binary plist")

        // The same model read from its file has the same hash: both devices share one log folder.
        try sandbox.succeed(["insert", "Note", "--id", "x", "title=From a model file", "--model", "Notes.plist", "--format", "xml"], device: "phone")
        try sandbox.succeed(["sync"], device: "laptop")
        #expect(try sandbox.dump("laptop") == sandbox.dump("phone"))
        let logs = try FileManager.default.subpathsOfDirectory(atPath: sandbox.cloud).filter { $0.hasSuffix(".1.cdt") }
        let log = try #require(logs.first)
        #expect(try String(contentsOfFile: sandbox.cloud + "/" + log, encoding: .utf8).hasPrefix("<?xml"), "--format xml writes XML logs")
    }

    @Test func deviceInitSignedOutAndAccount() throws {
        let sandbox = try CLISandbox()
        let out = try sandbox.succeed(["device", "init", "--signed-out"], device: "offline").stdout
        #expect(out.contains("account: none"))
        #expect(try sandbox.succeed(["sync"], device: "offline").stdout.contains("signed out"))
        #expect(try sandbox.succeed(["device", "init", "--account", "work"], device: "work").stdout.contains("account: work"))
    }
}
