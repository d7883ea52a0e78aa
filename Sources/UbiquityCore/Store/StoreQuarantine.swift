import Foundation
import UbiquityBase

/// A file from the cloud that was set aside instead of applied.
public struct QuarantineRecord: Sendable, Equatable {
    /// Path relative to the ubiquity root.
    public let path: String
    public let size: Int64
    public let modificationTime: Double
    /// The file's `DirectoryEntry.signature` when it was set aside (size, modification time,
    /// inode and change time; `nil` in records written before signatures were kept).
    public let signature: String?
    public let reason: String
    public let recorded: Date
    /// When the reason may no longer hold although the file is unchanged (seconds since 1970):
    /// a log stamped too far ahead of this machine's clock is tried again once the clock has
    /// come near enough. `nil`: only a change of the file ends the quarantine.
    public let retryAfter: Double?

    /// Whether `file` is the very file that was set aside, unchanged.
    public func matches(_ file: DirectoryEntry) -> Bool { signature == file.signature }

    /// Whether the record still holds for `file` at `now` (seconds since 1970): the file is
    /// unchanged and no retry is due.
    public func holds(for file: DirectoryEntry, now: Double) -> Bool { matches(file) && retryAfter.map { now < $0 } ?? true }
}

// A file once quarantined is skipped, without being read, while its signature stays the same:
// a bad file is reported once and costs nothing after. Any change of its bytes (or of its mode:
// a file a file-sync tool wrote unreadable and then fixed) changes its change time, so it is
// tried again. `QuarantineTable` holds the SQL.
extension PersistentStore {
    public func quarantined() throws -> [QuarantineRecord] { try locked { try quarantineRecords().all } }

    /// The signature of every file whose quarantine holds now unless it changed, by path: a
    /// scan of many files asks once.
    package func quarantineSignatures() throws -> [String: String] {
        try locked {
            let now = self.now
            var signatures: [String: String] = [:]
            for record in try quarantineRecords().all where record.retryAfter.map({ $0 > now }) ?? true {
                if let signature = record.signature { signatures[record.path] = signature }
            }
            return signatures
        }
    }

    /// The record of `path`, if it was set aside (its file may have changed since).
    package func quarantineRecord(path: String) throws -> QuarantineRecord? { try locked { try quarantineRecords().byPath[path] } }

    /// Every record, by path too, read again only after the store changed: every sync asks
    /// (the scan, the catalog, each log it imports), and the table is mostly empty.
    private func quarantineRecords() throws -> (all: [QuarantineRecord], byPath: [String: QuarantineRecord]) {
        try database.unchangedRead("quarantine") {
            let all = try quarantine.all()
            return (all, Dictionary(all.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first }))
        }
    }

    /// Whether `file` at `path` was set aside and the quarantine still holds (see `QuarantineRecord.holds`).
    package func isQuarantined(path: String, file: DirectoryEntry) throws -> Bool {
        try quarantineRecord(path: path)?.holds(for: file, now: now) ?? false
    }

    /// Sets `file` at `path` aside for `reason`, until it changes (or, with `retryAfter`, until then).
    package func recordQuarantine(path: String, file: DirectoryEntry, reason: String, retryAfter: Double? = nil) throws {
        try locked {
            quarantineChangeCount &+= 1
            try quarantine.add(path: path, file: file, reason: reason, now: now, retryAfter: retryAfter)
        }
    }

    package func clearQuarantine(path: String) throws {
        try locked {
            quarantineChangeCount &+= 1
            try quarantine.remove(path: path)
        }
    }

    /// A count that changes whenever a quarantine record is added or removed through this
    /// store: what was judged from the records (which files count, which are skipped) holds
    /// while it stays the same. Another process never writes the store while this one has it.
    package var quarantineChanges: UInt64 { lockedState { quarantineChangeCount } }
}
