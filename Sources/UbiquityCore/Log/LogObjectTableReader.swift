import Crypto
import Foundation
import UbiquityBase
import UbiquityPlist

extension TransactionLog {
    /// The log in `bytes` read straight from a binary plist's object table: the checksum over
    /// the canonical form (`CanonicalEncoding`) computed from the objects as they lie in the
    /// file, the records decoded without a `PlistValue` tree of the whole log. `nil` when the
    /// bytes are not such a log or anything is unusual (a check fails, a key is not ASCII, the
    /// keys of a dictionary are not in the byte order this library writes them in): the tree
    /// reader then reads the file and says what is wrong, so both readers accept the same logs
    /// and every error is the tree reader's.
    static func decodeObjectTable(_ bytes: UnsafeBufferPointer<UInt8>, model: ObjectModel) -> TransactionLog? {
        guard let objects = BinaryPlistObjects(bytes, limits: .default) else { return nil }
        var reader = LogObjectTableReader(objects: objects, model: model)
        return reader.read()
    }
}

/// One pass over a binary log's objects for its checksum, then one over the records it
/// holds; values are built only for the leaves (and for relationship changes, which are small).
/// Typing and validation are the tree reader's own functions.
struct LogObjectTableReader {
    let objects: BinaryPlistObjects
    let model: ObjectModel
    /// The canonical form of the payload, hashed as it is appended.
    private let canonical = CanonicalBytes()
    /// The entities met so far, by the bytes of their names.
    private let shapes = EntityShapes()
    /// Values visited, counted as the tree reader counts them (keys too) against `maxObjects`.
    private var produced = 0
    /// Most bytes the canonical form may take (a bound on the hashing): an honest log's is a few
    /// times its file, but a string or data object referenced from many places is copied at every use.
    private let canonicalLimit: Int

    init(objects: BinaryPlistObjects, model: ObjectModel) {
        self.objects = objects
        self.model = model
        canonicalLimit = objects.bytes.count * 32 + (1 << 20)
    }

    private static let headerKeys: Set<String> = [
        "format", "peerID", "transactionNumber", "kvStr", "stamp", "transactionDate",
        "modelVersionHash", "storeName", "contentName", "contentEpoch",
    ]

    mutating func read() -> TransactionLog? {
        guard case let .dictionary(refs, count)? = objects.object(objects.top), count > 0 else { return nil }
        var checksum: Int?
        var header: [String: PlistValue] = [:]
        // The records are read in the checksum's walk (from the objects it visits), and kept
        // only when the checksum matches.
        var lists: (inserted: [ChangeRecord]?, updated: [ChangeRecord]?) = (nil, nil)
        var deleted: Int?
        produced = 1
        canonical.append(UInt8(ascii: "m"), bigEndian: UInt64(count - 1))  // without the checksum (checked below to be there)
        var previous: Range<Int>?
        for i in 0 ..< count {
            guard let keyRef = objects.reference(refs, i), let valueRef = objects.reference(refs, count + i),
                  let key = orderedKey(keyRef, after: previous) else { return nil }
            previous = key
            produced += 1
            let name = String(decoding: UnsafeBufferPointer(rebasing: objects.bytes[key]), as: UTF8.self)
            if name == "checksum" {
                checksum = valueRef
                produced += 1  // the tree reader decodes it before removing it
                continue
            }
            appendString(objects.bytes[key])
            switch name {
            case "inserted": guard let list = recordList(valueRef) else { return nil }; lists.inserted = list
            case "updated": guard let list = recordList(valueRef) else { return nil }; lists.updated = list
            default: guard walk(valueRef, depth: 1) else { return nil }
            }
            switch name {
            case "inserted", "updated": break
            case "deleted": deleted = valueRef
            default:
                if Self.headerKeys.contains(name) {
                    guard let value = objects.value(valueRef, depth: 1) else { return nil }
                    header[name] = value
                }
            }
        }
        guard let checksum, case let .string(expected)? = objects.value(checksum, depth: 1),
              header["format"]?.int64Value == TransactionLog.formatVersion,
              hexDigest() == expected else { return nil }

        guard var log = try? TransactionLog(header: header, model: model),
              let inserted = lists.inserted, let updated = lists.updated,
              case let .array(deletedRefs, deletedCount)? = deleted.flatMap({ objects.object($0) }) else { return nil }
        log.inserted = inserted
        log.updated = updated
        log.deleted.reserveCapacity(deletedCount)
        for i in 0 ..< deletedCount {
            guard let ref = objects.reference(deletedRefs, i), let item = objects.value(ref, depth: 2),
                  let id = try? TransactionLog.objectID(item, model: model).id else { return nil }
            log.deleted.append(id)
        }
        return log
    }

