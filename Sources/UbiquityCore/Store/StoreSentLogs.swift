import UbiquityBase

// The sent logs (`SentLogTable`) through the store's lock.
extension PersistentStore {
    package func sentLogs() throws -> [SentLog] { try locked { try database.unchangedRead("sentLogs") { try sentLogTable.all() } } }

    /// The bytes kept of sent log `number`.
    package func sentBytes(_ number: Int64) throws -> [UInt8]? { try locked { try sentLogTable.bytes(number) } }

    /// Records the signature of a sent log's file as it is now (rewritten, or the same bytes again).
    package func updateSent(_ number: Int64, file: DirectoryEntry) throws {
        try locked { try sentLogTable.update(number, file: file) }
    }

    /// Forgets the copy of a sent log whose file garbage collection deleted: a baseline holds it,
    /// and every peer has it (or the grace period passed), so it is never written again.
    package func forgetSent(_ number: Int64) throws {
        try locked { try sentLogTable.remove(number) }
    }
}
