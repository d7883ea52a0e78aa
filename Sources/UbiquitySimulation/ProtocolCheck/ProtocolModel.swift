import Ubiquity

/// A small, exact model of the baseline protocol over a file-sync engine, for exhaustive
/// exploration (`ProtocolExplorer`): peers on machines, each machine with its own copy of the
/// cloud, an engine that delivers every change in any order (late deletions included) and makes
/// a conflict copy when two machines wrote one path without seeing each other's write (either
/// may keep the name). A store is its knowledge vector: the merge state is a function of the
/// transactions applied, so two stores that applied the same transactions hold the same data.
///
/// Every decision a peer takes — which baselines to join, whether it may roll, which copies and
/// which own logs it may delete — comes from `BaselineProtocol`, the functions the sync engine
/// runs. `ProtocolRules.legacy` keeps the rules the engine had before (one baseline, the one
/// under the name; a store adopting it replaced its state), so a test can show the exploration
/// finds what broke them.
public struct ProtocolModelConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The machine each peer runs on.
    public var placement: [Int]
    /// Peers that start later, with an empty store (newcomers).
    public var latecomers: Set<Int>
    /// Saves across all peers.
    public var saves: Int
    /// Baselines rolled because a peer chose to (thresholds), across all peers.
    public var rolls: Int
    /// Baselines rolled because the rules require it (stranded transactions, unresolved copies).
    public var forcedRolls: Int
    public var rules: ProtocolRules

    public init(placement: [Int], latecomers: Set<Int> = [], saves: Int, rolls: Int, forcedRolls: Int = 2, rules: ProtocolRules = .current) {
        self.placement = placement
        self.latecomers = latecomers
        self.saves = saves
        self.rolls = rolls
        self.forcedRolls = forcedRolls
        self.rules = rules
    }

    public var peers: Int { placement.count }
    public var machines: Int { (placement.max() ?? 0) + 1 }

    public var description: String {
        "\(peers) peers on \(machines) machines (\(placement.enumerated().map { "p\($0.offset)@m\($0.element)" }.joined(separator: " "))"
            + (latecomers.isEmpty ? "" : "; late: " + latecomers.sorted().map { "p\($0)" }.joined(separator: " "))
            + "), \(saves) saves, \(rolls) rolls, \(forcedRolls) forced rolls, \(rules.rawValue) rules"
    }
}

/// Which rules the modelled peers follow.
public enum ProtocolRules: String, Sendable, Hashable, CaseIterable {
    /// `BaselineProtocol`: every visible baseline is read and joined; knowledge only grows.
    case current
    /// The rules before the fix: only the baseline under the name counts, and a store that
    /// needs it replaces its state by it, keeping only what it cannot import again.
    case legacy
}

/// A knowledge vector over the model's peers: transactions applied, by author index.
typealias ModelKnowledge = [UInt8]

/// A path in the modelled cloud.
enum ModelPath: Hashable, Comparable, CustomStringConvertible {
    case log(peer: Int, number: Int)
    case receipt(peer: Int)
    case baseline
    case copy(Int)

    var description: String {
        switch self {
        case let .log(peer, number): return "p\(peer)/log\(number)"
        case let .receipt(peer): return "p\(peer)/receipt"
        case .baseline: return "baseline.zip"
        case let .copy(index): return "baseline.conflict-\(index).zip"
        }
    }
}

/// What a modelled file holds.
enum ModelContent: Hashable {
    /// A log: what its author had applied when it saved.
    case log(knowledge: ModelKnowledge)
    case receipt(knowledge: ModelKnowledge, view: ModelKnowledge)
    /// A baseline: what it holds, and the conflict copies its roller had joined (their paths).
    case baseline(ModelKnowledge, resolves: [Int])
}

/// One state of the modelled world, packed for fast hashing: file contents are interned in the
/// model's `ContentTable` and referred to by number (0: no file; 1, in the engine: deleted).
struct ModelState: Hashable {
    /// Per peer, its store: `peers` entries each.
    var stores: [UInt8]
    var started: UInt8
    /// Transactions saved, by author: the set every store must reach.
    var created: [UInt8]
    var savesLeft: UInt8
    var rollsLeft: UInt8
    var forcedLeft: UInt8
    /// Per machine and path slot, the content there.
    var files: [UInt16]
    /// Per path slot, the engine's latest version and the machines holding it (a bit each).
    var global: [UInt16]
    var current: [UInt8]
    var nextCopy: UInt8
}

/// A step of the model, for counterexample traces.
struct ModelStep: Hashable, CustomStringConvertible {
    enum Kind: Hashable {
        case start, save, roll, sync, deliver(ModelPath)
    }
    let kind: Kind
    /// The peer (or, for a delivery, the machine).
    let actor: Int
    /// For writes that collided: whether this machine's version kept the name.
    var keptName: Bool?

    /// Saves and rolls happen by choice; every other step is what peers and the engine do
    /// until nothing is left to do (a state where only choices remain is quiescent).
    var isChoice: Bool { kind == .save || kind == .roll }

    var description: String {
        let conflict = keptName.map { $0 ? " (conflict: this write keeps the name)" : " (conflict: this write becomes a copy)" } ?? ""
        switch kind {
        case .start: return "p\(actor) starts (a newcomer)"
        case .save: return "p\(actor) saves" + conflict
        case .roll: return "p\(actor) rolls a baseline" + conflict
        case .sync: return "p\(actor) syncs (joins the baselines it needs, imports, writes its receipt; rolls if forced; collects)" + conflict
        case let .deliver(path): return "the engine delivers \(path) to m\(actor)"
        }
    }
}