    // MARK: The checksum

    /// The key object `ref` as a byte range, when it is an ASCII string after `previous` in
    /// byte order (the order `BinaryPlistWriter` writes; it also rules out repeated keys).
    private func orderedKey(_ ref: Int, after previous: Range<Int>?) -> Range<Int>? {
        guard case let .string8(range, ascii: true)? = objects.object(ref) else { return nil }
        if let previous, let base = objects.bytes.baseAddress {
            // Unsigned byte order, as `memcmp` compares (every key of a log is checked).
            let order = memcmp(base + previous.lowerBound, base + range.lowerBound, min(previous.count, range.count))
            guard order < 0 || (order == 0 && previous.count < range.count) else { return nil }
        }
        return range
    }

    /// Appends object `index`'s canonical form (`CanonicalEncoding.append`); `false` when the
    /// object is unreadable, nested too deep (a cycle ends there too) or past the value limit.
    private mutating func walk(_ index: Int, depth: Int) -> Bool {
        produced += 1
        guard produced <= objects.limits.maxObjects, let object = objects.object(index) else { return false }
        return append(object, depth: depth)
    }

    /// Appends `object`'s canonical form (its index was counted); as `walk`.
    private mutating func append(_ object: BinaryPlistObjects.Object, depth: Int) -> Bool {
        switch object {
        case .null: canonical.append(UInt8(ascii: "n"))
        case let .boolean(b): canonical.append(b ? UInt8(ascii: "T") : UInt8(ascii: "F"))
        case let .integer(i): canonical.append(UInt8(ascii: "i"), bigEndian: UInt64(bitPattern: i))
        case let .unsignedInteger(u): canonical.append(UInt8(ascii: "u"), bigEndian: u)
        case let .real(d): canonical.append(UInt8(ascii: "r"), bigEndian: d.isNaN ? Double.nan.bitPattern : d.bitPattern)
        case let .date(d): canonical.append(UInt8(ascii: "d"), bigEndian: d.bitPattern)
        case let .uid(u): canonical.append(UInt8(ascii: "U"), bigEndian: u)
        case let .data(range):
            canonical.append(UInt8(ascii: "b"), bigEndian: UInt64(range.count))
            canonical.append(UnsafeBufferPointer(rebasing: objects.bytes[range]))
        case let .string8(range, ascii):
            if !ascii, String(validating: objects.bytes[range], as: UTF8.self) == nil { return false }
            canonical.append(UInt8(ascii: "s")); appendString(objects.bytes[range])  // valid UTF-8 is kept as it is
        case .string16:
            guard var text = objects.string(object) else { return false }
            canonical.append(UInt8(ascii: "s"))
            text.withUTF8 { appendString($0[...]) }
        case let .array(refs, count):
            guard depth < objects.limits.maxDepth else { return false }
            canonical.append(UInt8(ascii: "a"), bigEndian: UInt64(count))
            for i in 0 ..< count {
                guard let ref = objects.reference(refs, i), walk(ref, depth: depth + 1) else { return false }
            }
        case let .dictionary(refs, count):
            guard depth < objects.limits.maxDepth else { return false }
            canonical.append(UInt8(ascii: "m"), bigEndian: UInt64(count))
            var previous: Range<Int>?
            for i in 0 ..< count {
                guard let keyRef = objects.reference(refs, i), let valueRef = objects.reference(refs, count + i),
                      let key = orderedKey(keyRef, after: previous) else { return false }
                previous = key
                produced += 1
                appendString(objects.bytes[key])
                guard walk(valueRef, depth: depth + 1) else { return false }
            }
        }
        return canonical.count <= canonicalLimit
    }

    private func appendString(_ utf8: Slice<UnsafeBufferPointer<UInt8>>) {
        canonical.append(length: UnsafeBufferPointer(rebasing: utf8))
    }

