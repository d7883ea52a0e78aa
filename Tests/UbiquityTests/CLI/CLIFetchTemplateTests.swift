import Foundation
import Testing

@Suite("CLI: fetch request templates")
struct CLIFetchTemplateTests {
    /// `fetch --request` with `--variable`s typed by the attribute they are compared with, the
    /// option checks, and `model show` listing the model's queries and configurations.
    @Test func fetchRunsATemplateWithVariables() throws {
        let sandbox = try CLISandbox()
        let model = sandbox.root + "/Notes.xcdatamodel"
        try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
        try FetchRequestTemplateFixtures.xcode15.write(toFile: model + "/contents", atomically: true, encoding: .utf8)
        try sandbox.succeed(["device", "init", "--user", "phone", "--model", model], device: "phone")
        for (key, pages) in [("a", 5), ("b", 20), ("c", 30)] {
            try sandbox.succeed(["insert", "Note", "--id", key, "title=\(key == "c" ? "b" : key)", "pages=\(pages)", "--model", model], device: "phone")
        }
        func ids(_ arguments: [String]) throws -> [String] {
            try sandbox.succeed(["fetch", "--model", model] + arguments, device: "phone").stdoutLines.map { String($0.split(separator: " ")[0]) }
        }
        #expect(try ids(["--request", "NotesTitled", "--variable", "TITLE=b"]) == ["Note/b", "Note/c"])
        #expect(try ids(["--request", "LongerThan", "--variable", "PAGES=5", "--sort", "pages:desc"]) == ["Note/c", "Note/b"])
        #expect(try ids(["--request", "LongerThan", "--variable", "PAGES=5", "--limit", "3"]) == ["Note/a", "Note/b", "Note/c"])
        for (arguments, message) in [
            (["--request", "LongerThan"], "ubiq: error: fetch request template 'LongerThan' needs a value for $PAGES"),
            (["--request", "Pinned"], "ubiq: error: no fetch request template 'Pinned' in the model (templates: LongerThan, NotesTitled)"),
            (["--request", "LongerThan", "--variable", "PAGES"], "ubiq: error: --variable takes NAME=VALUE, not 'PAGES' (see 'ubiq help fetch')"),
            (["Note", "--request", "LongerThan"], "ubiq: error: --request fetches its template's entity: give no entity with it (see 'ubiq help fetch')"),
        ] {
            let result = try sandbox.run(["fetch", "--model", model] + arguments, device: "phone")
            #expect(!result.succeeded && result.stderrLines.first == message, "\(arguments): \(result.stderrLines)")
        }
        let shown = try sandbox.succeed(["model", "show", model], device: nil).stdoutLines
        #expect(shown.contains("  longNotes: fetched Note where folder == $FETCH_SOURCE AND pages > 10, variables $FETCH_SOURCE"))
        #expect(shown.contains("  LongerThan: Note where pages >= $PAGES, limit 2, variables $PAGES"))
        #expect(shown.contains("  Cloud: Note, Folder"))
    }

    /// Two devices opened with one configuration sync its entities, and refuse the others.
    @Test func twoPeersOfAConfigurationSync() throws {
        let sandbox = try CLISandbox()
        let model = sandbox.root + "/Notes.xcdatamodel"
        try FileManager.default.createDirectory(atPath: model, withIntermediateDirectories: true)
        try FetchRequestTemplateFixtures.xcode15.write(toFile: model + "/contents", atomically: true, encoding: .utf8)
        let options = ["--model", model, "--configuration", "Local"]
        for device in ["phone", "laptop"] { try sandbox.succeed(["device", "init", "--user", device] + options, device: device) }
        try sandbox.succeed(["insert", "Setting", "--id", "theme", "value=dark"] + options, device: "phone")
        let refused = try sandbox.run(["insert", "Note", "--id", "n", "title=x"] + options, device: "phone")
        #expect(!refused.succeeded && refused.stderrLines == ["ubiq: error: entity Note is not in the configuration 'Local' the store was opened with"], "\(refused.stderrLines)")
        for device in ["phone", "laptop", "phone", "laptop"] { try sandbox.succeed(["sync"] + options, device: device) }
        #expect(try sandbox.succeed(["fetch", "Setting"] + options, device: "laptop").stdoutLines == ["Setting/theme  value=\"dark\""])
        let unknown = try sandbox.run(["fetch", "Setting", "--model", model, "--configuration", "Phone"], device: "laptop")
        #expect(unknown.stderrLines == ["ubiq: error: no configuration 'Phone' in the model (configurations: Cloud, Local)"], "\(unknown.stderrLines)")
    }
}
