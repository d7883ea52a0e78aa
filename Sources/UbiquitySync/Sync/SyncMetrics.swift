import CoreMetrics
import Dispatch

/// The metrics a peer records through swift-metrics, each under one fixed name
/// (Docs/Library.md, "Metrics"). Every one carries a single dimension, `store`: the content
/// name, so the number of series is bounded by the app's stores, never by peers or files.
public enum SyncMetricName: String, CaseIterable, Sendable {
    /// Counter: logs this peer wrote into the container.
    case logsExported = "ubiquity_logs_exported"
    /// Counter: bytes of the log files this peer wrote (their size in the container).
    case bytesExported = "ubiquity_bytes_exported"
    /// Counter: other peers' logs applied to the store.
    case logsImported = "ubiquity_logs_imported"
    /// Counter: bytes of the files of the logs applied.
    case bytesImported = "ubiquity_bytes_imported"
    /// Counter: concurrent overwrites recorded by imports (merge conflicts).
    case conflictsRecorded = "ubiquity_conflicts_recorded"
    /// Counter: files set aside by imports (logs and external-data files).
    case filesQuarantined = "ubiquity_files_quarantined"
    /// Counter: per import pass, each missing or quarantined predecessor and each missing
    /// external-data file an import waits for.
    case importWaits = "ubiquity_import_waits"
    /// Timer: one export of the outbox.
    case exportDuration = "ubiquity_export_duration"
    /// Timer: one import pass.
    case importDuration = "ubiquity_import_duration"
    /// Timer: a sync round's joins and import while the store's initial import is not done.
    case initialImportDuration = "ubiquity_initial_import_duration"
    /// Timer: a baseline roll that wrote a baseline.
    case baselineRollDuration = "ubiquity_baseline_roll_duration"
    /// Timer: one garbage collection of the container.
    case garbageCollectionDuration = "ubiquity_garbage_collection_duration"
    /// Timer: a store's migration to another model version when it is opened.
    case migrationDuration = "ubiquity_migration_duration"
}

/// The counters and timers of one peer, made once when it opens (a metric object per log
/// would cost a factory call each); with no backend they are swift-metrics' no-ops.
package final class SyncMetrics: Sendable {
    /// The sync activities timed.
    package enum Activity: Sendable {
        case export, `import`, initialImport, baselineRoll, garbageCollection, migration
    }

    private let logsExported, bytesExported, logsImported, bytesImported: Counter
    private let conflictsRecorded, filesQuarantined, importWaits: Counter
    private let export, importPass, initialImport, baselineRoll, garbageCollection, migration: Timer

    package init(factory: any MetricsFactory, store: String) {
        let dimensions = [("store", store)]
        func counter(_ name: SyncMetricName) -> Counter { Counter(label: name.rawValue, dimensions: dimensions, factory: factory) }
        func timer(_ name: SyncMetricName) -> Timer { Timer(label: name.rawValue, dimensions: dimensions, factory: factory) }
        (logsExported, bytesExported) = (counter(.logsExported), counter(.bytesExported))
        (logsImported, bytesImported) = (counter(.logsImported), counter(.bytesImported))
        (conflictsRecorded, filesQuarantined, importWaits) = (counter(.conflictsRecorded), counter(.filesQuarantined), counter(.importWaits))
        (export, importPass, initialImport) = (timer(.exportDuration), timer(.importDuration), timer(.initialImportDuration))
        (baselineRoll, garbageCollection, migration) = (timer(.baselineRollDuration), timer(.garbageCollectionDuration), timer(.migrationDuration))
    }

    /// One log of `bytes` written into the container.
    package func exported(bytes: Int64) {
        logsExported.increment()
        bytesExported.increment(by: bytes)
    }

    /// What one import pass applied, set aside and waits for.
    package func imported(_ report: ImportReport) {
        if !report.applied.isEmpty {
            logsImported.increment(by: Int64(report.applied.count))
            bytesImported.increment(by: report.appliedBytes)
        }
        if !report.quarantined.isEmpty { filesQuarantined.increment(by: Int64(report.quarantined.count)) }
        let waits = report.missingPredecessors.count + report.missingExternalData.count
        if waits > 0 { importWaits.increment(by: Int64(waits)) }
    }

    /// Conflicts an import recorded.
    package func recordedConflicts(_ count: Int64) {
        if count > 0 { conflictsRecorded.increment(by: count) }
    }

    /// A monotonic instant to time an activity from.
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Records the time since `start` (from `now()`) as one `activity`.
    package func record(_ activity: Activity, since start: UInt64) {
        let elapsed = Int64(clamping: DispatchTime.now().uptimeNanoseconds &- start)
        timer(activity).recordNanoseconds(elapsed)
    }

    /// Runs `body`, timing it as one `activity`.
    package func time<T, E: Error>(_ activity: Activity, _ body: () throws(E) -> T) throws(E) -> T {
        let start = Self.now()
        defer { record(activity, since: start) }
        return try body()
    }

    private func timer(_ activity: Activity) -> Timer {
        switch activity {
        case .export: export
        case .import: importPass
        case .initialImport: initialImport
        case .baselineRoll: baselineRoll
        case .garbageCollection: garbageCollection
        case .migration: migration
        }
    }
}
