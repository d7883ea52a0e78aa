import CSQLite
import Foundation
import Ubiquity

/// Import of N inserted objects from transaction logs through Ubiquity, side by side with a
/// bulk insert of the same rows through raw SQLite prepared statements.
enum ImportBenchmarks {
    static func run(smoke: Bool) throws -> String {
        let sizes = smoke ? [1_000] : [10_000, 100_000]
        var lines = ["## Import vs raw SQLite (Note rows: title, body, created, pinned)", "",
                     "| objects | logs | raw SQLite insert | Ubiquity import | raw rows/s | import rows/s | import / raw |",
                     "|---:|---:|---:|---:|---:|---:|---:|"]
        for count in sizes {
            let runs = smoke ? 1 : (count >= 100_000 ? 3 : 5)
            let perLog = 1_000
            let raw = try Measurement.run(runs) { try rawInsert(count: count) }
            let (logs, imported) = try ubiquityImport(count: count, perLog: perLog, runs: runs)
            let rawRate = Double(count) / raw.median, importRate = Double(count) / imported.median
            lines.append("| \(count) | \(logs) | \(raw.text) | \(imported.text) | \(Int(rawRate)) | \(Int(importRate)) | \(String(format: "%.0f %%", 100 * importRate / rawRate)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Seconds to insert `count` rows in one transaction with one reused prepared statement.
    static func rawInsert(count: Int) throws -> Double {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        var db: OpaquePointer?
        guard sqlite3_open(scratch.path + "/raw.sqlite", &db) == SQLITE_OK else { throw BenchmarkError("cannot open raw SQLite") }
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE note (gid TEXT PRIMARY KEY, title TEXT, body TEXT, created REAL, pinned INTEGER) WITHOUT ROWID", nil, nil, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let rows = (0..<count).map { ("Note/" + UUID().uuidString, "title \($0)", "body of note \($0)") }
        return seconds {
            var statement: OpaquePointer?
            sqlite3_exec(db, "BEGIN", nil, nil, nil)
            sqlite3_prepare_v2(db, "INSERT INTO note VALUES (?, ?, ?, ?, ?)", -1, &statement, nil)
            for (index, row) in rows.enumerated() {
                sqlite3_bind_text(statement, 1, row.0, -1, transient)
                sqlite3_bind_text(statement, 2, row.1, -1, transient)
                sqlite3_bind_text(statement, 3, row.2, -1, transient)
                sqlite3_bind_double(statement, 4, 1_700_000_000 + Double(index))
                sqlite3_bind_int64(statement, 5, Int64(index % 2))
                sqlite3_step(statement)
                sqlite3_reset(statement)
            }
            sqlite3_finalize(statement)
            sqlite3_exec(db, "COMMIT", nil, nil, nil)
        }
    }

    /// Writes `count` objects as logs of `perLog` objects from one peer, then times fresh peers
    /// importing them all.
    static func ubiquityImport(count: Int, perLog: Int, runs: Int) throws -> (logs: Int, time: Measurement) {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let cloud = scratch.path + "/cloud"
        func configuration(_ device: String) -> PeerConfiguration {
            PeerConfiguration(cloud: cloud, device: scratch.path + "/" + device, model: .notes, contentName: "Bench", logger: .silent)
        }
        _ = try Device.create(at: scratch.path + "/writer", userName: "writer")
        let writer = try UbiquityPeer(configuration: configuration("writer"))
        var logs = 0
        var written = 0
        while written < count {
            let context = writer.newContext()
            for index in written..<min(count, written + perLog) {
                let note = try context.insert("Note")
                note["title"] = .string("title \(index)")
                note["body"] = .string("body of note \(index)")
                note["created"] = .date(secondsSince1970: 1_700_000_000 + Double(index))
                note["pinned"] = .boolean(index % 2 == 0)
            }
            try context.save()
            written = min(count, written + perLog)
            logs += 1
        }
        writer.close()
        let time = try Measurement.run(runs) {
            let name = "reader-" + UUID().uuidString
            _ = try Device.create(at: scratch.path + "/" + name, userName: "reader")
            let reader = try UbiquityPeer(configuration: configuration(name))
            defer { reader.close() }
            var applied = 0
            let elapsed = try seconds { applied = try reader.importAvailable().applied.count }
            guard applied == logs else { throw BenchmarkError("imported \(applied) of \(logs) logs") }
            return elapsed
        }
        return (logs, time)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
