// The answer to "am I synced?" kept in the store, so that a reader in another process (`status`)
// gives the owner's answer. The text is the sync engine's; the store only keeps it.
extension PersistentStore {
    /// Records what the owner's last round of sync found; an unchanged record is not written again.
    package func recordSyncState(_ text: String) throws {
        try locked { try metadata.update(.syncState, text) }
    }

    /// What the owner's last round of sync recorded, `nil` when none has.
    package func recordedSyncState() throws -> String? {
        try locked { try meta(.syncState) }
    }
}