    /// The SHA-256 of the canonical form in lower-case hex, as `CanonicalEncoding.sha256Hex`.
    private func hexDigest() -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        let digest = canonical.digest()
        return String(unsafeUninitializedCapacity: 64) { out in
            var o = 0
            for byte in digest {
                out[o] = digits[Int(byte >> 4)]
                out[o + 1] = digits[Int(byte & 0x0F)]
                o += 2
            }
            return o
        }
    }

    // MARK: The records

    /// The change records of array `ref` (a top-level value), its canonical form appended as
    /// `walk` appends it; `nil` when it is not an array of valid records (or `walk` would fail).
    private mutating func recordList(_ ref: Int) -> [ChangeRecord]? {
        produced += 1
        guard produced <= objects.limits.maxObjects, 1 < objects.limits.maxDepth,
              case let .array(refs, count)? = objects.object(ref) else { return nil }
        canonical.append(UInt8(ascii: "a"), bigEndian: UInt64(count))
        var records: [ChangeRecord] = []
        records.reserveCapacity(count)
        for i in 0 ..< count {
            guard let item = objects.reference(refs, i), let record = record(item, depth: 2) else { return nil }
            records.append(record)
        }
        return canonical.count <= canonicalLimit ? records : nil
    }

    private static let gidKey = Array("gid".utf8), entityKey = Array("entity".utf8)
    private static let valuesKey = Array("values".utf8), relationshipsKey = Array("relationships".utf8)

    /// One record as the tree reader's `changeRecord` reads it (same functions for each value
    /// and the relationships, the same checks of the ID made on its bytes), or `nil` where that
    /// reader would throw; its canonical form appended as `walk` appends it, the values typed
    /// from the objects the walk reads.
    private mutating func record(_ ref: Int, depth: Int) -> ChangeRecord? {
        produced += 1
        guard produced <= objects.limits.maxObjects, depth < objects.limits.maxDepth,
              case let .dictionary(refs, count)? = objects.object(ref) else { return nil }
        canonical.append(UInt8(ascii: "m"), bigEndian: UInt64(count))
        // The objects the walk read for `gid` and `entity`, which the ID is read from.
        var gid: (ref: Int, object: BinaryPlistObjects.Object)?, entity: (ref: Int, object: BinaryPlistObjects.Object)?
        var found: (id: GlobalID, shape: EntityShape)?
        // By attribute index (`shape.layout`): no hash per value here nor when the merge binds them.
        var typed: [AttributeValue??] = [], hasValues = false
        var relationships: Int?, cleared: UInt64?
        var previous: Range<Int>?
        for i in 0 ..< count {
            guard let keyRef = objects.reference(refs, i), let valueRef = objects.reference(refs, count + i),
                  let key = orderedKey(keyRef, after: previous) else { return nil }
            previous = key
            produced += 1
            appendString(objects.bytes[key])
            let name = objects.bytes[key]
            // "entity" < "gid" < "relationships" < "values": the ID is known when the last two come.
            // By length first: one `memcmp` per key, not a walk over each candidate's bytes.
            switch name.count {
            case 3 where EntityShape.same(Self.gidKey, name):
                guard let object = leaf(valueRef, depth: depth + 1) else { return nil }
                gid = (valueRef, object)
            case 6 where EntityShape.same(Self.entityKey, name):
                guard let object = leaf(valueRef, depth: depth + 1) else { return nil }
                entity = (valueRef, object)
            case 6 where EntityShape.same(Self.valuesKey, name):
                guard let (id, shape) = found ?? objectID(gid: gid, entity: entity),
                      values(valueRef, depth: depth + 1, of: shape, record: id, into: &typed) else { return nil }
                found = (id, shape)
                hasValues = true
            case 13 where EntityShape.same(Self.relationshipsKey, name):
                guard let (id, shape) = found ?? objectID(gid: gid, entity: entity),
                      let mask = relationshipsWalk(valueRef, depth: depth + 1, of: shape) else { return nil }
                found = (id, shape)
                relationships = valueRef
                cleared = mask
            default:
                guard walk(valueRef, depth: depth + 1) else { return nil }
            }
        }
        guard canonical.count <= canonicalLimit, let (id, shape) = found ?? objectID(gid: gid, entity: entity) else { return nil }
        if hasValues, shape.hasMergeGroups {
            let named = ChangeRecord.ValueStorage.laidOut(shape.layout, typed).dictionary
            guard (try? TransactionLog.checkMergeGroups(named, entity: shape.description, record: id)) != nil else { return nil }
        }
        // Without a `values` key the tree reader's record has none: an empty dictionary, as there.
        let made = { (relationships: [String: RelationshipChange]) in
            hasValues ? ChangeRecord(id: id, layout: shape.layout, values: typed, relationships: relationships)
                : ChangeRecord(id: id, relationships: relationships)
        }
        // No relationships, or an empty dictionary (a record that changes none): nothing to read.
        guard let relationships, cleared != 0 else { return made([:]) }
        if let cleared { return made(shape.clearing(cleared)) }
        if let toOne = toOneChanges(relationships, shape: shape) { return made(toOne) }
        var record = made([:])
        guard case let .dictionary(raw)? = objects.value(relationships, depth: depth + 1),
              (try? TransactionLog.readRelationships(raw, into: &record, entity: shape.description, model: model)) != nil else { return nil }
        return record
    }

    /// Object `ref` (at `depth`) counted and appended as `walk` does, returned for a second look.
    private mutating func leaf(_ ref: Int, depth: Int) -> BinaryPlistObjects.Object? {
        produced += 1
        guard produced <= objects.limits.maxObjects, let object = objects.object(ref), append(object, depth: depth) else { return nil }
        return object
    }

    /// A record's `relationships` (object `ref`) appended as `walk` appends it; the mask of the
    /// to-ones it clears (bit = index in `shape.relationships`; 0 when it is empty) when that is
    /// all it does, `.some(nil)` when it does more, `nil` when `walk` would fail or it is no dictionary.
    private mutating func relationshipsWalk(_ ref: Int, depth: Int, of shape: EntityShape) -> UInt64?? {
        produced += 1
        guard produced <= objects.limits.maxObjects, depth < objects.limits.maxDepth,
              case let .dictionary(refs, count)? = objects.object(ref) else { return nil }
        canonical.append(UInt8(ascii: "m"), bigEndian: UInt64(count))
        var mask: UInt64? = shape.relationships.count <= 64 ? 0 : nil
        var previous: Range<Int>?
        for i in 0 ..< count {
            guard let keyRef = objects.reference(refs, i), let valueRef = objects.reference(refs, count + i),
                  let key = orderedKey(keyRef, after: previous) else { return nil }
            previous = key
            produced += 1
            appendString(objects.bytes[key])
            guard let object = leaf(valueRef, depth: depth + 1) else { return nil }
            guard let bits = mask else { continue }
            if case .dictionary(refs: _, count: 0) = object, let index = shape.relationshipIndex(objects.bytes[key]),
               shape.toOneDestinations[index] != nil {
                mask = bits | 1 << UInt64(index)
            } else {
                mask = nil
            }
        }
        return .some(mask)
    }

    /// A record's `values` dictionary (object `ref`) typed into `typed`, its canonical form
    /// appended as `walk` appends it; `false` where `walk` fails or the tree reader throws.
    private mutating func values(_ ref: Int, depth: Int, of shape: EntityShape, record id: GlobalID,
                                 into typed: inout [AttributeValue??]) -> Bool {
        produced += 1
        guard produced <= objects.limits.maxObjects, depth < objects.limits.maxDepth,
              case let .dictionary(refs, count)? = objects.object(ref) else { return false }
        canonical.append(UInt8(ascii: "m"), bigEndian: UInt64(count))
        typed = Array(repeating: .none, count: shape.attributeShapes.count)
        var previous: Range<Int>?
        for i in 0 ..< count {
            // Keys are ASCII and ordered (`orderedKey`); the attribute is found by its bytes and
            // its own name is the key: no string made or compared per value.
            guard let keyRef = objects.reference(refs, i), let valueRef = objects.reference(refs, count + i),
                  let key = orderedKey(keyRef, after: previous) else { return false }
            previous = key
            produced += 1
            appendString(objects.bytes[key])
            produced += 1
            guard let index = shape.attributeIndex(objects.bytes[key]), produced <= objects.limits.maxObjects,
                  let object = objects.object(valueRef), append(object, depth: depth + 1) else { return false }
            let attribute = shape.attributeShapes[index]
            guard let value = attributeValue(object, ref: valueRef, depth: depth + 1, of: attribute, shape: shape, record: id) else { return false }
            typed[index] = .some(value)
        }
        return true
    }

    /// The value of `attribute` that `object` (object `ref`) holds, typed and checked as
    /// `TransactionLog.attributeValue` types and checks the object's `PlistValue` (`.some(nil)`:
    /// the null marker), or `nil` where that function throws. Strings, integers, reals, dates and
    /// booleans are typed from the object without a `PlistValue`, and checked here when the
    /// attribute has no rules of its own; anything else takes that function.
    private func attributeValue(_ object: BinaryPlistObjects.Object, ref: Int, depth: Int, of attribute: AttributeShape,
                                shape: EntityShape, record id: GlobalID) -> AttributeValue?? {
        let value: AttributeValue?
        switch (attribute.type, object) {
        case let (.string, .string8(range, ascii: true)):
            value = .string(String(decoding: UnsafeBufferPointer(rebasing: objects.bytes[range]), as: UTF8.self))
        case let (.integer16, .integer(number)), let (.integer32, .integer(number)), let (.integer, .integer(number)):
            value = .integer(number)
        case let (.double, .real(number)):
            value = .double(number)
        case let (.date, .real(seconds)), let (.date, .date(seconds)):
            value = .date(secondsSince1970: seconds)
        case let (.boolean, .boolean(flag)):
            value = .boolean(flag)
        case (_, .dictionary(refs: _, count: 0)):
            value = nil
        default:
            guard let raw = objects.value(ref, depth: depth),
                  let typed = try? TransactionLog.attributeValue(raw, of: attribute.description, entityName: shape.name, record: id) else { return nil }
            return .some(typed)
        }
        guard attribute.hasNoRules else {
            guard (try? attribute.description.validate(value, entity: shape.name)) != nil else { return nil }
            return .some(value)
        }
        // `AttributeDescription.validate` for a value of the attribute's own kind and no rules.
        switch value {
        case nil: guard attribute.isOptional else { return nil }
        case let .integer(number)?: if let range = attribute.integerRange, !range.contains(number) { return nil }
        case let .double(number)?, let .date(number)?: guard number.isFinite else { return nil }
        default: break
        }
        return .some(value)
    }

    /// A record's ID read from the bytes of its `gid` (and `entity`) strings, with the checks of
    /// `TransactionLog.objectID(gid:entity:model:)`; anything but ASCII goes through that function.
    private func objectID(gid: (ref: Int, object: BinaryPlistObjects.Object)?,
                          entity: (ref: Int, object: BinaryPlistObjects.Object)?) -> (GlobalID, EntityShape)? {
        guard let gid, case let .string8(range, ascii: true) = gid.object,
              let slash = objects.bytes[range].firstIndex(of: UInt8(ascii: "/")) else { return generalObjectID(gid: gid?.ref, entity: entity?.ref) }
        let entityBytes = objects.bytes[range.lowerBound ..< slash]
        guard let shape = shapes.shape(entityBytes, model: model), !shape.isAbstract,
              GlobalID.isValidASCIIKey(UnsafeBufferPointer(rebasing: objects.bytes[slash + 1 ..< range.upperBound])) else { return nil }
        if let entity {
            switch entity.object {
            case let .string8(declaredRange, ascii: true):
                guard EntityShape.same(shape.nameBytes, objects.bytes[declaredRange]) else { return nil }
            case .string8, .string16:
                return generalObjectID(gid: gid.ref, entity: entity.ref)
            default:
                break  // not a string: the tree reader does not look at it either
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: objects.bytes[range]), as: UTF8.self)
        return (GlobalID(checkedEntity: shape.name, description: text), shape)
    }

    private func generalObjectID(gid: Int?, entity: Int?) -> (GlobalID, EntityShape)? {
        let gidValue = gid.flatMap { objects.value($0, depth: 3) }, entityValue = entity.flatMap { objects.value($0, depth: 3) }
        guard case let (id, _)? = try? TransactionLog.objectID(gid: gidValue, entity: entityValue, model: model),
              let shape = id.entity.utf8.withContiguousStorageIfAvailable({ shapes.shape($0[...], model: model) }) ?? nil else { return nil }
        return (id, shape)
    }

    /// A relationships dictionary of to-one changes only (each a target's ID or the empty
    /// dictionary that clears it), as `readRelationships` reads it; `nil` for anything else
    /// (the caller then has `readRelationships` read them).
    private func toOneChanges(_ ref: Int, shape: EntityShape) -> [String: RelationshipChange]? {
        guard case let .dictionary(refs, count)? = objects.object(ref) else { return nil }
        var changes = [String: RelationshipChange](minimumCapacity: count)
        for i in 0 ..< count {
            guard let keyRef = objects.reference(refs, i), let valueRef = objects.reference(refs, count + i),
                  case let .string8(key, ascii: true)? = objects.object(keyRef),
                  let index = shape.relationshipIndex(objects.bytes[key]), let destination = shape.toOneDestinations[index],
                  let value = objects.object(valueRef) else { return nil }
            switch value {
            case .dictionary(refs: _, count: 0):
                changes[shape.relationshipNamesText[index]] = .toOne(nil)
            case let .string8(range, ascii: true):
                let text = String(decoding: UnsafeBufferPointer(rebasing: objects.bytes[range]), as: UTF8.self)
                guard let target = try? GlobalID(text), model.isKind(target.entity, of: destination) else { return nil }
                changes[shape.relationshipNamesText[index]] = .toOne(target)
            default:
                return nil
            }
        }
        return changes
    }
}

