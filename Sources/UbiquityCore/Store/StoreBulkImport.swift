import Foundation

// A newcomer's initial import: a baseline joined into the empty store, then every newer log in
// one or a few transactions. Its keys land all over each entity table (a table is ordered by
// object ID), so one batch of logs dirties most of the table's pages; with the usual page cache
// they spill to the WAL mid-transaction, are read back, and are written again.
extension PersistentStore {
    /// The page cache limit while `withBulkImportCache` runs, in KiB: room for every page of a
    /// store of a million objects (about 140 MB). On the join benchmark's million objects the
    /// import of the 10,000 logs after the baseline took 2.6–2.7 s with it against 3.0–3.9 s
    /// with the usual 64 MiB; 512 MiB did no better.
    static let bulkImportCacheKiB = 262_144

    /// Runs `body`, an initial import, with a page cache of up to `bulkImportCacheKiB`, then
    /// gives the memory over the usual cache back. `body` takes the store's lock as it needs it.
    package func withBulkImportCache<T>(_ body: () throws -> T) throws -> T {
        if isReadOnly { return try body() }
        try locked { try database.setPageCache(kibibytes: Self.bulkImportCacheKiB) }
        defer { _ = try? locked { try database.setPageCache(kibibytes: nil) } }
        return try body()
    }
}
