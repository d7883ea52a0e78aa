import Foundation
import UbiquityBase
import UbiquityPlist

// External binary values in the store: large values of attributes that allow external storage
// become files of the store's `ExternalDataFolder` when saved, and rows, logs and baselines hold
// only their reference (Docs/ContainerFormat.md, "External binary data").
extension PersistentStore {
    /// Records as they are committed: each inline binary value of an attribute that allows
    /// external storage and is at least `ExternalDataReference.threshold` bytes long becomes a
    /// file of the folder and a reference. Throws when a reference names a file this store does
    /// not hold: a log naming it could never be applied anywhere.
    func externalizing(_ records: [ChangeRecord]) throws -> [ChangeRecord] {
        var result = records
        // Records of an entity without external storage are passed by: a large save is mostly
        // records of one entity, looked up once.
        var last: (entity: String, external: Bool)?
        for index in result.indices {
            let entityName = result[index].id.entity
            if last?.entity != entityName {
                last = (entityName, try model.entity(named: entityName).attributes.contains { $0.allowsExternalBinaryDataStorage })
            }
            guard last?.external == true else { continue }
            let entity = try model.entity(named: entityName)
            for (name, value) in result[index].values {
                guard let attribute = entity.attribute(name), attribute.allowsExternalBinaryDataStorage else { continue }
                switch value {
                case let .binary(bytes)? where bytes.count >= ExternalDataReference.threshold:
                    result[index].values[name] = .externalBinary(try externalData.add(bytes))
                case let .externalBinary(reference)?:
                    guard externalData.contains(reference) else {
                        throw StoreError.missingExternalData(entity: entity.name, attribute: name, sha256: reference.sha256)
                    }
                default:
                    break
                }
            }
        }
        return result
    }

    /// Every external value the store's live objects hold now.
    public func externalReferences() throws -> Set<ExternalDataReference> {
        try locked {
            var references = Set<ExternalDataReference>()
            for table in tables.values {
                for attribute in table.entity.attributes where attribute.allowsExternalBinaryDataStorage {
                    let column = "\"a_\(attribute.name)\""
                    let statement = try database.statement("SELECT \(column) FROM \(table.quotedName) WHERE alive = 1 AND typeof(\(column)) = 'text'")
                    while try statement.step() {
                        if let reference = statement.string(0).flatMap(ExternalDataReference.init(sqliteText:)) { references.insert(reference) }
                    }
                }
            }
            return references
        }
    }

    /// Deletes files of the store's folder that nothing of the store may still need — no row
    /// (alive or deleted), conflict record, unsent or sent log of its own names them — and that
    /// are older than `gracePeriod` seconds (a file just fetched for a log that still waits, or
    /// just added for a save not made yet, is younger). Returns the hashes deleted. The caller
    /// makes sure no other store shares the folder meanwhile (a fallback).
    public func collectExternalData(gracePeriod: Double, now: Double) throws -> [String] {
        let files = DirectoryEntry.list(externalData.directory).filter {
            $0.isRegularFile && ExternalDataReference(sha256: $0.name, size: 0) != nil && $0.modificationTime <= now - gracePeriod
        }
        guard !files.isEmpty else { return [] }
        return try locked {
            var retained = Set<String>()
            func keep(_ text: String?) {
                if let reference = text.flatMap(ExternalDataReference.init(sqliteText:)) { retained.insert(reference.sha256) }
            }
            for table in tables.values {
                for attribute in table.entity.attributes where attribute.type == .binary || attribute.type == .transformable {
                    let column = "\"a_\(attribute.name)\""
                    let statement = try database.statement("SELECT \(column) FROM \(table.quotedName) WHERE typeof(\(column)) = 'text'")
                    while try statement.step() { keep(statement.string(0)) }
                }
            }
            // Most syncs stop here: every old file is a value some row holds.
            guard files.contains(where: { !retained.contains($0.name) }) else { return [] }
            for text in try conflictHistory.textValues() { keep(text) }
            // Logs of its own still kept: a damaged one is written again, and its file with it.
            for table in ["Z_OUTBOX", "Z_OUTBOX_PREVIOUS", "Z_SENT"] {
                let statement = try database.statement("SELECT bytes FROM \(table) WHERE instr(bytes, CAST('externalData' AS BLOB)) > 0")
                while try statement.step() {
                    guard let bytes = statement.blob(0) else { continue }
                    guard let references = try? ExternalDataReference.all(inLog: bytes) else { return [] }
                    retained.formUnion(references.map(\.sha256))
                }
            }
            var deleted: [String] = []
            for file in files where !retained.contains(file.name) {
                if unlink(externalData.directory + "/" + file.name) == 0 { deleted.append(file.name) }
            }
            return deleted
        }
    }

    /// Records what the last import waited for (`ExternalDataWait.line`), replacing the last record.
    package func recordExternalDataWaits(_ lines: [String]) throws {
        // Every sync records it, and it seldom changes: an unchanged record is not written again.
        try locked { try metadata.update(.externalDataWaits, lines.joined(separator: "\n")) }
    }

    /// What the last import waited for: logs whose external data had not arrived or was damaged.
    public func externalDataWaits() throws -> [String] {
        try locked { try meta(.externalDataWaits).map { $0.split(separator: "\n").map(String.init) } ?? [] }
    }

    /// The external values the store's objects hold whose files are not in its folder (not
    /// arrived yet: a baseline joined before its files came).
    public func missingExternalData() throws -> [ExternalDataReference] {
        try externalReferences().filter { !externalData.contains($0) }.sorted { $0.sha256 < $1.sha256 }
    }
}

extension TransactionLog {
    /// The external values this log names.
    public var externalReferences: Set<ExternalDataReference> {
        var references = Set<ExternalDataReference>()
        for record in inserted + updated {
            for case let .externalBinary(reference)? in record.values.values { references.insert(reference) }
        }
        return references
    }
}

extension ExternalDataReference {
    /// The external values an encoded log names, read without its model (a log of an earlier
    /// model version too): every `{externalData, size}` dictionary among its records' values.
    /// Throws when the bytes are no plist.
    public static func all(inLog bytes: [UInt8]) throws -> Set<ExternalDataReference> {
        var references = Set<ExternalDataReference>()
        let plist = try PlistSeam.decode(bytes)
        for key in ["inserted", "updated"] {
            for record in plist[key]?.arrayValue ?? [] {
                guard case let .dictionary(values)? = record["values"] else { continue }
                for value in values.values {
                    if let reference = ExternalDataReference(plist: value) { references.insert(reference) }
                }
            }
        }
        return references
    }
}
