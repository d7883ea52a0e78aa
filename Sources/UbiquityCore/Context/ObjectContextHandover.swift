// A context follows its store when the store is handed over, so that a context made before a
// store transition (the initial import's handover from the fallback; an account switch) keeps
// working after it without the app making it again.
extension ObjectContext {
    /// Moves this context to the store its store was handed over to, if it was (waiting while
    /// a handover is prepared). Throws `StoreError.retired` for a store retired for good, and
    /// `ContextHandoverError` when the new store holds another account's data while this
    /// context holds unsaved changes.
    func followHandover() throws {
        guard store.isRetired, let successor = try store.successor() else { return }
        if !successor.keepsChanges && hasChanges {
            throw ContextHandoverError.unsavedChangesOfPreviousAccount(reason: successor.reason)
        }
        try rebind(to: successor.store)
    }

    /// The objects this context read are read again from `next`: those it changed keep their
    /// changes over the new store's state (the handover is not a conflict); one gone from
    /// `next` keeps what was read, so its save meets a deleted-in-store conflict that the merge
    /// policy decides. Unchanged objects gone from `next` are forgotten.
    private func rebind(to next: PersistentStore) throws {
        store = next
        lastInsertedEntity = nil
        attributeLayouts = [:]
        for (id, object) in registered where !insertedIDs.contains(id) {
            if let snapshot = try next.snapshot(of: id) {
                object.saved = snapshot
            } else if !object.hasChanges && !deletedIDs.contains(id) {
                registered[id] = nil
            }
        }
        for key in Array(toManyRead.keys) {
            toManyRead[key] = Set(try next.targets(of: key.relationship, of: key.object))
        }
    }
}
