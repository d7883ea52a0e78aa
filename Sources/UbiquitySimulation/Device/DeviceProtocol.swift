import Ubiquity

/// How a device is set up: what its app opens. Sent once to a device process.
public struct DeviceSetup: Codable, Sendable {
    public var name: String
    public var device: String
    public var cloud: String
    /// A model file, or `nil` for the built-in Notes model.
    public var modelFile: String?
    public var contentName: String
    public var baselinePolicy: BaselinePolicyWire
    /// The device's clock is the scenario's time off by this many seconds.
    public var skew: Double
    /// Apple's log level for the device's lines on stderr (0–3); `nil`: it logs nothing.
    public var logLevel: Int?
}

/// `BaselinePolicy` as it travels to a device process.
public struct BaselinePolicyWire: Codable, Sendable {
    public var transactionThreshold: Int64
    public var logBytesFraction: Double
    public var minimumLogBytes: Int64
    public var gracePeriod: Double

    public init(_ policy: BaselinePolicy) {
        transactionThreshold = policy.transactionThreshold
        logBytesFraction = policy.logBytesFraction
        minimumLogBytes = policy.minimumLogBytes
        gracePeriod = policy.gracePeriod
    }

    public var policy: BaselinePolicy {
        BaselinePolicy(transactionThreshold: transactionThreshold, logBytesFraction: logBytesFraction,
                       minimumLogBytes: minimumLogBytes, gracePeriod: gracePeriod)
    }
}

/// What the runner asks of a device's app.
public enum DeviceCommand: Codable, Sendable {
    /// A scenario step the app performs.
    case perform(DeviceVerb)
    /// `edit` with the runner's draw: insert `key` if absent, else update it (or delete it when
    /// `roll` says so), then save.
    case edit(entity: String, key: String, roll: UInt64)
    /// `mutate` with the runner's draw: a random change of the object `key` over the model
    /// (or, `pooled`, an insert of every pooled constrained value), then a save.
    case mutate(key: String, pooled: Bool, roll: UInt64)
    /// The system gives the app time: the background import runs.
    case runBackground
    /// Reports the device's state; `full` adds the merge state and the conflict history.
    case probe(full: Bool)
    /// One object's values (JSON text by attribute), or `nil` when it is not alive.
    case object(entity: String, key: String)
    case count(entity: String)
}

/// One request to a device: what to do, at which scenario time.
public struct DeviceRequest: Codable, Sendable {
    public var now: Double
    public var command: DeviceCommand
}

/// What a device answers: the outcome, the events and saves since its last answer, and what was asked.
public struct DeviceReply: Codable, Sendable {
    /// The step failed with this message (the scenario decides whether that is expected).
    public var error: String?
    /// Transitions in scenario notation (`will-change:accountAdded`, `did-change:added:fallback`)
    /// and `did-import:N` (N objects changed), in the order posted.
    public var events: [String] = []
    /// Transactions the app saved (including saves made in a will-change handler).
    public var saves: [SavedTransaction] = []
    /// Fallback stores handed over, as the account store stood at that moment.
    public var handovers: [Handover] = []
    /// Saves of `mutate` the model's rules refused (rolled back), with the reason.
    public var refusals: [String] = []
    public var state: DeviceState?
    /// `object`: attribute → JSON text of the value; `nil` when not alive.
    public var values: [String: String]?
    public var count: Int?
    /// After the command: the store the app works on (`nil`: not running) and the sum of its
    /// knowledge vector, for the timeline.
    public var storeKind: StoreKind?
    public var account: String?
    public var knowledgeTotal: Int64?
    /// Conflicts the store the app works on recorded since the last answer.
    public var conflicts: [RecordedConflict] = []
    /// The command may have written into the device's mirror (a daemon must look again).
    public var wroteFiles = true
    /// After the command, `status` would say another sync state than the app's `syncState`: both, in words.
    public var syncStateDisagreement: String?

    public init() {}
}

/// A save the app was told succeeded.
public struct SavedTransaction: Codable, Sendable {
    public var device: String
    /// The account of the store (`nil`: the local store).
    public var account: String?
    public var storeKind: StoreKind
    /// The content epoch the transaction was saved in (`nil`: content never removed): a later
    /// removal wins over it.
    public var contentEpoch: String?
    public var peerID: String
    public var number: Int64
    public var stamp: String
    /// The author's knowledge after it, in Apple's string form.
    public var knowledge: String
    /// Simulated seconds since the scenario started.
    public var time: Double
    public var writes: [SavedWrite]
    /// The model version of the store it was saved in.
    public var modelHash: String?
}

/// One object's change in a saved transaction.
public struct SavedWrite: Codable, Sendable {
    public var gid: String
    public var inserted: Bool
    public var deleted: Bool
    /// Attribute → JSON text of the value written.
    public var values: [String: String]
}

/// The account store right after a fallback handed over to it (before anything else was
/// imported, and before an account switch that set it off could move on).
public struct Handover: Codable, Sendable {
    public var account: String
    /// Every object the app saved in the fallback: attribute → JSON text of the value now (of
    /// the object it was merged into, for a uniqueness loser); absent when that is not alive.
    public var values: [String: [String: String]]
    public var liveObjects: [String]
    /// The objects of `values` merged into an object of another entity, which may lack some of
    /// their attributes (those go to the conflict history, not to the object).
    public var mergedAcrossEntities: [String]?
}

/// A device as the invariant checks see it.
public struct DeviceState: Codable, Sendable {
    public var running: Bool
    public var account: String?
    public var storeKind: StoreKind?
    public var peerID: String?
    /// Peer → highest transaction applied.
    public var knowledge: [String: Int64] = [:]
    /// Transaction numbers waiting in the outbox (the mirror or cloud refused them).
    public var outbox: [Int64] = []
    public var backgroundPending = 0
    /// Global IDs of the live objects.
    public var liveObjects: [String] = []
    public var conflictCount = 0
    /// With `full`: the canonical merge state (equal on converged peers) and the losers of the
    /// conflict history as `gid|property|loser stamp`.
    public var mergeState: String?
    public var conflictLosers: [String]?
    /// With `full`: live objects that hold one uniqueness constraint's values together, one
    /// entry per group (`constraint: gid gid…`), and each object's constrained properties.
    public var uniquenessDuplicates: [UniquenessDuplicate]?
}

/// Live objects of one constraint's scope that hold the same constrained values.
public struct UniquenessDuplicate: Codable, Sendable {
    /// The constraint, as `Scope (property, …)`.
    public var constraint: String
    public var properties: [String]
    public var values: String
    public var objects: [String]
}
