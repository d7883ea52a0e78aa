import Foundation
import Testing

/// The library's shape as Docs/Architecture.md ("Small functions") states it.
@Suite("Source shape")
struct SourceShapeTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func noFunctionOfTheLibraryIsLongerThanEightyLines() throws {
        let listed = try CLIPlistTests.run("/usr/bin/env", ["python3", "scripts/long-functions.py", "--limit", "80"], in: Self.repository)
        #expect(listed.status == 0, "\(listed.output)")
        #expect(listed.output.isEmpty, "split these functions:\n\(listed.output)")
    }

    @Test func theCounterFindsALongFunction() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shape-" + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let body = (1...81).map { "    let v\($0) = \($0) // {" }.joined(separator: "\n")
        try "func long() {\n\(body)\n}\nfunc short() {\n}\n".write(toFile: folder + "/Long.swift", atomically: true, encoding: .utf8)
        let listed = try CLIPlistTests.run("/usr/bin/env", ["python3", "scripts/long-functions.py", "--limit", "80", folder], in: Self.repository)
        #expect(listed.output.contains("83  \(folder)/Long.swift:1  func long"), "\(listed.output)")
        #expect(!listed.output.contains("short"))
    }

    /// Every `@unchecked Sendable` declaration of `Sources`, with the line under it.
    static func uncheckedSendables() throws -> [(place: String, reason: String)] {
        var found: [(String, String)] = []
        let sources = repository + "/Sources"
        for case let file as String in FileManager.default.enumerator(atPath: sources)! where file.hasSuffix(".swift") {
            let lines = try String(contentsOfFile: sources + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where line.contains(": @unchecked Sendable {") {
                let next = index + 1 < lines.count ? lines[index + 1].trimmingCharacters(in: .whitespaces) : ""
                found.append(("\(file):\(index + 1)", next))
            }
        }
        return found
    }

    @Test func everyUncheckedSendableSaysWhyOnTheLineUnderIt() throws {
        let found = try Self.uncheckedSendables()
        #expect(!found.isEmpty)
        for (place, reason) in found {
            #expect(reason.hasPrefix("// @unchecked: ") && reason.count > 30, "\(place) gives no reason")
        }
        // Mutex-held state is checked by the compiler: a new unchecked type replaces an old one.
        #expect(found.count <= 9, "\(found.map(\.place))")
    }

    /// Every static holding a `Mutex`, and every `shared` instance, in the library targets: state
    /// shared by the whole process.
    static func processWideState() throws -> [String] {
        var found: [String] = []
        let sources = repository + "/Sources"
        for case let file as String in FileManager.default.enumerator(atPath: sources)!
        where file.hasPrefix("Ubiquity") && file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains("static let ") && (line.contains("Mutex(") || line.contains(" shared =")) && !line.contains("//") {
                let name = line.split(separator: "=")[0].split(separator: " ").last.map(String.init) ?? ""
                found.append((file as NSString).lastPathComponent.replacingOccurrences(of: ".swift", with: "") + "." + name)
            }
        }
        return found.sorted()
    }

    @Test func theProcessSharesOneCacheAndOneCounter() throws {
        // Caches belong to a peer (`SyncCaches`); the process keeps only the inotify-backed folder
        // listings, whose watches are the process's, and its count of open folder handles.
        let found = try Self.processWideState()
        #expect(found == ["LogFolderListings.kept", "OpenFolder.openCount"], "\(found)")
    }
}