/// An entity of the model with the UTF-8 bytes of its name and of its properties' names, so a
/// reader finds them from a log's bytes. Made once per entity per log; the fields the reader
/// uses per record are its own (reading them from the `EntityDescription` copied it each time).
final class EntityShape {
    let name: String
    let nameBytes: [UInt8]
    let isAbstract: Bool
    let hasMergeGroups: Bool
    let description: EntityDescription
    let attributes: [AttributeDescription]
    let relationships: [RelationshipDescription]
    /// What the reader needs of each attribute, in `attributes`' order, without copying the description.
    let attributeShapes: [AttributeShape]
    /// The relationships' names, in `relationships`' order.
    let relationshipNamesText: [String]
    /// Each relationship's destination when it is a to-one, `nil` for a to-many.
    let toOneDestinations: [String?]
    /// The attributes' names in `attributes`' order: where a laid-out record's values lie.
    let layout: AttributeLayout
    /// Relationship changes that clear the to-ones of a mask (bit = index in `relationships`),
    /// shared by every record of the log that clears just those.
    private var clearedToOnes: [UInt64: [String: RelationshipChange]] = [:]
    private var lastCleared: (mask: UInt64, changes: [String: RelationshipChange])?
    private let attributeNames: [[UInt8]]
    private let relationshipNames: [[UInt8]]

