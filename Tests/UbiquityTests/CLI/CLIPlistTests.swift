import Foundation
import Testing

/// `ubiq plist` (Docs/CLI.md, "Property lists"): plutil's commands and exit codes, and the
/// issue-20 promise that `convert --to json` reads every valid plist of CPython's
/// test_plistlib.py with the values plistlib reads (Tests/Fixtures/plistlib).
@Suite("ubiq plist")
struct CLIPlistTests {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = tests.appendingPathComponent("Fixtures/plistlib")

    /// A scratch folder, removed when the test ends.
    final class Folder {
        let path = NSTemporaryDirectory() + "ubiq-plist-test-" + UUID().uuidString
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func write(_ name: String, _ text: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name)) }
        func read(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/" + name))) }
    }

    func ubiq(_ arguments: [String], in folder: Folder) throws -> UbiqResult {
        try UbiqProcess(binary: UbiqBinary.path(), arguments: arguments, directory: folder.path).wait(timeout: 300)
    }

    /// Runs `executable arguments…` in `directory`; stdout and stderr together.
    static func run(_ executable: String, _ arguments: [String], in directory: String,
                    path: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        if let path { environment["PATH"] = path + ":" + (environment["PATH"] ?? "/usr/bin:/bin") }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    // MARK: The must-hold: every valid plist of test_plistlib.py, as plistlib reads it

    @Test func convertReadsEveryValidPlistOfTestPlistlibAsPlistlibDoes() throws {
        let folder = try Folder()
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path + "/valid")
            .filter { $0.hasSuffix(".plist") }.sorted()
        #expect(names.count == 316)
        // One folder per conversion, each converted in place by one `ubiq` run.
        let conversions: [(folder: String, arguments: [String])] = [
            ("json", ["plist", "convert", "--to", "json"]),
            ("plain", ["plist", "convert", "--to", "json", "--plain"]),
            ("binary", ["plist", "-convert", "binary1"]),
            ("xml", ["plist", "-convert", "xml1"]),
        ]
        var failures: [String: Set<String>] = [:]
        for (sub, arguments) in conversions {
            let directory = folder.path + "/" + sub
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for name in names {
                try FileManager.default.copyItem(atPath: Self.fixtures.path + "/valid/" + name, toPath: directory + "/" + name)
            }
            let result = try ubiq(arguments + names.map { sub + "/" + $0 }, in: folder)
            #expect(!result.signaled && !result.timedOut, "\(result)")
            failures[sub] = Set(result.stderrLines.map { String($0.prefix { $0 != ":" }.dropFirst(sub.count + 1)) })
            #expect(result.status == (failures[sub]!.isEmpty ? 0 : 1), "\(result)")
            #expect(result.stdout.isEmpty)
        }
        // Only XML refuses anything: the values it cannot hold (compare.py's noxml checks that
        // plistlib refuses to write each of them as XML too).
        #expect(failures["json"] == [] && failures["plain"] == [] && failures["binary"] == [])
        #expect(failures["xml"]?.count == 32)

        var manifest = ""
        for name in names {
            let original = Self.fixtures.path + "/valid/" + name
            manifest += "json\t\(original)\t\(folder.path)/json/\(name)\n"
            manifest += "plain\t\(original)\t\(folder.path)/plain/\(name)\n"
            manifest += "plist\t\(original)\t\(folder.path)/binary/\(name)\n"
            manifest += failures["xml"]!.contains(name) ? "noxml\t\(original)\t-\n" : "plist\t\(original)\t\(folder.path)/xml/\(name)\n"
        }
        try folder.write("manifest", manifest)
        let compare = try Self.run("/usr/bin/env", ["python3", Self.fixtures.path + "/compare.py", folder.path + "/manifest"],
                                   in: folder.path)
        #expect(compare.status == 0, "\(compare.output)")
        #expect(compare.output.hasSuffix("compared \(4 * names.count) conversions, 0 differ from plistlib\n"), "\(compare.output)")
    }

    // MARK: plutil's behaviour

    @Test func hexadecimalRealIsAnErrorWithLineAndColumn() throws {
        let folder = try Folder()
        try folder.write("hex.plist", "<plist version=\"1.0\">\n<dict>\n\t<key>r</key>\n\t<real>0x10</real>\n</dict>\n</plist>\n")
        try folder.write("nan.plist", "<plist version=\"1.0\"><real>nan(7)</real></plist>")
        for arguments in [["plist", "lint"], ["plist", "-lint"], ["plist", "convert", "--to", "json"], ["plist", "print"]] {
            let result = try ubiq(arguments + ["hex.plist", "nan.plist"], in: folder)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderrLines == [
                "hex.plist: XML plist: malformed <real> \"0x10\" (expected a decimal number, nan, inf or infinity) (line 4, column 2)",
                "nan.plist: XML plist: malformed <real> \"nan(7)\" (expected a decimal number, nan, inf or infinity) (line 1, column 22)",
            ], "\(result)")
        }
    }

    @Test func lintPrintsOKForGoodFilesAndExitsOneWhenAnyFails() throws {
        let folder = try Folder()
        try folder.write("good.plist", "<plist version=\"1.0\"><array><integer>1</integer></array></plist>")
        try folder.write("good.json", "{\"a\": [1.5, {\"$uid\": 2}]}")
        try folder.write("text.txt", "hello")
        let all = try ubiq(["plist", "lint", "good.plist", "text.txt", "good.json", "missing.plist"], in: folder)
        #expect(all.status == 1)
        #expect(all.stdoutLines == ["good.plist: OK", "good.json: OK"])
        #expect(all.stderrLines == ["text.txt: not a property list: neither a \"bplist00\" header, XML nor JSON (byte offset 0)",
                                    "missing.plist: No such file or directory"])
        let good = try ubiq(["plist", "good.plist", "good.json"], in: folder)  // plutil's default command
        #expect(good.status == 0 && good.stdoutLines == ["good.plist: OK", "good.json: OK"] && good.stderr.isEmpty, "\(good)")
    }

    @Test func convertInPlaceToStandardOutputAndBack() throws {
        let folder = try Folder()
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n\t<key>a</key>\n\t<real>1</real>\n\t<key>b</key>\n\t<date>2004-10-26T10:33:33Z</date>\n</dict>\n</plist>\n"
        try folder.write("x.plist", xml)
        #expect(try ubiq(["plist", "convert", "--to", "binary", "x.plist"], in: folder).succeeded)
        #expect(try Array(folder.read("x.plist").prefix(8)) == Array("bplist00".utf8))
        let json = try ubiq(["plist", "-convert", "json", "x.plist", "-o", "-"], in: folder)
        #expect(json.stdout == "{\n  \"a\": 1.0,\n  \"b\": {\"$date\": \"2004-10-26T10:33:33Z\"}\n}\n", "\(json)")
        try folder.write("x.json", json.stdout)
        #expect(try ubiq(["plist", "convert", "--to", "xml", "x.json", "-o", "back.plist"], in: folder).succeeded)
        #expect(try String(decoding: folder.read("back.plist"), as: UTF8.self) == xml.replacingOccurrences(of: "<real>1</real>", with: "<real>1.0</real>"))
    }

    @Test func xmlRefusesControlCharactersAndLeavesTheFile() throws {
        let folder = try Folder()
        try folder.write("c.json", "{\"t\": \"a\\u0001b\"}")
        #expect(try ubiq(["plist", "convert", "--to", "binary", "c.json"], in: folder).succeeded)
        let before = try folder.read("c.json")
        let result = try ubiq(["plist", "convert", "--to", "xml", "c.json"], in: folder)
        #expect(result.status == 1)
        #expect(result.stderrLines == ["c.json: XML plist: the string at /t holds U+0001, which XML 1.0 cannot contain; write a binary plist instead"])
        #expect(try folder.read("c.json") == before)
    }

    @Test func wrongArgumentsGetOneLineErrors() throws {
        let folder = try Folder()
        try folder.write("a.plist", "<plist version=\"1.0\"><true/></plist>")
        let cases: [([String], String)] = [
            (["plist"], "ubiq: error: give a command (lint, print, convert) or plutil's -lint, -p, -convert, and a FILE (see 'ubiq help plist')"),
            (["plist", "convert", "a.plist"], "ubiq: error: Missing expected argument '--to <format>' (see 'ubiq help plist convert')"),
            (["plist", "convert", "--to", "yaml", "a.plist"],
             "ubiq: error: The value 'yaml' is invalid for '--to <format>'. Please provide one of 'xml', 'binary', 'json', 'xml1' or 'binary1'. (see 'ubiq help plist convert')"),
            (["plist", "-convert", "xml1", "a.plist", "a.plist", "-o", "b.plist"], "ubiq: error: -o takes one FILE, not 2 (see 'ubiq help plist')"),
            (["plist", "-lint", "-p", "a.plist"], "ubiq: error: give one of -lint, -p and -convert (see 'ubiq help plist')"),
            (["plist", "-o", "b.plist", "a.plist"], "ubiq: error: -o applies to -convert only (see 'ubiq help plist')"),
            (["plist", "convert", "--to", "xml", "--plain", "a.plist"], "ubiq: error: --plain applies to --to json only (see 'ubiq help plist convert')"),
            (["plist", "lint"], "ubiq: error: give at least one FILE to lint (see 'ubiq help plist lint')"),
        ]
        for (arguments, message) in cases {
            let result = try ubiq(arguments, in: folder)
            #expect(result.status == 64 && result.stdout.isEmpty && result.stderrLines == [message], "\(result)")
        }
    }
}
