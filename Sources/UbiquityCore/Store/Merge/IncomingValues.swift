/// A record's attribute values as the merge reads them. A record the binary log reader laid
/// out by attribute index is read through its table's places for that layout (an array index
/// per value); a record held by name (saves, the tree reader, tests) by name, as before. Both
/// give the same values, so the merge's result does not depend on how a record was made.
struct IncomingValues {
    private enum Source {
        case named([String: AttributeValue?])
        case laidOut(LayoutPlaces, [AttributeValue??])
    }
    private let source: Source
    private let table: EntityTable

    init(_ record: ChangeRecord, table: EntityTable) {
        self.table = table
        switch record.valueStorage {
        case let .named(values): source = .named(values)
        case let .laidOut(layout, values): source = .laidOut(table.places(for: layout), values)
        }
    }

    /// The value the record sets for `attribute`, stored in `column` (`.none`: it sets none).
    func value(_ attribute: String, column: Int) -> AttributeValue?? {
        switch source {
        case let .named(values):
            return values[attribute]
        case let .laidOut(places, values):
            let index = places.indexByColumn[column]
            return index < 0 ? .none : values[index]
        }
    }

    /// Each value the record sets for an attribute that a slot of the table carries, with
    /// its column and slot index (by name: in the dictionary's order; laid out: in the model's).
    func forEach(_ body: (_ column: Int, _ slot: Int, _ value: AttributeValue?) throws -> Void) rethrows {
        switch source {
        case let .named(values):
            for (name, value) in values {
                guard let (column, slot) = table.attributePlace(name) else { continue }
                try body(column, slot, value)
            }
        case let .laidOut(places, values):
            for index in values.indices {
                guard case let .some(value) = values[index], let place = places.places[index] else { continue }
                try body(place.column, place.slot, value)
            }
        }
    }
}

/// Where each attribute of one reader's `AttributeLayout` lives in one entity's table.
final class LayoutPlaces {
    let layout: AttributeLayout
    /// Per attribute index of the layout: its column and slot index (`nil`: no slot carries it).
    let places: [(column: Int, slot: Int)?]
    /// Per column of the table: the layout index of the attribute stored there, or -1.
    let indexByColumn: [Int]

    init(_ layout: AttributeLayout, table: EntityTable) {
        self.layout = layout
        places = layout.names.map { table.attributePlace($0) }
        var indexByColumn = Array(repeating: -1, count: table.columns.count)
        for (index, place) in places.enumerated() {
            if let place, indexByColumn[place.column] < 0 { indexByColumn[place.column] = index }
        }
        self.indexByColumn = indexByColumn
    }
}

/// The places of the last layout a table met: a reader makes one layout per entity per log, so
/// this is worked out once per log, not per record. Used under the store's lock only.
final class LayoutPlacesCache {
    /// Held strongly, so its layout cannot be freed and another made at the same address.
    private var last: LayoutPlaces?

    func places(for layout: AttributeLayout, in table: EntityTable) -> LayoutPlaces {
        if let last, last.layout === layout { return last }
        let made = LayoutPlaces(layout, table: table)
        last = made
        return made
    }
}
