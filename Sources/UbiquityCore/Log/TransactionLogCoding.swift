import Foundation
import UbiquityBase
import UbiquityPlist

// The property-list form of a transaction log, its checksum, and the checks a reader makes
// before it trusts a log from the cloud.

extension TransactionLog {
    /// The log's payload: every key of Docs/ContainerFormat.md except `checksum`.
    func payload() -> [String: PlistValue] {
        func record(_ change: ChangeRecord) -> PlistValue {
            .dictionary([
                "gid": .string(change.id.description),
                "entity": .string(change.id.entity),
                "values": .dictionary(change.values.mapValues { $0.plistValue }),
                "relationships": change.relationshipsPlist,
            ])
        }
        var fields: [String: PlistValue] = [
            "format": .integer(Self.formatVersion),
            "peerID": .string(peerID),
            "transactionNumber": .integer(transactionNumber),
            "kvStr": .string(knowledge.description),
            "stamp": .string(stamp.description),
            "transactionDate": .real(transactionDate),
            "modelVersionHash": .string(modelVersionHash),
            "storeName": .string(storeName),
            "contentName": .string(contentName),
            "inserted": .array(inserted.map(record)),
            "updated": .array(updated.map(record)),
            "deleted": .array(deleted.map { .dictionary(["gid": .string($0.description), "entity": .string($0.entity)]) }),
        ]
        if let contentEpoch { fields["contentEpoch"] = .string(contentEpoch) }
        return fields
    }

    /// The complete log as a property list, checksum included.
    public var plistValue: PlistValue {
        var fields = payload()
        fields["checksum"] = .string(CanonicalEncoding.sha256Hex(of: .dictionary(fields)))
        return .dictionary(fields)
    }

    /// The log file's bytes.
    public func encoded(format: PlistFormat) -> [UInt8] {
        PlistSeam.encode(plistValue, format: format)
    }

    /// Decodes and verifies a log file: parse, format version, checksum, then every field
    /// against `model` — the one validator of logs (the importer, `doctor` and `ubiq log` all
    /// read logs through it): object IDs, entities, attributes and relationships the model
    /// names, each value as its attribute takes it (`AttributeDescription.validate`: type,
    /// range, finite numbers and dates), required attributes, whole merge groups, a finite date.
    /// A log that passes holds nothing the store refuses. Any failure is a `LogError` whose text
    /// says what is wrong.
    public init(decoding bytes: [UInt8], model: ObjectModel, maxBytes: Int = Self.maximumFileSize) throws(LogError) {
        guard bytes.count <= maxBytes else { throw .tooLarge(bytes.count, limit: maxBytes) }
        // Binary logs as this library writes them are read straight from the object table;
        // whatever that reader does not accept is read again as a tree, which judges it.
        if let log = bytes.withUnsafeBufferPointer({ Self.decodeObjectTable($0, model: model) }) {
            self = log
            return
        }
        let plist: PlistValue
        do { plist = try PlistSeam.decode(bytes) } catch { throw .unparseable("\(error)") }
        try self.init(plist: plist, model: model)
    }

    /// The tree reader: every log that is not binary, and every log the object-table reader
    /// declines (so every error a log can earn is this reader's).
    init(plist: PlistValue, model: ObjectModel) throws(LogError) {
        guard var fields = plist.dictionaryValue else { throw .malformed("the top level is not a dictionary") }
        guard let format = fields["format"]?.int64Value else { throw .malformed("missing 'format'") }
        guard format == Self.formatVersion else { throw .unknownFormat(format) }
        guard case let .string(checksum)? = fields.removeValue(forKey: "checksum") else { throw .malformed("missing 'checksum'") }
        guard CanonicalEncoding.sha256Hex(of: .dictionary(fields)) == checksum else { throw .checksumMismatch }
        try self.init(header: fields, model: model)

        func records(_ key: String) throws(LogError) -> [PlistValue] {
            guard let list = fields[key]?.arrayValue else { throw .malformed("missing array '\(key)'") }
            return list
        }
        for item in try records("inserted") { inserted.append(try Self.changeRecord(item, model: model)) }
        for item in try records("updated") { updated.append(try Self.changeRecord(item, model: model)) }
        for item in try records("deleted") { deleted.append(try Self.objectID(item, model: model).id) }
    }

