/// Which way objects are copied between the device's local store and its account's store.
public enum AccountStoreCopyDirection: Sendable {
    /// What was saved while signed out goes into the account's store (and then syncs).
    case localToAccount
    /// The account's objects go into the local store (iCloud turned off).
    case accountToLocal
}

/// Copying objects between the local store and the current account's store, without duplicates.
public enum AccountStoreCopy {
    /// Adds the account's store as an app would, waits for its initial import, then copies in
    /// `direction`; objects the target already has (same global ID or natural key) stay as they are.
    public static func run(_ direction: AccountStoreCopyDirection, configuration: PeerConfiguration) throws -> MigrationReport {
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration, liveImport: .off)
        defer { coordinator.close() }
        try coordinator.addStore()
        try coordinator.waitForBackgroundImport()
        switch direction {
        case .localToAccount: return try coordinator.migrateLocalStoreToAccount()
        case .accountToLocal: return try coordinator.migrateAccountStoreToLocal()
        }
    }
}
