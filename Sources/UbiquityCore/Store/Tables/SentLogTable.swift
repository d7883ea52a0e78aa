import UbiquityBase

/// A log of this peer's already written into the container: its file name and the file's
/// signature when it was written.
package struct SentLog: Sendable {
    package let number: Int64
    package let file: String
    package let size: Int64
    package let modificationTime: Double
    package let inode: UInt64
}

/// `Z_SENT`: this peer's logs already written into the container, kept until garbage
/// collection deletes their files, so a copy damaged in the cloud (or by a file-sync tool) can
/// be written again. Its callers hold the store's lock.
struct SentLogTable {
    let database: SQLiteDatabase

    /// Keeps a copy of outbox entry `number` (its bytes) with the signature of the file written.
    func add(fromOutbox number: Int64, file: DirectoryEntry) throws {
        try database.run(
            "INSERT OR REPLACE INTO Z_SENT (number, file, bytes, size, mtime, inode) SELECT number, file, bytes, ?, ?, ? FROM Z_OUTBOX WHERE number = ?",
            [.integer(file.size), .real(file.modificationTime), .integer(Int64(bitPattern: file.inode)), .integer(number)])
    }

    func all() throws -> [SentLog] {
        try database.statement("SELECT number, file, size, mtime, inode FROM Z_SENT ORDER BY number").rows {
            SentLog(number: $0.int64(0), file: $0.string(1) ?? "", size: $0.int64(2), modificationTime: $0.double(3),
                    inode: UInt64(bitPattern: $0.int64(4)))
        }
    }

    /// The bytes kept of sent log `number`.
    func bytes(_ number: Int64) throws -> [UInt8]? {
        let statement = try database.statement("SELECT bytes FROM Z_SENT WHERE number = ?")
        try statement.bind(number, at: 1)
        return try statement.step() ? statement.blob(0) : nil
    }

    /// Records the signature of a sent log's file as it is now.
    func update(_ number: Int64, file: DirectoryEntry) throws {
        try database.run("UPDATE Z_SENT SET size = ?, mtime = ?, inode = ? WHERE number = ?",
                         [.integer(file.size), .real(file.modificationTime), .integer(Int64(bitPattern: file.inode)), .integer(number)])
    }

    /// Forgets every sent log (a migration: the new version's folder starts empty).
    func removeAll() throws { try database.execute("DELETE FROM Z_SENT") }

    func remove(_ number: Int64) throws {
        try database.run("DELETE FROM Z_SENT WHERE number = ?", [.integer(number)])
    }
}