    /// A log of no records with the scalar fields of a verified top-level dictionary.
    init(header fields: [String: PlistValue], model: ObjectModel) throws(LogError) {
        func string(_ key: String) throws(LogError) -> String {
            guard let value = fields[key]?.stringValue else { throw .malformed("missing string '\(key)'") }
            return value
        }
        peerID = try string("peerID")
        guard let number = fields["transactionNumber"]?.int64Value, number > 0 else { throw .malformed("missing or invalid 'transactionNumber'") }
        transactionNumber = number
        guard let knowledge = KnowledgeVector(string: try string("kvStr")) else { throw .malformed("invalid 'kvStr'") }
        guard knowledge[peerID] == number else { throw .malformed("'kvStr' does not hold the transaction's own number") }
        self.knowledge = knowledge
        guard let stamp = Stamp(try string("stamp")), stamp.peerID == peerID else { throw .malformed("invalid 'stamp'") }
        self.stamp = stamp
        guard let date = fields["transactionDate"]?.doubleValue, date.isFinite else {
            throw .malformed("'transactionDate' is missing or not a finite number")
        }
        transactionDate = date
        modelVersionHash = try string("modelVersionHash")
        guard modelVersionHash == model.hash else { throw .otherModel(modelVersionHash) }
        storeName = try string("storeName")
        contentName = try string("contentName")
        contentEpoch = fields["contentEpoch"]?.stringValue
        inserted = []
        updated = []
        deleted = []
    }

    static func objectID(_ item: PlistValue, model: ObjectModel) throws(LogError) -> (id: GlobalID, entity: EntityDescription) {
        try objectID(item.dictionaryValue ?? [:], model: model)
    }

    private static func objectID(_ fields: [String: PlistValue], model: ObjectModel) throws(LogError) -> (id: GlobalID, entity: EntityDescription) {
        try objectID(gid: fields["gid"], entity: fields["entity"], model: model)
    }

    /// A record's object ID from its `gid` and `entity` values: well formed, of a concrete entity of the model.
    static func objectID(gid: PlistValue?, entity declaredEntity: PlistValue?, model: ObjectModel) throws(LogError) -> (id: GlobalID, entity: EntityDescription) {
        guard case let .string(text)? = gid else { throw .malformed("a record has no 'gid'") }
        let id: GlobalID
        do { id = try GlobalID(text) } catch { throw .malformed("\(error)") }
        guard let entity = model.entity(id.entity) else { throw .malformed("record \(id) names unknown entity '\(id.entity)'") }
        guard !entity.isAbstract else { throw .malformed("record \(id) is of abstract entity '\(id.entity)'") }
        if case let .string(declared)? = declaredEntity, declared != id.entity {
            throw .malformed("record \(id) claims entity '\(declared)'")
        }
        return (id, entity)
    }

    private static func relatedIDs(_ value: PlistValue?, destination: String, record: GlobalID, model: ObjectModel) throws(LogError) -> [GlobalID] {
        guard let value else { return [] }
        guard let list = value.arrayValue else { throw .malformed("record \(record): a to-many change is not an array") }
        var ids: [GlobalID] = []
        for element in list {
            guard let text = element.stringValue, let id = try? GlobalID(text), model.isKind(id.entity, of: destination) else {
                throw .malformed("record \(record): invalid target of a to-many change")
            }
            ids.append(id)
        }
        return ids
    }

