import UbiquityBase
import UbiquityPlist

// A save's log written in one walk over its records, without the `PlistValue` tree of
// `plistValue`: the binary plist and the canonical bytes of its checksum are written side by
// side (both take dictionary keys in UTF-8 byte order), and the checksum, the top dictionary's
// first value, is filled in at the end. The bytes are those of `encoded(format: .binary)`.

extension TransactionLog {
    /// The log file's bytes as a binary plist: `encoded(format: .binary)`, faster.
    public func encodedBinary() -> [UInt8] {
        var writer = TransactionLogWriter(records: inserted.count + updated.count + deleted.count)
        return writer.write(self) ?? encoded(format: .binary)
    }
}

/// One walk feeding both the binary plist and the checksum's canonical bytes.
struct TransactionLogWriter {
    private var plist: BinaryPlistStream
    private var canonical: [UInt8] = []
    /// The value names of the last record, in key order, with their canonical key bytes: the
    /// records of a log mostly have the same names, which need sorting once.
    private var lastNames: [(name: String, canonicalKey: [UInt8])] = []
    /// A record's values in `lastNames`' order (room kept from record to record).
    private var ordered: [AttributeValue??] = []
    /// For laid-out records: the last layout met, which of its values were set, and the
    /// indices of those in key order with their names and canonical key bytes.
    private var lastLayout: AttributeLayout?
    private var layoutPresence: [Bool] = []
    private var layoutOrder: [(index: Int, name: String, canonicalKey: [UInt8])] = []

    /// The canonical bytes of the keys every record has (`CanonicalEncoding.appendKey`).
    private static let entityKey = canonicalKey("entity"), gidKey = canonicalKey("gid")
    private static let relationshipsKey = canonicalKey("relationships"), valuesKey = canonicalKey("values")

    private static func canonicalKey(_ key: String) -> [UInt8] {
        var bytes: [UInt8] = []
        CanonicalEncoding.appendKey(key, to: &bytes)
        return bytes
    }

    init(records: Int = 0) {
        // A record of a few values: some dozen objects and about 200 bytes.
        plist = records < 64 ? BinaryPlistStream() : BinaryPlistStream(objects: 10 * records, bytes: 200 * records)
    }

    /// A top-level field of the log; `checksum` is in the plist only.
    private enum Field {
        case checksum
        case scalar(PlistValue)
        case records([ChangeRecord])
        case deleted([GlobalID])
    }

    /// The bytes, or `nil` in the one case a tree's writer would differ: a string of the log
    /// equal to its own checksum (the tree shares that object).
    mutating func write(_ log: TransactionLog) -> [UInt8]? {
        var fields: [(key: String, field: Field)] = [
            ("checksum", .checksum),
            ("format", .scalar(.integer(TransactionLog.formatVersion))),
            ("peerID", .scalar(.string(log.peerID))),
            ("transactionNumber", .scalar(.integer(log.transactionNumber))),
            ("kvStr", .scalar(.string(log.knowledge.description))),
            ("stamp", .scalar(.string(log.stamp.description))),
            ("transactionDate", .scalar(.real(log.transactionDate))),
            ("modelVersionHash", .scalar(.string(log.modelVersionHash))),
            ("storeName", .scalar(.string(log.storeName))),
            ("contentName", .scalar(.string(log.contentName))),
            ("inserted", .records(log.inserted)),
            ("updated", .records(log.updated)),
            ("deleted", .deleted(log.deleted)),
        ]
        if let epoch = log.contentEpoch { fields.append(("contentEpoch", .scalar(.string(epoch)))) }
        fields.sort { CanonicalEncoding.precedes($0.key, $1.key) }
        canonical.reserveCapacity(4096 + 200 * (log.inserted.count + log.updated.count))

        let top = plist.openDictionary(count: fields.count)
        CanonicalEncoding.appendDictionaryHeader(count: fields.count - 1, to: &canonical)
        var checksum: BinaryPlistStream.Reservation?
        for (index, (key, field)) in fields.enumerated() {
            plist.key(key, at: index, of: top)
            if case .checksum = field {
                checksum = plist.reserveString(length: 64, at: index, of: top)
                continue
            }
            CanonicalEncoding.appendKey(key, to: &canonical)
            switch field {
            case .checksum:
                break
            case let .scalar(value):
                scalar(value, at: index, of: top)
            case let .records(records):
                let array = plist.openArray(count: records.count)
                plist.child(array, at: index, of: top)
                CanonicalEncoding.appendArrayHeader(count: records.count, to: &canonical)
                for (position, record) in records.enumerated() { write(record, at: position, of: array) }
            case let .deleted(ids):
                let array = plist.openArray(count: ids.count)
                plist.child(array, at: index, of: top)
                CanonicalEncoding.appendArrayHeader(count: ids.count, to: &canonical)
                for (position, id) in ids.enumerated() {
                    let entry = plist.openDictionary(count: 2)
                    plist.child(entry, at: position, of: array)
                    CanonicalEncoding.appendDictionaryHeader(count: 2, to: &canonical)
                    entryScalar("entity", Self.entityKey, .string(id.entity), at: 0, of: entry)
                    entryScalar("gid", Self.gidKey, .string(id.description), at: 1, of: entry)
                }
            }
        }
        let digest = CanonicalEncoding.sha256HexBytes(ofCanonical: canonical)
        guard let checksum, !plist.hasString(String(decoding: digest, as: UTF8.self)) else { return nil }
        plist.fill(checksum, with: digest)
        return plist.finish()
    }