    init(_ description: EntityDescription) {
        self.description = description
        name = description.name
        nameBytes = Array(description.name.utf8)
        isAbstract = description.isAbstract
        hasMergeGroups = !description.mergeGroups.isEmpty
        attributes = description.attributes
        relationships = description.relationships
        attributeShapes = description.attributes.map(AttributeShape.init)
        relationshipNamesText = description.relationships.map(\.name)
        toOneDestinations = description.relationships.map { $0.isToMany ? nil : $0.destination }
        layout = AttributeLayout(names: description.attributes.map(\.name))
        attributeNames = description.attributes.map { Array($0.name.utf8) }
        relationshipNames = description.relationships.map { Array($0.name.utf8) }
    }

    /// The changes that clear the to-ones of `mask` (as `readRelationships` reads them from
    /// empty dictionaries), one dictionary shared by every record that clears just those (an
    /// insert without targets clears every to-one).
    func clearing(_ mask: UInt64) -> [String: RelationshipChange] {
        if let last = lastCleared, last.mask == mask { return last.changes }
        let changes = clearedToOnes[mask] ?? {
            var changes: [String: RelationshipChange] = [:]
            for index in relationships.indices where mask & (1 << UInt64(index)) != 0 {
                changes[relationshipNamesText[index]] = .toOne(nil)
            }
            return changes
        }()
        clearedToOnes[mask] = changes
        lastCleared = (mask, changes)
        return changes
    }

