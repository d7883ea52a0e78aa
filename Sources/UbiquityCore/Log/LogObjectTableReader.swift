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
    /// The canonical form of the payload, hashed at the end.
    private let canonical = CanonicalBytes()
    /// The entities met so far, by the bytes of their names.
    private let shapes = EntityShapes()
    /// Values visited, counted as the tree reader counts them (keys too) against `maxObjects`.
    private var produced = 0
    /// Most bytes the canonical form may take: an honest log's is a few times its file, but a
    /// string or data object referenced from many places is copied at every use.
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
        var lists: (inserted: Int?, updated: Int?, deleted: Int?) = (nil, nil, nil)
        produced = 1
        canonical.reserve(objects.bytes.count * 2)
        canonical.append(UInt8(ascii: "m"))
        appendNumber(UInt64(count - 1))  // without the checksum (checked below to be there)
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
            guard walk(valueRef, depth: 1) else { return nil }
            switch name {
            case "inserted": lists.inserted = valueRef
            case "updated": lists.updated = valueRef
            case "deleted": lists.deleted = valueRef
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
              let inserted = lists.inserted.flatMap({ records($0) }),
              let updated = lists.updated.flatMap({ records($0) }),
              case let .array(deletedRefs, deletedCount)? = lists.deleted.flatMap({ objects.object($0) }) else { return nil }
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
        if let previous {
            let a = objects.bytes[previous], b = objects.bytes[range]
            guard a.lexicographicallyPrecedes(b) else { return nil }
        }
        return range
    }

    /// Appends object `index`'s canonical form (`CanonicalEncoding.append`); `false` when the
    /// object is unreadable, nested too deep (a cycle ends there too) or past the value limit.
    private mutating func walk(_ index: Int, depth: Int) -> Bool {
        produced += 1
        guard produced <= objects.limits.maxObjects, let object = objects.object(index) else { return false }
        switch object {
        case .null: canonical.append(UInt8(ascii: "n"))
        case let .boolean(b): canonical.append(b ? UInt8(ascii: "T") : UInt8(ascii: "F"))
        case let .integer(i): canonical.append(UInt8(ascii: "i")); appendNumber(UInt64(bitPattern: i))
        case let .unsignedInteger(u): canonical.append(UInt8(ascii: "u")); appendNumber(u)
        case let .real(d): canonical.append(UInt8(ascii: "r")); appendNumber(d.isNaN ? Double.nan.bitPattern : d.bitPattern)
        case let .date(d): canonical.append(UInt8(ascii: "d")); appendNumber(d.bitPattern)
        case let .uid(u): canonical.append(UInt8(ascii: "U")); appendNumber(u)
        case let .data(range):
            canonical.append(UInt8(ascii: "b")); appendNumber(UInt64(range.count))
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
            canonical.append(UInt8(ascii: "a")); appendNumber(UInt64(count))
            for i in 0 ..< count {
                guard let ref = objects.reference(refs, i), walk(ref, depth: depth + 1) else { return false }
            }
        case let .dictionary(refs, count):
            guard depth < objects.limits.maxDepth else { return false }
            canonical.append(UInt8(ascii: "m")); appendNumber(UInt64(count))
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
        appendNumber(UInt64(utf8.count))
        canonical.append(UnsafeBufferPointer(rebasing: utf8))
    }

    private func appendNumber(_ value: UInt64) { canonical.append(bigEndian: value) }

    /// The SHA-256 of the canonical form in lower-case hex, as `CanonicalEncoding.sha256Hex`.
    private func hexDigest() -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        let digest = canonical.withBytes { SHA256.hash(data: $0) }
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

    /// The change records of array `ref`, or `nil` when it is not an array of valid records.
    private func records(_ ref: Int) -> [ChangeRecord]? {
        guard case let .array(refs, count)? = objects.object(ref) else { return nil }
        var records: [ChangeRecord] = []
        records.reserveCapacity(count)
        for i in 0 ..< count {
            guard let item = objects.reference(refs, i), let record = record(item) else { return nil }
            records.append(record)
        }
        return records
    }

    private static let gidKey = Array("gid".utf8), entityKey = Array("entity".utf8)
    private static let valuesKey = Array("values".utf8), relationshipsKey = Array("relationships".utf8)

    /// One record as the tree reader's `changeRecord` reads it (same functions for each value
    /// and the relationships, the same checks of the ID made on its bytes), or `nil` where that
    /// reader would throw.
    private func record(_ ref: Int) -> ChangeRecord? {
        guard case let .dictionary(refs, count)? = objects.object(ref) else { return nil }
        var gid: Int?, entity: Int?, values: Int?, relationships: Int?
        for i in 0 ..< count {
            guard let keyRef = objects.reference(refs, i), let valueRef = objects.reference(refs, count + i),
                  case let .string8(key, _)? = objects.object(keyRef) else { return nil }
            let name = objects.bytes[key]
            if name.elementsEqual(Self.gidKey) { gid = valueRef }
            else if name.elementsEqual(Self.entityKey) { entity = valueRef }
            else if name.elementsEqual(Self.valuesKey) { values = valueRef }
            else if name.elementsEqual(Self.relationshipsKey) { relationships = valueRef }
        }
        guard let (id, shape) = objectID(gid: gid, entity: entity) else { return nil }
        var record = ChangeRecord(id: id)
        if let values {
            guard case let .dictionary(valueRefs, valueCount)? = objects.object(values) else { return nil }
            var typed = [String: AttributeValue?](minimumCapacity: valueCount)
            for i in 0 ..< valueCount {
                // Keys are ASCII (the checksum's walk declined any other); the attribute is found by
                // its bytes and its own name is the key: no string made or compared per value.
                guard let keyRef = objects.reference(valueRefs, i), let valueRef = objects.reference(valueRefs, valueCount + i),
                      case let .string8(key, ascii: true)? = objects.object(keyRef),
                      let index = shape.attributeIndex(objects.bytes[key]),
                      let raw = objects.value(valueRef, depth: 4) else { return nil }
                do {
                    typed[shape.attributes[index].name] = .some(try TransactionLog.attributeValue(raw, of: shape.attributes[index], entityName: shape.name, record: id))
                } catch { return nil }
            }
            if shape.hasMergeGroups {
                guard (try? TransactionLog.checkMergeGroups(typed, entity: shape.description, record: id)) != nil else { return nil }
            }
            record.values = typed
        }
        // An empty dictionary (a record that changes no relationship) has nothing to read.
        if let relationships, objects.count(ofDictionary: relationships) != 0 {
            if !toOneChanges(relationships, into: &record, shape: shape) {
                record.relationships = [:]
                guard case let .dictionary(raw)? = objects.value(relationships, depth: 3),
                      (try? TransactionLog.readRelationships(raw, into: &record, entity: shape.description, model: model)) != nil else { return nil }
            }
        }
        return record
    }

    /// A record's ID read from the bytes of its `gid` (and `entity`) strings, with the checks of
    /// `TransactionLog.objectID(gid:entity:model:)`; anything but ASCII goes through that function.
    private func objectID(gid: Int?, entity: Int?) -> (GlobalID, EntityShape)? {
        guard let gid, case let .string8(range, ascii: true)? = objects.object(gid),
              let slash = objects.bytes[range].firstIndex(of: UInt8(ascii: "/")) else { return generalObjectID(gid: gid, entity: entity) }
        let entityBytes = objects.bytes[range.lowerBound ..< slash]
        guard let shape = shapes.shape(entityBytes, model: model), !shape.isAbstract,
              GlobalID.isValidASCIIKey(UnsafeBufferPointer(rebasing: objects.bytes[slash + 1 ..< range.upperBound])) else { return nil }
        if let entity {
            guard let declared = objects.object(entity) else { return nil }
            switch declared {
            case let .string8(declaredRange, ascii: true):
                guard EntityShape.same(shape.nameBytes, objects.bytes[declaredRange]) else { return nil }
            case .string8, .string16:
                return generalObjectID(gid: gid, entity: entity)
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

    /// Reads a relationships dictionary of to-one changes only (each a target's ID or the empty
    /// dictionary that clears it) into `record`, which holds none yet; `false` for anything else
    /// (the caller then empties `record.relationships` and `readRelationships` reads them).
    private func toOneChanges(_ ref: Int, into record: inout ChangeRecord, shape: EntityShape) -> Bool {
        guard case let .dictionary(refs, count)? = objects.object(ref) else { return false }
        for i in 0 ..< count {
            guard let keyRef = objects.reference(refs, i), let valueRef = objects.reference(refs, count + i),
                  case let .string8(key, ascii: true)? = objects.object(keyRef),
                  let index = shape.relationshipIndex(objects.bytes[key]), !shape.relationships[index].isToMany,
                  let value = objects.object(valueRef) else { return false }
            switch value {
            case .dictionary(refs: _, count: 0):
                record.relationships[shape.relationships[index].name] = .toOne(nil)
            case let .string8(range, ascii: true):
                let text = String(decoding: UnsafeBufferPointer(rebasing: objects.bytes[range]), as: UTF8.self)
                guard let target = try? GlobalID(text), model.isKind(target.entity, of: shape.relationships[index].destination) else { return false }
                record.relationships[shape.relationships[index].name] = .toOne(target)
            default:
                return false
            }
        }
        return true
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
        attributeNames = description.attributes.map { Array($0.name.utf8) }
        relationshipNames = description.relationships.map { Array($0.name.utf8) }
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

/// A growable byte buffer for the canonical form: a log's walk appends tens of thousands of
/// short pieces, and `Array.append(contentsOf:)` cost more per piece than the copy itself.
private final class CanonicalBytes {
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 4096
        start = .allocate(capacity: capacity)
    }

    deinit { start.deallocate() }

    func reserve(_ minimum: Int) { if minimum > capacity { grow(to: minimum) } }

    private func grow(to minimum: Int) {
        let larger = max(minimum, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: start, count: count)
        start.deallocate()
        start = moved
        capacity = larger
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        start[count] = byte
        count += 1
    }

    @inline(__always)
    func append(bigEndian value: UInt64) {
        if capacity - count < 8 { grow(to: count + 8) }
        UnsafeMutableRawPointer(start + count).storeBytes(of: value.bigEndian, as: UInt64.self)
        count += 8
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if capacity - count < bytes.count { grow(to: count + bytes.count) }
        (start + count).update(from: base, count: bytes.count)
        count += bytes.count
    }

    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(start: start, count: count))
    }
}