    /// A record's `positions` of an ordered to-many: member → `OrderKey`, each checked.
    private static func positions(_ value: PlistValue, of relationship: RelationshipDescription, record: GlobalID,
                                  model: ObjectModel) throws(LogError) -> [GlobalID: String] {
        guard relationship.isOrdered else { throw .malformed("record \(record): '\(relationship.name)' is not ordered but carries positions") }
        guard let fields = value.dictionaryValue else { throw .malformed("record \(record): positions of '\(relationship.name)' are not a dictionary") }
        var result: [GlobalID: String] = [:]
        for (text, raw) in fields {
            guard let id = try? GlobalID(text), model.isKind(id.entity, of: relationship.destination) else {
                throw .malformed("record \(record): invalid member in the positions of '\(relationship.name)'")
            }
            guard let key = raw.stringValue, OrderKey.isValid(key) else {
                throw .malformed("record \(record): invalid position key for \(text) in '\(relationship.name)'")
            }
            result[id] = key
        }
        return result
    }

    private static func changeRecord(_ item: PlistValue, model: ObjectModel) throws(LogError) -> ChangeRecord {
        // Every record of every log comes through here: the fields are looked up once each.
        guard case let .dictionary(fields) = item else { throw .malformed("a record is not a dictionary") }
        let (id, entity) = try objectID(fields, model: model)
        var record = ChangeRecord(id: id)
        if let rawValues = fields["values"] {
            guard case let .dictionary(rawValues) = rawValues else { throw .malformed("record \(id): 'values' is not a dictionary") }
            var values = [String: AttributeValue?](minimumCapacity: rawValues.count)
            for (name, raw) in rawValues {
                values[name] = .some(try attributeValue(name, raw, entity: entity, record: id))
            }
            try checkMergeGroups(values, entity: entity, record: id)
            record.values = values
        }
        guard let rawRelationships = fields["relationships"] else { return record }
        guard case let .dictionary(rawRelationships) = rawRelationships else { throw .malformed("record \(id): 'relationships' is not a dictionary") }
        try readRelationships(rawRelationships, into: &record, entity: entity, model: model)
        return record
    }

    /// The logged value `raw` of attribute `name` of a record, typed and checked against the model.
    static func attributeValue(_ name: String, _ raw: PlistValue, entity: EntityDescription, record id: GlobalID) throws(LogError) -> AttributeValue? {
        guard let attribute = entity.attributes.first(where: { $0.name == name }) else {
            throw .malformed("record \(id) sets unknown attribute '\(name)'")
        }
        return try attributeValue(raw, of: attribute, entityName: entity.name, record: id)
    }

    /// The logged value `raw` of `attribute` (found by the caller) of an object of entity
    /// `entityName`, typed and checked.
    static func attributeValue(_ raw: PlistValue, of attribute: AttributeDescription, entityName: String,
                               record id: GlobalID) throws(LogError) -> AttributeValue? {
        let name = attribute.name
        var value: AttributeValue?
        if !raw.isNullMarker {
            guard let typed = AttributeValue(plist: raw, type: attribute.type) else {
                if case let .unsignedInteger(big) = raw {
                    throw .malformed("record \(id): value of '\(name)' (\(big)) is out of the range of \(attribute.type.rawValue)")
                }
                throw .malformed("record \(id): value of '\(name)' is \(raw.kindName), not \(attribute.type.rawValue)")
            }
            value = typed
        }
        // The model's rules, as the author's save checked them: a log that breaks them
        // was not written by an honest peer of this model, and is never applied.
        do { try attribute.validate(value, entity: entityName) } catch { throw .breaksModel(record: id.description, error) }
        return value
    }

    /// A merge group is won whole, so a record writes all of it or none (Docs/SyncSemantics.md).
    static func checkMergeGroups(_ values: [String: AttributeValue?], entity: EntityDescription, record id: GlobalID) throws(LogError) {
        for group in entity.mergeGroups where group.contains(where: { values[$0] != nil }) {
            guard group.allSatisfy({ values[$0] != nil }) else {
                throw .malformed("record \(id) writes part of the merge group [\(group.joined(separator: ", "))]")
            }
        }
    }