    /// A record: `entity`, `gid`, `relationships`, `values` — already in key order.
    private mutating func write(_ record: ChangeRecord, at position: Int, of array: BinaryPlistStream.Container) {
        let entry = plist.openDictionary(count: 4)
        plist.child(entry, at: position, of: array)
        CanonicalEncoding.appendDictionaryHeader(count: 4, to: &canonical)
        entryScalar("entity", Self.entityKey, .string(record.id.entity), at: 0, of: entry)
        entryScalar("gid", Self.gidKey, .string(record.id.description), at: 1, of: entry)
        if !writeToOnes(of: record, at: 2, of: entry) {
            entryScalar("relationships", Self.relationshipsKey, record.relationshipsPlist, at: 2, of: entry)
        }
        plist.key("values", at: 3, of: entry)
        canonical.append(contentsOf: Self.valuesKey)
        if case let .laidOut(layout, values) = record.valueStorage {
            writeValues(values, of: layout, at: 3, of: entry)
            return
        }
        if !orderByLastNames(record.values) {
            lastNames = record.values.keys.sorted(by: CanonicalEncoding.precedes).map { ($0, Self.canonicalKey($0)) }
            ordered = lastNames.map { record.values[$0.name] }
        }
        let values = plist.openDictionary(count: lastNames.count)
        plist.child(values, at: 3, of: entry)
        CanonicalEncoding.appendDictionaryHeader(count: lastNames.count, to: &canonical)
        for index in lastNames.indices {
            let (name, canonicalKey) = lastNames[index]
            entryScalar(name, canonicalKey, ordered[index]!.plistValue, at: index, of: values)
        }
    }

    /// The `values` dictionary of a laid-out record (a save's new objects): the order of its
    /// names is worked out once per layout and set of values set, not per record.
    private mutating func writeValues(_ values: [AttributeValue??], of layout: AttributeLayout, at index: Int,
                                      of container: BinaryPlistStream.Container) {
        if lastLayout !== layout || !hasLayoutPresence(values) {
            lastLayout = layout
            layoutPresence = values.map { if case .some = $0 { true } else { false } }
            layoutOrder = values.indices.filter { layoutPresence[$0] }
                .sorted { CanonicalEncoding.precedes(layout.names[$0], layout.names[$1]) }
                .map { ($0, layout.names[$0], Self.canonicalKey(layout.names[$0])) }
        }
        let dictionary = plist.openDictionary(count: layoutOrder.count)
        plist.child(dictionary, at: index, of: container)
        CanonicalEncoding.appendDictionaryHeader(count: layoutOrder.count, to: &canonical)
        for position in layoutOrder.indices {
            let (valueIndex, name, canonicalKey) = layoutOrder[position]
            entryScalar(name, canonicalKey, values[valueIndex]!.plistValue, at: position, of: dictionary)
        }
    }

    /// Whether `values` sets exactly the indices `layoutOrder` was made for.
    private func hasLayoutPresence(_ values: [AttributeValue??]) -> Bool {
        guard values.count == layoutPresence.count else { return false }
        for index in values.indices {
            let isSet = if case .some = values[index] { true } else { false }
            if isSet != layoutPresence[index] { return false }
        }
        return true
    }

    /// Puts the values in `ordered`, in `lastNames`' order, when `values` has exactly those
    /// names. The dictionary is walked, not searched: its names are the model's own strings,
    /// found in `lastNames` by a short scan that compares them at once, where a search hashes each.
    private mutating func orderByLastNames(_ values: [String: AttributeValue?]) -> Bool {
        guard values.count == lastNames.count, values.count <= 32 else { return false }
        // Every slot is written below (the names are distinct on both sides), so none is cleared.
        if ordered.count != values.count { ordered = Array(repeating: nil, count: values.count) }
        for (name, value) in values {
            guard let index = lastNames.firstIndex(where: { $0.name == name }) else { return false }
            ordered[index] = value
        }
        return true
    }

