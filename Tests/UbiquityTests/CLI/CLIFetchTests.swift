import Foundation
import Testing

@Suite("CLI: fetch with NSPredicates")
struct CLIFetchTests {
    /// `fetch`'s NSPredicate operators, `--offset` and `:ci` sorts through a real process, and
    /// one-line errors for what it refuses.
    @Test func fetchTakesNSPredicatesOffsetsAndCaseInsensitiveSorts() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.succeed(["insert", "Folder", "--id", "trip", "name=Trip"], device: "phone")
        for (key, title) in [("a", "apple"), ("b", "Banana"), ("c", "Crêpe"), ("d", "date")] {
            try sandbox.succeed(["insert", "Note", "--id", key, "title=\(title)", "folder=Folder/trip"], device: "phone")
        }
        func ids(_ arguments: [String]) throws -> [String] {
            try sandbox.succeed(["fetch", "Note"] + arguments, device: "phone").stdoutLines.map { String($0.split(separator: " ")[0]) }
        }
        #expect(try ids(["--where", "title BEGINSWITH[cd] 'CREPE' OR title IN {'date'}"]) == ["Note/c", "Note/d"])
        #expect(try ids(["--where", "folder.name == 'Trip' AND title LIKE '?a*'", "--sort", "title"]) == ["Note/b", "Note/d"])
        #expect(try ids(["--sort", "title:ci", "--offset", "1", "--limit", "2"]) == ["Note/b", "Note/c"])
        #expect(try ids(["--sort", "title:desc:ci", "--offset", "3"]) == ["Note/a"])
        #expect(try sandbox.succeed(["fetch", "Folder", "--where", "notes.@count == 4"], device: "phone").stdoutLines.count == 1)
        for (arguments, message) in [
            (["--where", "title ENDSWITH"], "ubiq: error: invalid predicate: expected a value after 'title ENDSWITH' (at character 15)"),
            (["--offset", "-1"], "ubiq: error: --offset must not be negative"),
            (["--sort", "title:ci:desc"], "ubiq: error: --sort takes key, key:asc or key:desc, each optionally followed by :ci, not 'title:ci:desc'"),
        ] {
            let result = try sandbox.run(["fetch", "Note"] + arguments, device: "phone")
            #expect(!result.succeeded && result.stderrLines == [message], "\(arguments)")
        }
    }
}
