import Foundation
import UbiquityBase
import UbiquityCore
import UbiquityPlist
import UbiquitySync

/// A bug report's stored values replaced by stand-ins made from hashes of them
/// (`ValueRedaction`), in every file of its `device/` and `cloud/` folders, before its sync runs:
///
/// - stores (every SQLite file): each attribute value, each recorded conflict's values and the
///   logs the store keeps, then vacuumed (`StoreRedaction`);
/// - transaction logs: decoded, each value replaced, encoded again in their format (with a new
///   checksum); a log that does not decode (a damaged one) becomes as many stand-in bytes,
///   so it stays damaged;
/// - baselines of the device's model version: their store redacted and zipped again;
/// - external data files: replaced by their stand-in bytes, under the name their redacted
///   references give (a damaged file stays damaged, a missing one missing);
/// - sealed (encrypted) files stay as they are, and so do the files that hold no value:
///   `device.plist`, `tokens.plist`, `lastUsed`, receipts, the content epoch and the key record;
/// - any other file — a foreign one, a baseline of another model version, a log larger than any
///   reader takes — becomes as many stand-in bytes.
///
/// Object IDs are redacted alike wherever they lie (their entity kept, a natural key hashed, a
/// UUID key the library made kept), so every reference still meets its object. What is kept:
/// entity names, UUID keys, peer IDs, transaction numbers, stamps and dates of transactions,
/// knowledge, file names and sizes of logs that did not decode, booleans.
enum BugReportRedaction {
    /// What a redaction did, for the manifest.
    struct Outcome: Sendable, Equatable {
        var stores = 0, logs = 0, baselines = 0, externalData = 0, standIns = 0, sealed = 0, kept = 0

        var jsonValue: JSONValue {
            .object([
                "method": .string("each stored value and natural key replaced by a stand-in of its type made from its SHA-256; entities, UUID keys, peers, stamps and booleans kept"),
                "stores": .int(Int64(stores)), "logs": .int(Int64(logs)), "baselines": .int(Int64(baselines)),
                "externalData": .int(Int64(externalData)), "replacedByStandInBytes": .int(Int64(standIns)),
                "sealedAsTheyWere": .int(Int64(sealed)), "holdingNoValue": .int(Int64(kept)),
            ])
        }
    }

    /// Files that hold no stored value (the device's settings, receipts' knowledge).
    private static let valueFreeNames: Set<String> = [Device.plistName, DeviceLocation.tokenMapFileName, StoreFolder.lastUsedFileName]

    static func redact(_ report: String, model: ObjectModel) throws -> Outcome {
        var outcome = Outcome()
        let scratch = report + "/.redaction"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for folder in [BugReport.deviceFolder, BugReport.cloudFolder] {
            let root = report + "/" + folder
            for relative in FolderArchive.regularFiles(below: root) {
                try redactFile(root + "/" + relative, model: model, scratch: scratch, outcome: &outcome)
            }
        }
        return outcome
    }

    private static func redactFile(_ path: String, model: ObjectModel, scratch: String, outcome: inout Outcome) throws {
        let name = (path as NSString).lastPathComponent
        let parent = ((path as NSString).deletingLastPathComponent as NSString).lastPathComponent
        let components = path.split(separator: "/")
        if SealedFile.isSealedFile(path) {
            outcome.sealed += 1
        } else if BugReportCopy.isDatabase(path) {
            try redactStore(path, model: model)
            outcome.stores += 1
        } else if valueFreeNames.contains(name) || name.hasPrefix("receipt")
                    || components.contains(Substring(ContainerLocation.contentEpochFolderName))
                    || components.contains(Substring(ContainerLocation.encryptionFolderName)) {
            outcome.kept += 1
        } else if name.hasPrefix("baseline"), name.hasSuffix(".zip"), parent == model.hash {
            try BaselineStoreRewrite.rewrite(path, model: model, scratch: scratch) { try redactStore($0, model: model) }
            outcome.baselines += 1
        } else if name.hasSuffix(".cdt"), (DirectoryEntry.at(path)?.size ?? 0) <= Int64(TransactionLog.maximumFileSize) {
            let bytes = try AtomicFile.read(path, limit: TransactionLog.maximumFileSize)
            try AtomicFile.write(redactLog(bytes, model: model), to: path)
            outcome.logs += 1
        } else if let reference = try externalReference(named: name, at: path) {
            let standIn = ValueRedaction.externalStandIn(reference)
            try StreamingFile.write(to: (path as NSString).deletingLastPathComponent + "/" + standIn.sha256) { write in
                try ValueRedaction.forEachStandInChunk(seed: Array(reference.sha256.utf8), count: Int(reference.size), write)
            }
            try FileManager.default.removeItem(atPath: path)
            outcome.externalData += 1
        } else {
            try replaceByStandIn(path)
            outcome.standIns += 1
        }
    }

    private static func redactStore(_ path: String, model: ObjectModel) throws {
        try StoreRedaction.redact(databaseAt: path, model: model, value: ValueRedaction.redact,
                                  unknown: ValueRedaction.redact, id: ValueRedaction.redactID, log: { redactLog($0, model: model) })
    }

    /// A log's bytes with every value replaced, in the same plist format; a log that does not
    /// decode becomes stand-in bytes of its length (still damaged, nothing of it left).
    static func redactLog(_ bytes: [UInt8], model: ObjectModel) -> [UInt8] {
        guard var log = try? TransactionLog(decoding: bytes, model: model) else {
            return ValueRedaction.standInBytes(seed: Array(ValueRedaction.sha256Hex(bytes).utf8), count: bytes.count)
        }
        func redacted(_ records: [ChangeRecord]) -> [ChangeRecord] {
            records.map { record in
                var record = record
                let values = record.values.mapValues { $0.map(ValueRedaction.redact) }
                record.values = values
                record.id = ValueRedaction.redact(record.id)
                record.relationships = record.relationships.mapValues { change in
                    switch change {
                    case .toOne(let target): return .toOne(target.map(ValueRedaction.redact))
                    case .toMany(let added, let removed): return .toMany(added: added.map(ValueRedaction.redact), removed: removed.map(ValueRedaction.redact))
                    }
                }
                record.positions = record.positions.mapValues { members in
                    Dictionary(members.map { (ValueRedaction.redact($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
                }
                return record
            }
        }
        log.inserted = redacted(log.inserted)
        log.updated = redacted(log.updated)
        log.deleted = log.deleted.map(ValueRedaction.redact)
        return log.encoded(format: bytes.starts(with: Array("bplist".utf8)) ? .binary : .xml)
    }

    /// The reference an external data file stands for: a name of 64 hex digits whose bytes
    /// hash to it. A damaged one (its bytes hash otherwise) is not one: it becomes stand-in bytes.
    private static func externalReference(named name: String, at path: String) throws -> ExternalDataReference? {
        guard name.utf8.count == 64, name.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else { return nil }
        let written = try StreamingFile.sha256(of: path)
        return written.sha256 == name ? ExternalDataReference(sha256: name, size: written.size) : nil
    }

    /// Replaces the file at `path` by as many stand-in bytes, drawn from its hash, a chunk at a time.
    private static func replaceByStandIn(_ path: String) throws {
        let written = try StreamingFile.sha256(of: path)
        try StreamingFile.write(to: path) { write in
            try ValueRedaction.forEachStandInChunk(seed: Array(written.sha256.utf8), count: Int(written.size), write)
        }
    }
}