    /// The index of the first attribute named `name` (as `entity.attributes.first`).
    func attributeIndex(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        for index in attributeNames.indices where Self.same(attributeNames[index], name) { return index }
        return nil
    }

    /// The index of the first relationship named `name` (as `EntityDescription.relationship(_:)`).
    func relationshipIndex(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        for index in relationshipNames.indices where Self.same(relationshipNames[index], name) { return index }
        return nil
    }

    /// Whether `bytes` and `other` hold the same bytes (one `memcmp`, not an element-wise walk).
    static func same(_ bytes: [UInt8], _ other: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard bytes.count == other.count else { return false }
        guard let base = other.base.baseAddress, !bytes.isEmpty else { return true }
        return bytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, base + other.startIndex, bytes.count) == 0 }
    }
}

/// An attribute as a log reader types its values: the description (for the general path) and
/// the fields read for every value, held by reference so a value's typing copies nothing.
final class AttributeShape {
    let description: AttributeDescription
    let name: String
    let type: AttributeType
    let isOptional: Bool
    /// No rules beyond its type (`AttributeValidation.isEmpty`): a value of its own kind needs
    /// only the range and finiteness checks of `validateKind`.
    let hasNoRules: Bool
    let integerRange: ClosedRange<Int64>?

    init(_ description: AttributeDescription) {
        self.description = description
        name = description.name
        type = description.type
        isOptional = description.isOptional
        hasNoRules = description.validation.isEmpty
        integerRange = description.type.integerRange
    }
}

