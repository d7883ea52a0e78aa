import Ubiquity

// The tool words the library's remedies as its own commands: a person at a terminal is told
// what to type, an app developer reading the library's `description` which API to call.
extension Remedy {
    /// The remedy as a clause naming the command that does it ("run '…'").
    var command: String {
        switch self {
        case .createDevice: return "run 'ubiq device init'"
        case let .moveCloud(cloud, device): return "run 'ubiq device move-cloud \(cloud) --device \(device)'"
        case .unlockEncryption: return "run 'ubiq encryption unlock'"
        case .enableEncryption: return "run 'ubiq encryption enable'"
        case .repairKeyRecord: return "run 'ubiq encryption repair'"
        case .migrateStore: return "run 'ubiq model migrate --to MODEL'"
        case .migrateStoreFromModel: return "run 'ubiq model migrate --from OLD-MODEL --to NEW-MODEL'"
        case .compareModels: return "run 'ubiq model diff'"
        case .examine: return "run 'ubiq doctor'"
        case .openAccountStore: return "run 'ubiq store'"
        case .sync: return "run 'ubiq sync'"
        case .rollBaseline: return "run 'ubiq baseline --force'"
        case .shortenGracePeriod: return "run 'ubiq gc --grace SECONDS'"
        }
    }
}

extension Advice {
    /// The message as the tool prints it: each remedy a command.
    var commandText: String { worded(\.command) }
}