    /// A record's logged relationship changes, checked against the model, into `record`.
    static func readRelationships(_ rawRelationships: [String: PlistValue], into record: inout ChangeRecord,
                                  entity: EntityDescription, model: ObjectModel) throws(LogError) {
        let id = record.id
        for (name, raw) in rawRelationships {
            guard let relationship = entity.relationship(name) else { throw .malformed("record \(id) changes unknown relationship '\(name)'") }
            if relationship.isToMany {
                guard let fields = raw.dictionaryValue else { throw .malformed("record \(id): change of '\(name)' is not a dictionary") }
                if let rawPositions = fields["positions"] {
                    record.positions[name] = try positions(rawPositions, of: relationship, record: id, model: model)
                }
                // A record that only places members (a move) carries no membership change.
                if fields["positions"] == nil || fields["add"] != nil || fields["remove"] != nil {
                    record.relationships[name] = .toMany(
                        added: try relatedIDs(raw["add"], destination: relationship.destination, record: id, model: model),
                        removed: try relatedIDs(raw["remove"], destination: relationship.destination, record: id, model: model))
                }
            } else if raw.isNullMarker {
                record.relationships[name] = .toOne(nil)
            } else {
                guard let text = raw.stringValue, let target = try? GlobalID(text), model.isKind(target.entity, of: relationship.destination) else {
                    throw .malformed("record \(id): invalid target of '\(name)'")
                }
                record.relationships[name] = .toOne(target)
            }
        }
    }
}

/// Why a log from the cloud cannot be applied. Such a log is quarantined.
public enum LogError: Error, CustomStringConvertible, Equatable, Sendable {
    case tooLarge(Int, limit: Int)
    /// The file cannot be read (its mode, a folder or FIFO under a log's name…).
    case unreadable(String)
    case unparseable(String)
    case malformed(String)
    case unknownFormat(Int64)
    case checksumMismatch
    case otherModel(String)
    case wrongAuthor(folder: String, log: String)
    case wrongNumber(fileName: String, log: Int64)
    /// A record carries a value its attribute's rules refuse (`AttributeDescription.validate`).
    case breaksModel(record: String, ValidationError)
    /// Stamped more than `Stamp.maximumLead` ahead of this machine's clock.
    case stampTooFarAhead(Stamp, now: Double)

    public var description: String {
        switch self {
        case let .tooLarge(size, limit): return "file of \(size) bytes exceeds the limit of \(limit)"
        case let .unreadable(reason): return "cannot be read: \(reason)"
        case let .unparseable(reason): return "not a readable property list: \(reason)"
        case let .malformed(reason): return "malformed log: \(reason)"
        case let .unknownFormat(version): return "unknown log format \(version) (this build reads format \(TransactionLog.formatVersion))"
        case .checksumMismatch: return "checksum does not match the content (truncated or altered)"
        case let .otherModel(hash): return "written for another model version (\(hash))"
        case let .wrongAuthor(folder, log): return "log names author '\(log)' but lies in the folder of '\(folder)'"
        case let .wrongNumber(fileName, log): return "file name \(fileName) does not match its transaction number \(log)"
        case let .breaksModel(record, error): return "record \(record) breaks the model: \(error.description.replacingOccurrences(of: "validation failed: ", with: ""))"
        case let .stampTooFarAhead(stamp, now):
            return "stamped \(stamp.description.prefix(25)), more than \(Int(Stamp.maximumLead / 3600)) hours ahead of this machine's clock (\(Int(now * 1000))): a clock far ahead or a damaged log; its stamp is never adopted"
        }
    }
}

private extension PlistValue {
    /// What kind of value this is, for messages ("a string", "a date"…).
    var kindName: String {
        switch self {
        case .string: return "a string"
        case .integer, .unsignedInteger: return "an integer"
        case .real: return "a real"
        case .boolean: return "a boolean"
        case .date: return "a date"
        case .data: return "data"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        case .uid: return "a UID"
        case .null: return "null"
        }
    }
}