    /// The `relationships` dictionary of a record whose relationships are all to-ones and
    /// that places no member, written as `relationshipsPlist` would be without building it;
    /// `false` (nothing written) for any other record.
    private mutating func writeToOnes(of record: ChangeRecord, at index: Int, of container: BinaryPlistStream.Container) -> Bool {
        guard record.positions.isEmpty, record.relationships.count <= 8 else { return false }
        for change in record.relationships.values { guard case .toOne = change else { return false } }
        plist.key("relationships", at: index, of: container)
        canonical.append(contentsOf: Self.relationshipsKey)
        let dictionary = plist.openDictionary(count: record.relationships.count)
        plist.child(dictionary, at: index, of: container)
        CanonicalEncoding.appendDictionaryHeader(count: record.relationships.count, to: &canonical)
        // One to-one (the usual case) needs no sorting nor search.
        if record.relationships.count == 1, let (name, change) = record.relationships.first, case let .toOne(target) = change {
            writeToOne(name, target, at: 0, of: dictionary)
            return true
        }
        for (position, name) in record.relationships.keys.sorted(by: CanonicalEncoding.precedes).enumerated() {
            guard case let .toOne(target)? = record.relationships[name] else { continue }
            writeToOne(name, target, at: position, of: dictionary)
        }
        return true
    }

    private mutating func writeToOne(_ name: String, _ target: GlobalID?, at position: Int, of dictionary: BinaryPlistStream.Container) {
        plist.key(name, at: position, of: dictionary)
        CanonicalEncoding.appendKey(name, to: &canonical)
        if let target {
            scalar(.string(target.description), at: position, of: dictionary)
        } else {
            // Cleared: an empty dictionary, a container of its own as in the tree.
            plist.child(plist.openDictionary(count: 0), at: position, of: dictionary)
            CanonicalEncoding.appendDictionaryHeader(count: 0, to: &canonical)
        }
    }

    private mutating func entryScalar(_ key: String, _ value: PlistValue, at index: Int, of container: BinaryPlistStream.Container) {
        plist.key(key, at: index, of: container)
        CanonicalEncoding.appendKey(key, to: &canonical)
        scalar(value, at: index, of: container)
    }

    /// `entryScalar` with the key's canonical bytes made beforehand.
    private mutating func entryScalar(_ key: String, _ canonicalKey: [UInt8], _ value: PlistValue, at index: Int,
                                      of container: BinaryPlistStream.Container) {
        plist.key(key, at: index, of: container)
        canonical.append(contentsOf: canonicalKey)
        scalar(value, at: index, of: container)
    }

    private mutating func scalar(_ value: PlistValue, at index: Int, of container: BinaryPlistStream.Container) {
        plist.value(value, at: index, of: container)
        CanonicalEncoding.append(value, to: &canonical)
    }
}

extension ChangeRecord {
    /// The `relationships` dictionary of this record in a log (Docs/ContainerFormat.md), for the payload and
    /// the streaming writer alike: to-one targets (an empty dictionary: cleared), to-many
    /// `add`/`remove`, and ordered members' `positions`.
    var relationshipsPlist: PlistValue {
        var fields: [String: PlistValue] = [:]
        for (name, value) in relationships {
            switch value {
            case let .toOne(target):
                fields[name] = target.map { .string($0.description) } ?? .dictionary([:])
            case let .toMany(added, removed):
                var change: [String: PlistValue] = [:]
                if !added.isEmpty { change["add"] = .array(added.map { .string($0.description) }) }
                if !removed.isEmpty { change["remove"] = .array(removed.map { .string($0.description) }) }
                fields[name] = .dictionary(change)
            }
        }
        // Positions ride in the relationship's dictionary: readers that know no order read
        // `add` and `remove` as before and skip this key.
        for (name, keys) in positions where !keys.isEmpty {
            var change = fields[name]?.dictionaryValue ?? [:]
            // Keyed by member IDs in a `String`-keyed dictionary: two members whose keys differ
            // only in normalisation cannot both be held, and the first keeps its position
            // (the other lists last, as a member never placed) rather than trapping.
            let members = keys.sorted { $0.key < $1.key }.map { ($0.key.description, PlistValue.string($0.value)) }
            change["positions"] = .dictionary(Dictionary(members, uniquingKeysWith: { first, _ in first }))
            fields[name] = .dictionary(change)
        }
        return .dictionary(fields)
    }
}
