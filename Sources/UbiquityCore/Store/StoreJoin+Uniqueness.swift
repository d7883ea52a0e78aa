import Foundation

// A baseline's uniqueness merges joined into a store (Docs/SyncSemantics.md, uniqueness
// constraints): the constrained values of every insert it holds (`Z_UNIQUE`) and each loser's
// winner (`Z_MERGED`). The caller holds the lock, the attached file (`baseline`) and a transaction.
extension PersistentStore {
    /// Whether the attached file has the uniqueness tables (baselines of earlier builds do not).
    private func attachedHoldsUniqueness() throws -> Bool {
        let statement = try database.statement("SELECT count(*) FROM baseline.sqlite_master WHERE type = 'table' AND name IN ('Z_UNIQUE', 'Z_MERGED')")
        defer { statement.reset() }
        return try statement.step() && statement.int64(0) == 2
    }

    /// After a copy into an empty store: the baseline's tables as they are.
    func copyAttachedUniqueness() throws {
        guard model.hasUniquenessConstraints, try attachedHoldsUniqueness() else { return }
        for table in ["Z_UNIQUE", "Z_MERGED"] {
            try database.execute("DELETE FROM main.\(table); INSERT INTO main.\(table) SELECT * FROM baseline.\(table)")
        }
    }

    /// After a merge of the baseline into a store that holds objects: the losers either side
    /// merged are joined into their winners here, and an insert only this store holds meets
    /// one only the baseline holds with the same values as an import would have — neither
    /// author can have seen the other (whoever had would have brought it along), so they collide.
    func mergeAttachedUniqueness(into changes: inout ObjectChanges) throws {
        guard model.hasUniquenessConstraints, try attachedHoldsUniqueness() else { return }
        func entries(_ mine: String, _ theirs: String) throws -> [(group: String, gid: String)] {
            try database.statement("""
                SELECT scope || ' ' || properties || ' ' || hex(key), gid FROM \(mine).Z_UNIQUE m WHERE m.properties <> '' AND NOT EXISTS (SELECT 1 FROM \(theirs).Z_UNIQUE t
                WHERE t.scope = m.scope AND t.properties = m.properties AND t.key = m.key AND t.gid = m.gid) ORDER BY 1, 2
                """).rows { ($0.string(0) ?? "", $0.string(1) ?? "") }
        }
        let storeOnly = try entries("main", "baseline"), baselineOnly = try entries("baseline", "main")
        // This store's losers too: a baseline from a peer that never met a winner holds its loser
        // alive, and the merge just brought the row back.
        let merged = try database.statement("SELECT loser, winner FROM baseline.Z_MERGED UNION SELECT loser, winner FROM main.Z_MERGED ORDER BY loser")
            .rows { ($0.string(0) ?? "", $0.string(1) ?? "") }
        try database.execute("INSERT OR IGNORE INTO main.Z_UNIQUE SELECT * FROM baseline.Z_UNIQUE")
        let recorded = now
        for (loser, winner) in merged {
            let loser = try GlobalID(loser), winner = try merge.winner(of: try GlobalID(winner))
            guard loser != winner else { continue }
            if try loadRow(try table(loser.entity), loser) != nil {
                try merge.join(loser, into: winner, at: recorded, changes: &changes)
            } else {
                try database.run("INSERT OR IGNORE INTO main.Z_MERGED (loser, winner) VALUES (?, ?)", [.text(loser.description), .text(winner.description)])
            }
        }
        let theirs = Dictionary(grouping: baselineOnly, by: \.group)
        for (group, gid) in storeOnly {
            for other in theirs[group] ?? [] {
                let a = try merge.winner(of: try GlobalID(gid)), b = try merge.winner(of: try GlobalID(other.gid))
                guard a != b else { continue }
                try merge.join(max(a, b), into: min(a, b), at: recorded, changes: &changes)
            }
        }
        // Each side decided its winners' liveness over the inserts and deletes it held.
        for winner in try database.statement("SELECT DISTINCT winner FROM Z_MERGED ORDER BY winner").rows({ $0.string(0) ?? "" }) {
            try merge.settleLiveness(of: try GlobalID(winner), changes: &changes)
        }
    }
}
