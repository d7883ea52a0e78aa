import Foundation
import UbiquityBase

/// A peer's SQLite store for one account: the data with its per-slot stamps and writers,
/// tombstones, knowledge vector, outbox, transaction history, conflict history and quarantine.
///
/// Every public method is serialized by one lock, so contexts on several threads and the sync
/// engine can share a store. Local saves and imports go through the same merge code
/// (`MergeEngine`), which is what makes a peer's own view equal to everybody else's.
public final class PersistentStore: @unchecked Sendable {
    // @unchecked: its SQLite connection and caches are used only under `lock`, which every entry point takes.
    public let model: ObjectModel
    public let peerID: String
    public let storeName: String
    public let contentName: String
    public let path: String
    /// Where the store keeps its external binary values (`StoreExternalData.swift`).
    public let externalData: ExternalDataFolder

    let database: SQLiteDatabase
    let tables: [String: EntityTable]
    let pairTables: [String: PairTable]
    /// The positions of ordered to-many relationships, by `"<owner>.<relationship>"` (`OrderTable`).
    let orderTables: [String: OrderTable]
    /// The tables of the store's own bookkeeping, one type each (`Tables/`), and the merge
    /// (`Merge/`): each holds its SQL; the store holds the lock around them.
    let metadata: MetadataTable
    let knowledgeTable: KnowledgeTable
    let outbox: OutboxTable
    let sentLogTable: SentLogTable
    let history: TransactionHistoryTable
    let quarantine: QuarantineTable
    let conflictHistory: ConflictHistory
    let slotWriters: SlotWriterTable
    let merge: MergeEngine
    private let lock = NSRecursiveLock()
    var clock: HybridLogicalClock
    private var wallClockStorage = WallClock.system
    var knowledgeCache: KnowledgeVector
    /// The highest of its own transaction numbers this peer knows to be taken in the container
    /// (`StoreOwnNumbers.swift`): a store restored from a backup numbers its saves above it.
    var ownNumbersReserved: Int64 = 0
    /// How many times this store's quarantine records were added or removed (`quarantineChanges`).
    var quarantineChangeCount: UInt64 = 0
    /// Set when the store stops taking saves: retired, or handed over to a successor that
    /// contexts follow (StoreHandover.swift).
    var retirement: StoreRetirement?
    let retirementChanged = NSCondition()
    /// Set by `close()`: every later use throws `StoreError.closed`, and the connection is gone.
    var isClosed = false
    /// Opened to read beside another process that owns the device: every save throws (a read
    /// only store is not retired, so its contexts read without looking for a successor).
    let isReadOnly: Bool
    /// Told of every committed change (the fetched-results observers subscribe here).
    package let changeObservers = StoreChangeObservers()

    /// Opens or creates the store at `path`. A store made for another model or peer is refused.
    /// With `readOnly`, an existing store is opened for reading only while another process may
    /// write it (WAL readers never block the writer): nothing is created or written, a store
    /// that would need writing to open (a missing file, an older schema) is refused, and every
    /// save throws.
    ///
    /// A new store is made whole under another name (`StoreMarker.creatingPath`) and renamed
    /// into place, so a reader never opens a store whose schema is not there yet; a reader finds
    /// a store its owner is making, or replacing, refused in one line (`StoreError.beingCreated`,
    /// `.beingReplaced`).
    public convenience init(path: String, model: ObjectModel, peerID: String, storeName: String, contentName: String, readOnly: Bool = false) throws {
        if readOnly {
            if let replacement = StoreMarker.replacement(of: path) { throw StoreError.beingReplaced(path, replacement) }
            if !FileManager.default.fileExists(atPath: path) {
                throw FileManager.default.fileExists(atPath: StoreMarker.creatingPath(path)) ? StoreError.beingCreated(path) : StoreError.missing(path)
            }
        } else if !FileManager.default.fileExists(atPath: path) {
            try Self.create(path: path, model: model, peerID: peerID, storeName: storeName, contentName: contentName)
        }
        try self.init(opening: path, model: model, peerID: peerID, storeName: storeName, contentName: contentName, readOnly: readOnly)
    }

