import UbiquityBase

// This peer's logs already written into the container, kept until garbage collection deletes
// their files, so a copy damaged in the cloud (or by a file-sync tool) can be written again;
// then kept for the grace period as collected logs, in case a file-sync tool brings back a
// baseline that lacks them.
extension PersistentStore {
    /// A sent log: its file name and the file's signature when it was written.
    package struct SentLog {
        package let number: Int64
        package let file: String
        package let size: Int64
        package let modificationTime: Double
        package let inode: UInt64
    }

    package func sentLogs() throws -> [SentLog] {
        try locked {
            try database.statement("SELECT number, file, size, mtime, inode FROM Z_SENT ORDER BY number").rows {
                SentLog(number: $0.int64(0), file: $0.string(1) ?? "", size: $0.int64(2), modificationTime: $0.double(3),
                        inode: UInt64(bitPattern: $0.int64(4)))
            }
        }
    }

    /// The bytes kept of sent log `number`.
    package func sentBytes(_ number: Int64) throws -> [UInt8]? { try keptBytes(number, in: "Z_SENT") }

    /// The bytes of log `number` kept in `table` (Z_SENT or Z_COLLECTED).
    private func keptBytes(_ number: Int64, in table: String) throws -> [UInt8]? {
        try locked {
            let statement = try database.statement("SELECT bytes FROM \(table) WHERE number = ?")
            try statement.bind(number, at: 1)
            return try statement.step() ? statement.blob(0) : nil
        }
    }

    /// Records the signature of a sent log's file as it is now (rewritten, or the same bytes again).
    package func updateSent(_ number: Int64, file: DirectoryEntry) throws {
        try locked {
            try database.run("UPDATE Z_SENT SET size = ?, mtime = ?, inode = ? WHERE number = ?",
                             [.integer(file.size), .real(file.modificationTime), .integer(Int64(bitPattern: file.inode)), .integer(number)])
        }
    }

    /// Moves the copy of a sent log whose file garbage collection deleted to the collected logs.
    /// It is kept for the grace period: a file-sync tool may yet keep, under the baseline's name,
    /// a concurrent baseline that lacks the log (two machines rolled and collected while apart),
    /// and then the log is written again (`Exporter.restoreCollectedLogs`).
    package func collectSent(_ number: Int64) throws {
        try locked {
            try database.transaction {
                try database.run("INSERT OR REPLACE INTO Z_COLLECTED (number, file, bytes, collected) SELECT number, file, bytes, ? FROM Z_SENT WHERE number = ?",
                                 [.real(now), .integer(number)])
                try database.run("DELETE FROM Z_SENT WHERE number = ?", [.integer(number)])
            }
        }
    }

    /// The collected logs still kept (number and file name), by number.
    package func collectedLogs() throws -> [(number: Int64, file: String)] {
        try locked {
            try database.statement("SELECT number, file FROM Z_COLLECTED ORDER BY number").rows { ($0.int64(0), $0.string(1) ?? "") }
        }
    }

    /// The bytes kept of collected log `number`.
    package func collectedBytes(_ number: Int64) throws -> [UInt8]? { try keptBytes(number, in: "Z_COLLECTED") }

    /// A collected log written again: back among the sent logs, with its file's signature.
    package func restoreCollected(_ number: Int64, file: DirectoryEntry) throws {
        try locked {
            try database.transaction {
                try database.run(
                    "INSERT OR REPLACE INTO Z_SENT (number, file, bytes, size, mtime, inode) SELECT number, file, bytes, ?, ?, ? FROM Z_COLLECTED WHERE number = ?",
                    [.integer(file.size), .real(file.modificationTime), .integer(Int64(bitPattern: file.inode)), .integer(number)])
                try database.run("DELETE FROM Z_COLLECTED WHERE number = ?", [.integer(number)])
            }
        }
    }

    /// Drops the copies of logs collected before `date` (seconds since 1970).
    package func forgetCollected(before date: Double) throws {
        try locked { try database.run("DELETE FROM Z_COLLECTED WHERE collected < ?", [.real(date)]) }
    }
}
