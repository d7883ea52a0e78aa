import UbiquityBase

// This peer's logs already written into the container, kept until garbage collection deletes
// their files, so a copy damaged in the cloud (or by a file-sync tool) can be written again.
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

    /// Forgets the copy of a sent log whose file garbage collection deleted: a baseline holds it,
    /// and every peer has it (or the grace period passed), so it is never written again.
    package func forgetSent(_ number: Int64) throws {
        try locked { try database.run("DELETE FROM Z_SENT WHERE number = ?", [.integer(number)]) }
    }
}
