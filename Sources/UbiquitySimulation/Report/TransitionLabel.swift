import Ubiquity

/// A transition as the report names it: by Core Data's name for its type, `will`, `did` or
/// `will/did` (both at one moment), with Core Data's number (`NSPersistentStoreUbiquitousTransitionType`)
/// kept for the tooltip.
struct TransitionLabel: Equatable {
    /// `will`, `did` or `will/did`.
    var phase: String
    /// `accountAdded`, `accountRemoved`, `contentRemoved`, `initialImportCompleted`, or
    /// `store added` (a store added at launch, which has no transition type).
    var name: String
    /// The store the did-change went to.
    var store: String?

    /// The label's text: `will/did accountAdded`, `store added`.
    var text: String { name == Self.storeAdded ? name : "\(phase) \(name)" }

    /// The name of a did-change that adds a store at launch, which is no transition.
    static let storeAdded = "store added"

    /// What the tooltip says after the time and lane.
    var tooltip: String {
        let what: String
        switch phase {
        case "will": what = "will-change"
        case "did": what = "did-change"
        default: what = "will-change, then did-change"
        }
        let type = Self.transitions[name].map { "\(name) (NSPersistentStoreUbiquitousTransitionType \($0.rawValue))" }
            ?? "a store added at launch (no transition type)"
        return "\(what): \(type)\(store.map { ", now on the \($0) store" } ?? "")"
    }

    /// The transitions by the names the scenario notation uses.
    static let transitions: [String: StoreTransition] = [
        "accountAdded": .accountAdded, "accountRemoved": .accountRemoved,
        "contentRemoved": .contentRemoved, "initialImportCompleted": .initialImportCompleted,
    ]

    /// Every label text a transition can have, for checks.
    static var allTexts: Set<String> {
        Set(["will", "did", "will/did"].flatMap { phase in transitions.keys.map { "\(phase) \($0)" } } + [storeAdded])
    }

    /// One event in scenario notation (`will-change:accountAdded`, `did-change:added:fallback`);
    /// `nil` for anything else (such as `will-change-save-failed:…`).
    init?(event: String) {
        let parts = event.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "will-change" where parts.count == 2 && Self.transitions[parts[1]] != nil:
            self.init(phase: "will", name: parts[1], store: nil)
        case "did-change" where parts.count == 3 && (Self.transitions[parts[1]] != nil || parts[1] == "added"):
            self.init(phase: "did", name: parts[1] == "added" ? Self.storeAdded : parts[1], store: parts[2])
        default:
            return nil
        }
    }

    init(phase: String, name: String, store: String?) {
        self.phase = phase
        self.name = name
        self.store = store
    }

    /// The labels of one lane's events at one moment, in order: a will-change followed by the
    /// did-change of the same transition becomes one `will/did` label.
    static func labels(_ events: [String]) -> [(label: String, tooltip: String, isTransition: Bool)] {
        var out: [(String, String, Bool)] = []
        var index = 0
        while index < events.count {
            guard let transition = TransitionLabel(event: events[index]) else {
                out.append((Self.other(events[index]), events[index], false))
                index += 1
                continue
            }
            if transition.phase == "will", index + 1 < events.count, let next = TransitionLabel(event: events[index + 1]),
               next.phase == "did", next.name == transition.name {
                let pair = TransitionLabel(phase: "will/did", name: transition.name, store: next.store)
                out.append((pair.text, pair.tooltip, true))
                index += 2
            } else {
                out.append((transition.text, transition.tooltip, true))
                index += 1
            }
        }
        return out
    }

    /// An event that is not a transition, as a short label: `will-change-save-failed:…` → `save in will-change failed`.
    private static func other(_ event: String) -> String {
        event.hasPrefix("will-change-save-failed") ? "save in will-change failed" : String(event.prefix(40))
    }
}
