import UbiquitySync

extension SyncState {
    /// What a report of the round's import, `progress`, makes of this state: `.importing` with
    /// the logs done of those found, never fewer done nor fewer found than told already (reports
    /// may come late and out of step with a second import in the round); `nil` when the state
    /// stays as it is — no longer in the round's syncing, or nothing new to tell.
    func importing(_ progress: SyncActivity.Progress) -> SyncState? {
        guard progress.logsTotal > 0 else { return nil }
        switch self {
        case .syncing:
            return .importing(done: min(progress.logsDone, progress.logsTotal), of: progress.logsTotal)
        case let .importing(done, total):
            let next = SyncState.importing(done: max(done, min(progress.logsDone, progress.logsTotal)), of: max(total, progress.logsTotal))
            return next == self ? nil : next
        default:
            return nil
        }
    }

    /// Whether recording `self` after `recorded` is worth a write for `status`: a round's
    /// import is recorded as it starts and at each further tenth, not at every report.
    func worthRecording(after recorded: SyncState?) -> Bool {
        guard case let .importing(done, total) = self, case let .importing(before, beforeTotal)? = recorded else { return true }
        return total != beforeTotal || done * 10 / max(total, 1) != before * 10 / max(total, 1)
    }
}
