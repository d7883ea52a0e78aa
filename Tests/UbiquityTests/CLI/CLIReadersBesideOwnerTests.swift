import Foundation
import Testing

/// Readers (`status`, `fetch`, `doctor`) run beside an owner that writes: they take no lock, so
/// no owner operation is refused, and none of them shows SQLite's own text — they read a whole
/// store or say in one line why it cannot be read now.
@Suite("CLI readers beside an owner")
struct CLIReadersBesideOwnerTests {
    /// What a reader may say instead of reading: the store is not there yet, or is being made or replaced.
    static let clearRefusals = ["has no store of account", "is being created by", "is being rebuilt from the container by",
                                "is being migrated to another model version by", "kept changing while it was read", "no store at "]

    static let rawSQLite = ["SQLite error", "no such table", "disk I/O", "database is locked", "malformed"]

    @Test func ownerOperationsAreNeverRefusedAndReadersNeverSeeSQLiteErrors() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("owner")
        let model = sandbox.root + "/Notes.plist"
        try sandbox.succeed(["model", "write", "--output", model], device: nil)
        try sandbox.succeed(["insert", "Note", "title=first"], device: "owner")

        let cycle: [[String]] = [["insert", "Note", "title=x"], ["rebuild"], ["model", "migrate", "--to", model],
                                 ["migrate", "--from-local"], ["baseline", "roll"], ["sync"]]
        var operations = (cycle + cycle).map { (command: $0, device: "owner") }
        for fresh in 0..<8 {
            // A first insert creates the store while readers look for it.
            try sandbox.initDevice("fresh\(fresh)")
            operations.append((["insert", "Note", "title=f"], "fresh\(fresh)"))
        }

        var refusals: [UbiqResult] = [], raw: [UbiqResult] = [], unclear: [UbiqResult] = [], reads = 0
        for operation in operations {
            // Readers on both sides of the owner's start: before it, one may be reading when
            // the owner opens the device; after it, while the owner writes.
            var readers = try [["status"], ["fetch", "Note"]].map { try sandbox.start($0, device: operation.device) }
            let owner = try sandbox.start(operation.command, device: operation.device)
            readers.append(try sandbox.start(["doctor"], device: operation.device))
            let done = owner.wait(timeout: 120)
            if !done.succeeded { refusals.append(done) }
            for reader in readers {
                let result = reader.wait(timeout: 60)
                reads += 1
                let said = result.stdout + result.stderr
                if Self.rawSQLite.contains(where: said.contains) { raw.append(result) }
                if !result.succeeded && !(result.stderrLines.count == 1 && Self.clearRefusals.contains(where: result.stderr.contains)) {
                    // `doctor` exits nonzero when it finds something; it still says it on stdout.
                    if !(result.arguments.first == "doctor" && result.stderr.isEmpty) { unclear.append(result) }
                }
            }
        }
        #expect(reads == operations.count * 3)
        #expect(refusals.isEmpty, "\(refusals.count) of \(operations.count) owner operations failed: \(refusals.map(\.description).joined(separator: "\n"))")
        #expect(raw.isEmpty, "\(raw.count) of \(reads) reader outputs held SQLite's text: \(raw.map(\.description).joined(separator: "\n"))")
        #expect(unclear.isEmpty, "\(unclear.map(\.description).joined(separator: "\n"))")
        // What the owner wrote is all there once it is done: every insert of the loop, and the first.
        let notes = try sandbox.succeed(["fetch", "Note"], device: "owner")
        #expect(notes.stdoutLines.count == 3, "\(notes)")
    }
}
