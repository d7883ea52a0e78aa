import Foundation
import Testing

/// A device's store carried to a new version of an Xcode model through `ubiq`: other commands
/// refuse it with the command to run, `rebuild` never replaces it, `model migrate` migrates it,
/// and `status`, `peers` and `doctor` say which peer is on which version (Docs/Models.md).
@Suite("CLI: model migrate, and peers on two model versions")
struct CLIModelMigrationTests {
    static let library = CLIModelTests.library
    static let version1 = library + "/Library.xcdatamodel"

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aDeviceIsMigratedOnRequestAndPeersOnBothVersionsAreShown() throws {
        let sandbox = try CLISandbox()
        let phone = try sandbox.initDevice("phone")
        let laptop = try sandbox.initDevice("laptop")
        let old = ["--model", Self.version1, "--content", "Library"], new = ["--model", Self.library, "--content", "Library"]
        try sandbox.succeed(["insert", "Shelf", "--id", "s", "label=Fiction"] + old, device: "phone")
        try sandbox.succeed(["insert", "Book", "--id", "dune", "title=Dune", "pages=412", "shelf=Shelf/s"] + old, device: "phone")
        try sandbox.succeed(["sync"] + old, device: "laptop")

        // Opened with the new version, a command tells how to migrate and changes nothing.
        let refused = try sandbox.run(["fetch", "Book"] + new, device: "phone")
        #expect(!refused.succeeded && refused.stderr.contains("run 'ubiq model migrate --to MODEL'"), "\(refused.stderr)")
        let rebuild = try sandbox.run(["rebuild"] + new, device: "phone")
        #expect(!rebuild.succeeded && rebuild.stderr.contains("rebuilding would replace its data"), "\(rebuild.stderr)")
        #expect(try sandbox.succeed(["fetch", "Book"] + old, device: "phone").stdout.contains("Book/dune"))

        let migrated = try json(try sandbox.succeed(["model", "migrate", "--to", Self.library, "--content", "Library", "--json"], device: "phone").stdout)
        #expect(migrated["migrated"] as? Bool == true && migrated["baselineOwed"] as? Bool == false)
        #expect(migrated["objectsBefore"] as? Int == 2 && migrated["objectsAfter"] as? Int == 2)
        let fetched = try sandbox.succeed(["fetch", "Item"] + new, device: "phone").stdout
        #expect(fetched.contains("Book/dune") && fetched.contains("shelf=Shelf/s") && fetched.contains("title=\"Dune\""), "\(fetched)")
        let again = try sandbox.succeed(["model", "migrate", "--to", Self.library, "--content", "Library"], device: "phone").stdout
        #expect(again.contains("nothing to migrate"))

        // The laptop stays on version 1 and saves: the phone says what waits for its upgrade.
        try sandbox.succeed(["insert", "Book", "--id", "emma", "title=Emma"] + old, device: "laptop")
        try sandbox.succeed(["sync"] + new, device: "phone")
        let status = try json(try sandbox.succeed(["status", "--json"] + new, device: "phone").stdout)
        let container = try #require(status["container"] as? [String: Any])
        let versions = try #require((container["modelVersions"] as? [String: Any])?["versions"] as? [[String: Any]])
        #expect(versions.count == 2)
        let previous = try #require(versions.first { $0["previous"] as? Bool == true })
        #expect(previous["peers"] as? [String] == [laptop])
        #expect((previous["waiting"] as? [String: Any])?[laptop] as? Int == 1)
        #expect(versions.first { $0["thisPeer"] as? Bool == true }?["peers"] as? [String] == [phone])
        let peers = try sandbox.succeed(["peers"] + new, device: "phone").stdout
        #expect(peers.contains("\(laptop): ") && peers.contains("another version: 1 transaction(s) wait for it to upgrade"), "\(peers)")
        let doctor = try sandbox.run(["doctor"] + new, device: "phone")
        #expect(doctor.stdout.contains("\(laptop) is on it; 1 transaction(s) there wait for an upgrade"), "\(doctor.stdout)")

        // The laptop upgrades: its version-1 save reaches the phone, and both hold one state.
        try sandbox.succeed(["model", "migrate", "--to", Self.library, "--content", "Library"], device: "laptop")
        try sandbox.succeed(["sync"] + new, device: "phone")
        #expect(try sandbox.succeed(["fetch", "Book"] + new, device: "phone").stdout.contains("Book/emma"))
        let phoneDump = try sandbox.succeed(["dump", "--json"] + new, device: "phone").stdout
        #expect(phoneDump == (try sandbox.succeed(["dump", "--json"] + new, device: "laptop").stdout))
    }
}