/// The entities one reader met, found by the bytes of their names (a log names one or two).
final class EntityShapes {
    private var known: [EntityShape] = []

    /// The entity named `name` when the model has one; `nil` when it has not (or the name is not
    /// an identifier, which no entity's name is).
    func shape(_ name: Slice<UnsafeBufferPointer<UInt8>>, model: ObjectModel) -> EntityShape? {
        for shape in known where EntityShape.same(shape.nameBytes, name) { return shape }
        let text = String(decoding: UnsafeBufferPointer(rebasing: name), as: UTF8.self)
        guard Identifier.isValid(text), let description = model.entity(text) else { return nil }
        let shape = EntityShape(description)
        known.append(shape)
        return shape
    }
}

/// The canonical form, hashed as it is appended: a log's walk appends tens of thousands of
/// short pieces (`Array.append(contentsOf:)` cost more per piece than the copy itself), and a
/// small buffer fed to SHA-256 whenever it fills stays in the cache, where one buffer of the
/// whole form (a few times the file) was written, grown and read back from memory.
private final class CanonicalBytes {
    private static let capacity = 16 * 1024
    private let start: UnsafeMutablePointer<UInt8>
    /// Bytes in the buffer, not yet hashed.
    private var pending = 0
    /// Bytes already hashed.
    private var hashed = 0
    private var hasher = SHA256()

    /// Bytes appended so far.
    var count: Int { hashed + pending }

    init() { start = .allocate(capacity: Self.capacity) }

    deinit { start.deallocate() }

    private func flush() {
        hasher.update(bufferPointer: UnsafeRawBufferPointer(start: start, count: pending))
        hashed += pending
        pending = 0
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        if pending == Self.capacity { flush() }
        start[pending] = byte
        pending += 1
    }

    @inline(__always)
    func append(bigEndian value: UInt64) {
        if Self.capacity - pending < 8 { flush() }
        UnsafeMutableRawPointer(start + pending).storeBytes(of: value.bigEndian, as: UInt64.self)
        pending += 8
    }

    /// A tag byte and a big-endian number (one room check for both).
    @inline(__always)
    func append(_ tag: UInt8, bigEndian value: UInt64) {
        if Self.capacity - pending < 9 { flush() }
        start[pending] = tag
        UnsafeMutableRawPointer(start + pending + 1).storeBytes(of: value.bigEndian, as: UInt64.self)
        pending += 9
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if Self.capacity - pending < bytes.count {
            flush()
            if bytes.count > Self.capacity {  // a long string or data: hashed where it lies
                hasher.update(bufferPointer: UnsafeRawBufferPointer(bytes))
                hashed += bytes.count
                return
            }
        }
        (start + pending).update(from: base, count: bytes.count)
        pending += bytes.count
    }

    /// `bytes`' count (big-endian) then the bytes, as a string or key is written.
    @inline(__always)
    func append(length bytes: UnsafeBufferPointer<UInt8>) {
        guard Self.capacity - pending >= 8 + bytes.count, let base = bytes.baseAddress else {
            append(bigEndian: UInt64(bytes.count))
            append(bytes)
            return
        }
        UnsafeMutableRawPointer(start + pending).storeBytes(of: UInt64(bytes.count).bigEndian, as: UInt64.self)
        (start + pending + 8).update(from: base, count: bytes.count)
        pending += 8 + bytes.count
    }

    /// The SHA-256 of everything appended.
    func digest() -> SHA256.Digest {
        flush()
        return hasher.finalize()
    }
}