    /// Makes the store at `path` under its creating name, schema and metadata complete and in
    /// one file (rollback journal: nothing left in a WAL under the other name), then renames it
    /// into place. A creating file left by a crash is started afresh.
    private static func create(path: String, model: ObjectModel, peerID: String, storeName: String, contentName: String) throws {
        let creating = StoreMarker.creatingPath(path)
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(creating + suffix) }
        let fresh = try PersistentStore(opening: creating, model: model, peerID: peerID, storeName: storeName, contentName: contentName, readOnly: false)
        try fresh.locked { try fresh.database.execute("PRAGMA journal_mode=DELETE") }
        fresh.close()
        guard rename(creating, path) == 0 else {
            throw FileError(path: path, operation: "rename", errno: errno)
        }
    }

    private init(opening path: String, model: ObjectModel, peerID: String, storeName: String, contentName: String, readOnly: Bool) throws {
        self.model = model
        isReadOnly = readOnly
        self.peerID = peerID
        self.storeName = storeName
        self.contentName = contentName
        self.path = path
        externalData = ExternalDataFolder(storePath: path)
        if readOnly {
            guard FileManager.default.fileExists(atPath: path) else { throw StoreError.missing(path) }
        } else {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        }
        database = try SQLiteDatabase(path: path, readOnly: readOnly)
        var tables: [String: EntityTable] = [:]
        var pairTables: [String: PairTable] = [:]
        for entity in model.entities {
            tables[entity.name] = EntityTable(entity: entity, model: model)
            for relationship in entity.relationships {
                if case let .pairTable(owner, name, true) = model.storage(of: relationship, in: entity) {
                    pairTables["\(owner).\(name)"] = PairTable(owner: owner, relationship: name, destination: relationship.destination)
                }
            }
        }
        self.tables = tables
        self.pairTables = pairTables
        orderTables = OrderTable.all(of: model)
        metadata = MetadataTable(database: database)
        knowledgeTable = KnowledgeTable(database: database)
        outbox = OutboxTable(database: database)
        sentLogTable = SentLogTable(database: database)
        history = TransactionHistoryTable(database: database)
        quarantine = QuarantineTable(database: database)
        conflictHistory = ConflictHistory(database: database, model: model)
        slotWriters = SlotWriterTable(database: database)
        merge = MergeEngine(database: database, model: model, tables: tables, pairTables: pairTables, orderTables: orderTables,
                            slotWriters: slotWriters, conflicts: conflictHistory)
        clock = HybridLogicalClock(peerID: peerID, last: nil)
        knowledgeCache = KnowledgeVector()
        if readOnly {
            try checkMetaForReading(model: model, peerID: peerID)
            try addMissingBookkeepingForReading()
        } else {
            try createOrCheckSchema(tables: tables, pairTables: pairTables)
            database.checkpointInBackground()
        }
        clock = HybridLogicalClock(peerID: peerID, last: try meta(.lastStamp).flatMap(Stamp.init))
        knowledgeCache = try loadKnowledge()
        ownNumbersReserved = try loadOwnNumbersReserved()
    }

    /// Makes the tables the model needs and records (or checks) what the store was made for.
    private func createOrCheckSchema(tables: [String: EntityTable], pairTables: [String: PairTable]) throws {
        try database.transaction {
            try database.execute(StoreSchema.bookkeepingSQL)
            try quarantine.addSignatureColumns()
            for table in tables.values.sorted(by: { $0.tableName < $1.tableName }) { try database.execute(table.createSQL) }
            for table in pairTables.values.sorted(by: { $0.tableName < $1.tableName }) { try database.execute(table.createSQL) }
            for table in orderTables.values.sorted(by: { $0.tableName < $1.tableName }) { try database.execute(table.createSQL) }
            try metadata.checkOrWrite(.modelHash, model.hash) { StoreError.modelMismatch(store: $0, model: model.hash) }
            try metadata.checkOrWrite(.peerID, peerID) { StoreError.peerMismatch(store: $0, peer: peerID) }
            if try meta(.schemaVersion) == "1" { try upgradeSchemaFromVersion1(schema: "main") }
            try metadata.checkOrWrite(.schemaVersion, String(StoreSchema.version)) { StoreError.schemaMismatch($0) }
            // What a later migration starts from (stores made before migrations record it now).
            let text = Self.recordedModelText(model)
            if try meta(.model) != text { try setMeta(.model, text) }
        }
    }

    /// What `createOrCheckSchema` checks, for a store opened read-only: it must already be
    /// this model's, this peer's and of this schema version (an upgrade would write).
    private func checkMetaForReading(model: ObjectModel, peerID: String) throws {
        guard let hash = try meta(.modelHash), let peer = try meta(.peerID), let schema = try meta(.schemaVersion) else { throw StoreError.missing(path) }
        guard hash == model.hash else { throw StoreError.modelMismatch(store: hash, model: model.hash) }
        guard peer == peerID else { throw StoreError.peerMismatch(store: peer, peer: peerID) }
        guard schema == String(StoreSchema.version) else { throw StoreError.schemaMismatch(schema) }
    }

    /// A bookkeeping table a later build added without a new schema version (`Z_OUTBOX_PREVIOUS`)
    /// is made in the file by its owner's next open; a reader, which writes nothing, reads it
    /// empty: made in its own connection's temporary schema, which shadows nothing in the file.
    private func addMissingBookkeepingForReading() throws {
        let prefix = "CREATE TABLE IF NOT EXISTS "
        let existing = Set(try database.statement("SELECT name FROM main.sqlite_master WHERE type = 'table'").rows { $0.string(0) ?? "" })
        for statement in StoreSchema.bookkeepingSQL.split(separator: ";") {
            let sql = statement.trimmingCharacters(in: .whitespacesAndNewlines)
            guard sql.hasPrefix(prefix), let qualified = sql.dropFirst(prefix.count).split(separator: " ").first else { continue }
            let name = qualified.hasPrefix("main.") ? String(qualified.dropFirst(5)) : String(qualified)
            guard !existing.contains(name) else { continue }
            try database.execute("CREATE TEMP TABLE " + name + sql.dropFirst(prefix.count + qualified.count))
        }
    }

    private var lockDepth = 0

    /// Runs `body` holding the store's lock; the outermost call leaves no statement mid-read,
    /// and starts with no read transaction left open by `lockedLingeringRead`.
    /// Throws `StoreError.closed` once the store was closed.
    func locked<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { throw StoreError.closed }
        lockDepth += 1
        if lockDepth == 1 { database.endLingeringRead() }
        defer {
            lockDepth -= 1
            if lockDepth == 0 { database.resetActiveStatements() }
        }
        return try body()
    }

    /// Runs `body`, a read, holding the store's lock inside the read transaction the last
    /// call left open (`SQLiteDatabase.lingeringRead`): a run of such calls, such as the key
    /// checks of a context's inserts, shares one snapshot and one set of file locks, and the
    /// next other use of the store (`locked`) ends it. Only this store's connection writes its
    /// file (its device's lock keeps other processes to reading), so the snapshot is never
    /// older than the store's last commit.
    func lockedLingeringRead<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { throw StoreError.closed }
        lockDepth += 1
        defer {
            lockDepth -= 1
            // A statement left mid-read inside the lingering read holds nothing the read does
            // not (ending it resets them all); walking every cached statement per key check did.
            if lockDepth == 0 && !database.isLingering { database.resetActiveStatements() }
        }
        // Inside another use of the store (a transaction, perhaps), the read joins that. A store
        // opened read-only beside its owner never lingers: the owner's writes come through
        // another connection, and a lingering snapshot would hide them.
        return lockDepth == 1 && !isReadOnly ? try database.lingeringRead(body) : try body()
    }

    /// Runs `body`, which reads the store's state in memory and no SQL, holding the store's
    /// lock; unlike `locked`, it leaves a lingering read open (a context asks `isRetired` at
    /// every insert, between the key checks that share that read).
    func lockedState<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    // MARK: Knowledge

    /// The knowledge vector: for each peer, the highest transaction applied here.
    public var knowledge: KnowledgeVector {
        lockedState {
            // A use of the store as any other (`locked`): it ends a lingering read; a closed store still tells what it knew.
            if !isClosed && lockDepth == 0 { database.endLingeringRead() }
            return knowledgeCache
        }
    }

    func loadKnowledge() throws -> KnowledgeVector { try knowledgeTable.load() }

    func advanceKnowledge(peer: String, to number: Int64) throws {
        guard number > knowledgeCache[peer] else { return }
        try knowledgeTable.set(peer: peer, to: number)
        knowledgeCache[peer] = number
    }

    func persistClock() throws {
        if let last = clock.last { try setMeta(.lastStamp, last.description) }
    }

    /// The time this store stamps its transactions, history and conflicts with (a peer sets
    /// its configuration's clock; scenarios give each device a simulated, possibly skewed one).
    public var wallClock: WallClock {
        get { lockedState { wallClockStorage } }
        set { lockedState { wallClockStorage = newValue } }
    }

    /// Seconds since 1970 on this store's wall clock.
    package var now: Double { wallClockStorage.now.timeIntervalSince1970 }

    func table(_ entity: String) throws -> EntityTable { try merge.table(entity) }
}
