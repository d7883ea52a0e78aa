import UbiquityBase

extension SyncState {
    /// `{state, line}`: the case's name and the line `status` prints; `importing` adds `done` and `of`.
    public var jsonValue: JSONValue {
        let name: String
        switch self {
        case .starting: name = "starting"
        case .notSyncing(.signedOut): name = "signedOut"
        case .notSyncing(.initialImport): name = "initialImport"
        case .syncing: name = "syncing"
        case let .importing(done, total):
            return .object(["state": .string("importing"), "line": .string(line), "done": .int(Int64(done)), "of": .int(Int64(total))])
        case .upToDate: name = "upToDate"
        case .waiting: name = "waiting"
        case .blocked: name = "blocked"
        }
        return .object(["state": .string(name), "line": .string(line)])
    }
}
