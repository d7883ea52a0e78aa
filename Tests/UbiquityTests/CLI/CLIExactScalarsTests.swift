import Foundation
import Testing

/// Text given to `ubiq` is stored and synced with its exact scalars, and an argument that is
/// not UTF-8 is refused rather than stored with U+FFFD in its place.
@Suite("CLI strings are their exact scalars")
struct CLIExactScalarsTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// The bytes of `text` occur in `output`.
    static func holds(_ output: String, _ text: String) -> Bool {
        let bytes = Array(output.utf8), needle = Array(text.utf8)
        guard needle.count <= bytes.count else { return false }
        return (0 ... bytes.count - needle.count).contains { bytes[$0 ..< $0 + needle.count].elementsEqual(needle) }
    }

    @Test func bothFormsInOneSaveSyncToASecondDevice() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("mac")
        try sandbox.succeed(["insert", "Note", "title=" + Self.composed, "body=" + Self.decomposed], device: "phone")
        try sandbox.succeed(["insert", "Note", "--id", Self.composed, "title=one"], device: "phone")
        try sandbox.succeed(["insert", "Note", "--id", Self.decomposed, "title=two"], device: "phone")
        let synced = try sandbox.succeed(["sync"], device: "mac")
        #expect(synced.stdout.contains("imported 3 (3 inserted") && synced.stdout.contains(" 0 quarantined"), "\(synced)")
        // The author is not stopped: a later save reaches the other device too.
        try sandbox.succeed(["insert", "Note", "--id", "later", "title=later"], device: "phone")
        try sandbox.succeed(["sync"], device: "mac")
        try sandbox.succeed(["sync"], device: "phone")
        let dump = try sandbox.dump("mac")
        #expect(Self.holds(dump, "\"" + Self.composed + "\""), "\(dump)")
        #expect(Self.holds(dump, "\"" + Self.decomposed + "\""), "\(dump)")
        let ids = try objectIDs(inJSON: dump)
        #expect(ids.count == 4, "\(ids)")
        #expect(ids.contains { $0.utf8.elementsEqual(("Note/" + Self.composed).utf8) })
        #expect(ids.contains { $0.utf8.elementsEqual(("Note/" + Self.decomposed).utf8) })
        #expect(try sandbox.dump("phone").utf8.elementsEqual(dump.utf8))
        let status = try sandbox.succeed(["status"], device: "mac")
        #expect(!status.stdout.contains("checksum"), "\(status)")
    }

    /// Natural keys in both forms, saved signed out, migrate into the account as two objects
    /// and sync to a second device.
    @Test func migrateFromLocalKeepsBothKeys() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        try sandbox.succeed(["account", "sign-out"], device: "phone")
        try sandbox.succeed(["insert", "Note", "--id", Self.composed, "title=" + Self.composed], device: "phone")
        try sandbox.succeed(["insert", "Note", "--id", Self.decomposed, "title=" + Self.decomposed], device: "phone")
        try sandbox.succeed(["account", "sign-in", "default"], device: "phone")
        let migrated = try sandbox.succeed(["migrate", "--from-local"], device: "phone").stdout
        #expect(migrated.hasPrefix("copied 2 object(s)"), "\(migrated)")
        let synced = try sandbox.succeed(["sync"], device: "laptop")
        #expect(synced.stdout.contains("imported 1 (2 inserted") && synced.stdout.contains(" 0 quarantined"), "\(synced)")
        let dump = try sandbox.dump("laptop")
        #expect(try objectIDs(inJSON: dump).count == 2, "\(dump)")
        #expect(Self.holds(dump, "\"" + Self.composed + "\"") && Self.holds(dump, "\"" + Self.decomposed + "\""), "\(dump)")
        #expect(try sandbox.dump("phone").utf8.elementsEqual(dump.utf8))
    }

    /// `plist convert` from XML to binary keeps both forms.
    @Test func plistConvertKeepsBothForms() throws {
        let sandbox = try CLISandbox()
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array><string>\(Self.composed)</string><string>\(Self.decomposed)</string></array></plist>
            """
        let source = sandbox.root + "/strings.plist", binary = sandbox.root + "/strings.bplist", back = sandbox.root + "/back.plist"
        try Data(xml.utf8).write(to: URL(fileURLWithPath: source))
        for arguments in [["plist", "convert", "--to", "binary", source, "-o", binary], ["plist", "convert", "--to", "xml", binary, "-o", back]] {
            let result = try UbiqProcess(binary: sandbox.binary, arguments: arguments, directory: sandbox.root).wait()
            #expect(result.succeeded, "\(result)")
        }
        let text = try String(contentsOfFile: back, encoding: .utf8)
        #expect(Self.holds(text, "<string>" + Self.composed + "</string>"), "\(text)")
        #expect(Self.holds(text, "<string>" + Self.decomposed + "</string>"), "\(text)")
    }

    /// Arguments with bytes that are not UTF-8 (a stray 0xFF; a surrogate encoded in three
    /// bytes) are refused with an error naming them, nothing saved.
    @Test(arguments: ["title=caf\\377", "ti\\377tle=x", "title=\\355\\240\\200"])
    func invalidUTF8ArgumentsAreRefused(argument: String) throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        let script = "exec \"$0\" insert Note \"$(printf '\(argument)')\" --cloud \"$1\" --device \"$2\""
        let result = try UbiqProcess(binary: "/bin/sh", arguments: ["-c", script, sandbox.binary, sandbox.cloud, sandbox.device("phone")],
                                     directory: sandbox.root).wait()
        #expect(!result.succeeded && !result.signaled, "\(result)")
        #expect(result.stderr.contains("argument 3 is not valid UTF-8"), "\(result)")
        #expect(result.stderr.contains("\\xFF") || result.stderr.contains("\\xED\\xA0\\x80"), "\(result)")
        let dump = try sandbox.run(["dump", "--json"], device: "phone")
        #expect(dump.stderrLines == ["ubiq: error: this device has no store of account 'default' yet (nothing was saved or synced there)"], "\(dump)")
    }
}
