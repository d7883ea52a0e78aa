/// The positions of one ordered to-many relationship (`O_<entity>_<relationship>`, of the
/// entity that declares it): per (source, member) its `OrderKey` and the stamp and writer of
/// its last placement. Membership stays where the relationship keeps it (pairs or the inverse
/// to-one); this table only orders the members, and a position outlives a removal harmlessly.
struct OrderTable {
    let owner: String
    let relationship: String
    let destination: String
    let tableName: String
    let quotedName: String
    let selectSQL: String
    let writeSQL: String

    init(owner: String, relationship: String, destination: String) {
        self.owner = owner
        self.relationship = relationship
        self.destination = destination
        tableName = "O_\(owner)_\(relationship)"
        quotedName = SQLiteDatabase.quote(tableName)
        selectSQL = "SELECT position, stamp, number FROM \(quotedName) WHERE source = ? AND target = ?"
        writeSQL = "INSERT OR REPLACE INTO \(quotedName) (source, target, position, stamp, number) VALUES (?, ?, ?, ?, ?)"
    }

    var createSQL: String {
        "CREATE TABLE IF NOT EXISTS \(quotedName) (source TEXT NOT NULL, target TEXT NOT NULL, position TEXT NOT NULL, stamp TEXT NOT NULL, number INTEGER NOT NULL, PRIMARY KEY (source, target)) WITHOUT ROWID;"
    }

    /// Every ordered relationship of `model`, by `"<owner>.<relationship>"`.
    static func all(of model: ObjectModel) -> [String: OrderTable] {
        var result: [String: OrderTable] = [:]
        for entity in model.entities {
            for relationship in entity.relationships where relationship.isToMany && relationship.isOrdered {
                let owner = model.declaringEntity(of: relationship.name, in: entity.name)
                result["\(owner).\(relationship.name)"] = OrderTable(owner: owner, relationship: relationship.name, destination: relationship.destination)
            }
        }
        return result
    }
}

/// A member's place in an ordered to-many: its key, then the stamp of its placement and its ID
/// break ties, so every peer holding the same state lists the members alike.
public struct MemberPosition: Sendable, Comparable {
    public let member: GlobalID
    /// `nil`: never placed (added by a peer that knew no order); such members come last.
    public let key: String?
    public let stamp: String?

    public static func < (a: MemberPosition, b: MemberPosition) -> Bool {
        switch (a.key, b.key) {
        case let (x?, y?) where x != y: return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
        case (.some, nil): return true
        case (nil, .some): return false
        default:
            if a.stamp != b.stamp { return (a.stamp ?? "") < (b.stamp ?? "") }
            return a.member < b.member
        }
    }
}
