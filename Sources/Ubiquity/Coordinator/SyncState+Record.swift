import Foundation

// One answer to "am I synced?" for the app and for `status`: the coordinator records each
// state it takes in the store it is about, and `recorded(in:)` reads it back, so a reader in
// another process says what the app says, computed once by the same code.
extension SyncState {
    /// The state of `peer`'s store as its owner last recorded it (what `ubiq status` prints
    /// first): the local store does not sync, a fallback waits for the initial import, and an
    /// account store says what its owner's last round found (`.starting` before any).
    public static func recorded(in peer: UbiquityPeer) -> SyncState {
        switch peer.kind {
        case .local: return .notSyncing(.signedOut)
        case .fallback: return .notSyncing(.initialImport)
        case .account:
            guard let text = try? peer.store.recordedSyncState() else { return .starting }
            return (try? JSONDecoder().decode(SyncState.self, from: Data(text.utf8))) ?? .starting
        }
    }

    /// The record's text: JSON, whose dates come back exactly (seconds as a double).
    var recordText: String? {
        (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension UbiquityPeer {
    /// One round of ``sync(importBatchSize:reportingImportFailure:)`` whose outcome is then
    /// recorded as the store's sync state, for a peer used without a coordinator (as `ubiq sync`
    /// uses one): ``SyncState/recorded(in:)`` then says what this round found. A coordinator
    /// records its own rounds; the peer's plain `sync` records nothing, so the syncs a peer runs
    /// on its own (turning encryption on) never overwrite what its coordinator said.
    public func syncRecordingState(importBatchSize: Int = .max, reportingImportFailure: Bool = false) throws -> SyncSummary {
        do {
            let summary = try sync(importBatchSize: importBatchSize, reportingImportFailure: reportingImportFailure)
            recordSyncState(SyncState(summary, at: configuration.clock.now))
            return summary
        } catch {
            recordSyncState(SyncState(failure: error))
            throw error
        }
    }

    /// Records `state` for `SyncState.recorded(in:)`; a peer that only reads records nothing.
    package func recordSyncState(_ state: SyncState) {
        guard !isReadOnly, kind == .account, let text = state.recordText else { return }
        do { try store.recordSyncState(text) } catch {
            logger.log(.warning, .setupAssistant, "syncState", "the sync state could not be recorded for status: \(error)")
        }
    }
}
