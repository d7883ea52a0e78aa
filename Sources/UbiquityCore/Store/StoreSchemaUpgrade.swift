// Schema version 1 kept each slot's stamp as text with its writer's number (`s_<slot>`,
// `n_<slot>`); version 2 keeps one reference to `Z_WRITERS` (`w_<slot>`). Stores and baseline
// state files written by version 1 are upgraded in place when opened or adopted.
extension PersistentStore {
    /// Upgrades the version-1 database attached as `schema` (`main`, or a baseline's state
    /// file). The caller holds the lock and an open transaction.
    func upgradeSchemaFromVersion1(schema: String) throws {
        // A read left open (the version just checked) would lock the tables the upgrade alters.
        database.resetActiveStatements()
        try database.execute(StoreSchema.writersSQL(schema: schema))
        for table in tables.values.sorted(by: { $0.tableName < $1.tableName }) {
            let qualified = "\(schema).\(table.quotedName)"
            for slot in table.slots {
                let stamp = SQLiteDatabase.quote("s_" + slot.name), number = SQLiteDatabase.quote("n_" + slot.name)
                let writer = SQLiteDatabase.quote("w_" + slot.name)
                // A stamp is `<16 digits>.<8 digits>.<peer>`: the writer's peer starts at character 27.
                try database.execute("""
                    INSERT OR IGNORE INTO \(schema).Z_WRITERS (peer, number, stamp)
                        SELECT substr(\(stamp), 27), \(number), \(stamp) FROM \(qualified) WHERE \(stamp) IS NOT NULL;
                    ALTER TABLE \(qualified) ADD COLUMN \(writer);
                    UPDATE \(qualified) SET \(writer) = (SELECT id FROM \(schema).Z_WRITERS
                        WHERE peer = substr(\(stamp), 27) AND Z_WRITERS.number = \(qualified).\(number)) WHERE \(stamp) IS NOT NULL;
                    ALTER TABLE \(qualified) DROP COLUMN \(stamp);
                    ALTER TABLE \(qualified) DROP COLUMN \(number);
                    """)
            }
        }
        if schema == "main" {
            for table in tables.values { try database.execute(table.dropIndexSQL(schema: schema) + table.indexSQL(schema: schema)) }
        }
        try MetadataTable(database: database, schema: schema).set(.schemaVersion, String(StoreSchema.version))
        forgetSlotWriters()
    }
}
