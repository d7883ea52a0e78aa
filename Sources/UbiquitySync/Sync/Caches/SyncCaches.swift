/// What a peer's syncs keep from one round to the next so as not to read or decode an unchanged
/// file again: one set per `ContainerLocation`, so per peer, never shared with the other peers
/// of the process (a test, a scenario's devices, an app with two stores), and dropped with it.
///
/// Every cache answers only what reading the same file again would: each entry is keyed by the
/// file's path and a signature that any later write, rename or replacement changes (its
/// settled signature, or its folder watch's memo), keeps plaintext only (a sealed file opens
/// only with the key this device holds at the time) and never a failed read. Each is bounded,
/// and emptied whole when full: the caches only save work. The policies, in one place:
///
/// | cache | holds | bound |
/// |---|---|---|
/// | `decodedLogs` | logs decoded that could not apply yet | 32 MiB, logs of at most 256 KiB |
/// | `receipts` | receipts decoded | 1,024 receipts |
/// | `baselineMetadata` | baseline archives' metadata | 256 archives |
/// | `verifiedLists` | baseline folders' lists of verified archives | 256 lists |
/// | `verifiedStore` | the store a catalog's check just inflated, for the join after it | one store, 30 s, 256 MiB |
/// | `logEpochs` | the content epoch a waiting log names | 4,096 logs |
///
/// The one process-wide memory of the container is `LogFolderListings`' kept listings, since
/// an inotify watch belongs to the process.
package final class SyncCaches: Sendable {
    package let decodedLogs = DecodedLogCache()
    package let receipts = ReceiptCache()
    let baselineMetadata = FileSignatureCache<BaselineMetadata>(capacity: 256)
    let verifiedLists = FileSignatureCache<Set<String>>(capacity: 256)
    let verifiedStore = RecentlyVerifiedStore()
    /// `.some(nil)`: the log names no epoch.
    let logEpochs = FileSignatureCache<String??>(capacity: 4096)

    package init() {}
}
