import Foundation
import UbiquityBase

// The canonical state of a store, for convergence checks and `ubiq dump`.
extension PersistentStore {
    /// Every live object with its values and relationships, sorted by global ID. Two peers that
    /// applied the same logs return equal values (and so print byte-identical JSON).
    public func dump() throws -> JSONValue {
        try locked {
            var objects: [JSONValue] = []
            for entity in model.entities.sorted(by: { $0.name < $1.name }) {
                for snapshot in try fetch(FetchRequest(entity: entity.name, includesSubentities: false)) {
                    objects.append(try json(of: snapshot, entity: entity))
                }
            }
            return .array(objects)
        }
    }

    /// One object as JSON: `{id, entity, values, relationships}`.
    public func json(of snapshot: ObjectSnapshot, entity: EntityDescription) throws -> JSONValue {
        var relationships: [String: JSONValue] = [:]
        for relationship in entity.relationships {
            if relationship.isToMany {
                relationships[relationship.name] = .array(try targets(of: relationship.name, of: snapshot.id).map { .string($0.description) })
            } else {
                relationships[relationship.name] = (snapshot.toOne[relationship.name] ?? nil).map { .string($0.description) } ?? .null
            }
        }
        return .object([
            "id": .string(snapshot.id.description),
            "entity": .string(entity.name),
            "values": .object(snapshot.values.mapValues(\.jsonValue)),
            "relationships": .object(relationships),
        ])
    }

    /// The whole merge state — every row (dead ones too) with its slot stamps and writers, every
    /// pair with its stamp, every tombstone, every uniqueness loser's winner — but nothing local (versions, history, conflicts).
    /// Peers that applied the same set of logs have equal merge states: the invariant of Docs/SyncSemantics.md.
    public func mergeState() throws -> JSONValue {
        try locked {
            var state: [String: JSONValue] = [:]
            for table in tables.values {
                let writerColumns = Set(table.slotWriterColumn.values)
                let columns = table.columns.enumerated().filter { $0.offset != EntityTable.versionColumn && !writerColumns.contains($0.offset) }
                let statement = try database.statement("SELECT \(table.columnList) FROM \(table.quotedName) ORDER BY gid")
                state[table.tableName] = .array(try statement.rows { row in
                    var fields = Dictionary(uniqueKeysWithValues: columns.map { ($0.element, row.value(Int32($0.offset)).jsonValue) })
                    // Each slot's writer as its stamp and number: writer ids differ from peer to peer.
                    for slot in table.slots {
                        let writer = try row.value(Int32(table.slotWriterColumn[slot.name]!)).integerValue.flatMap { try slotWriter(id: $0) }
                        fields["s_" + slot.name] = writer.map { .string($0.stamp.description) } ?? .null
                        fields["n_" + slot.name] = writer.map { .int($0.number) } ?? .null
                    }
                    return .object(fields)
                })
            }
            for pairs in pairTables.values {
                state[pairs.tableName] = .array(try database.statement("SELECT source, target, present, stamp, number FROM \(pairs.quotedName) ORDER BY source, target").rows { row in
                    .array((0..<5).map { row.value(Int32($0)).jsonValue })
                })
            }
            for order in orderTables.values {
                state[order.tableName] = .array(try database.statement("SELECT source, target, position, stamp, number FROM \(order.quotedName) ORDER BY source, target").rows { row in
                    .array((0..<5).map { row.value(Int32($0)).jsonValue })
                })
            }
            state["tombstones"] = .array(try database.statement("SELECT gid, peer, number, stamp FROM Z_TOMBSTONES ORDER BY gid, peer, number").rows { row in
                .array((0..<4).map { row.value(Int32($0)).jsonValue })
            })
            // Which object each loser of a uniqueness constraint became (only models with constraints have any).
            if model.hasUniquenessConstraints {
                state["merged"] = .array(try database.statement("SELECT loser, winner FROM Z_MERGED ORDER BY loser").rows { row in
                    .array((0..<2).map { row.value(Int32($0)).jsonValue })
                })
            }
            return .object(state)
        }
    }
}

extension SQLiteValue {
    var integerValue: Int64? { if case let .integer(i) = self { return i } else { return nil } }

    /// The stored value in JSON; blobs as base64.
    var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case let .integer(i): return .int(i)
        case let .real(d): return .double(d)
        case let .text(s): return .string(s)
        case let .blob(b): return .string(Data(b).base64EncodedString())
        }
    }
}
