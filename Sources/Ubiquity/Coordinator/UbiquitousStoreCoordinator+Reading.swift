import UbiquityCore

// What an app reads from the store it works on now, without reaching into the peer: counts
// and fetches of saved objects, the conflict history, the transaction history. Each call reads
// the current store (the fallback, the account or the local store), so it follows transitions.
extension UbiquitousStoreCoordinator {
    /// The store the app works on now.
    private func currentStore() throws -> PersistentStore {
        guard let peer else { throw PeerError.noStore }
        return peer.store
    }

    /// The number of saved, live objects of `entity` (and its sub-entities) matching
    /// `predicate`, written as `ubiq fetch --where` takes it (`"pinned == true"`).
    public func count(of entity: String, where predicate: String? = nil) throws -> Int {
        try count(try request(entity, where: predicate))
    }

    /// The number of saved, live objects `request` matches (its limit ignored).
    public func count(_ request: FetchRequest) throws -> Int {
        try currentStore().count(request)
    }

    /// The saved, live objects `request` matches, as snapshots (a context's `fetch` gives
    /// objects to change).
    public func fetch(_ request: FetchRequest) throws -> [ObjectSnapshot] {
        try currentStore().fetch(request)
    }

    /// The conflict history of the current store: every concurrent overwrite between peers
    /// that an import decided, oldest first (`ubiq conflicts`). `restoreLoser(ofConflict:)`
    /// on `peer` brings a loser back.
    public func conflicts() throws -> [ConflictRecord] {
        try currentStore().conflicts()
    }

    /// The last `limit` transactions applied to the current store, local and imported, newest first.
    public func history(limit: Int = 100) throws -> [TransactionSummary] {
        try currentStore().transactionHistory(limit: limit)
    }

    /// A fetch request for `entity` with a textual predicate, checked against the model.
    public func request(_ entity: String, where predicate: String? = nil, sortedBy sort: [FetchSortDescriptor] = []) throws -> FetchRequest {
        let description = try configuration.model.entity(named: entity)
        return FetchRequest(entity: entity, predicate: try predicate.map { text throws(PredicateParseError) in
            try FetchPredicate.parse(text, entity: description)
        }, sortDescriptors: sort)
    }
}
