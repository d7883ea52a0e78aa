import Foundation
import Testing
import Ubiquity
@testable import UbiquitySync
import UbiquityTestSupport

/// Sync activity: each export, import, initial import, roll, collection and migration is told
/// as it starts, progresses (never backwards) and ends with its outcome.
@Suite("Sync activity")
struct SyncActivityTests {
    /// Commits `count` local transactions of one note each and exports them in one flush.
    func write(_ peer: UbiquityPeer, _ count: Int, from first: Int = 0) throws {
        for index in first..<(first + count) {
            let id = try GlobalID(entity: "Note", key: "n\(index)")
            _ = try peer.store.commitLocal(inserted: [ChangeRecord(id: id, values: ["title": .string("note \(index)")])], updated: [], deleted: [])
        }
        try peer.exportPending()
    }

    /// The reports of the activities of `kind`, each activity's in the order posted.
    func reports(_ log: EventLog<SyncActivity>, _ kind: SyncActivity.Kind) -> [[SyncActivity]] {
        let reports = log.events.filter { $0.kind == kind }
        return Dictionary(grouping: reports, by: \.id).sorted { $0.key < $1.key }.map(\.value)
    }

    /// Checks one activity's reports: a start, progress that never falls and ends at 1, an end that succeeded.
    func expectSucceeded(_ activity: [SyncActivity], sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .started? = activity.first?.phase else {
            Issue.record("no start first: \(activity.map(\.phase))", sourceLocation: sourceLocation); return
        }
        guard case .succeeded? = activity.last?.outcome else {
            Issue.record("no successful end last: \(activity.map(\.phase))", sourceLocation: sourceLocation); return
        }
        let fractions = activity.map(\.progress.fraction)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 }, "progress went backwards: \(fractions)", sourceLocation: sourceLocation)
        #expect(fractions.last == 1, sourceLocation: sourceLocation)
        #expect(activity.dropFirst().dropLast().allSatisfy { if case .progressed = $0.phase { return true } else { return false } },
                sourceLocation: sourceLocation)
    }

    @Test func theInitialImportOfTenThousandLogsIsToldFromStartToEnd() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone", policy: nil)
        try write(phone, 10_000)
        phone.close()
        let mac = try cloud.coordinator("mac", policy: nil)
        let log = EventLog<SyncActivity>()
        mac.observeActivity { log.append($0) }
        try mac.addStore()
        #expect(try mac.waitForBackgroundImport(timeout: 600))
        mac.close() // every report made so far is delivered
        let imports = reports(log, .initialImport)
        try #require(imports.count == 1, "\(log.events.map { ($0.kind, $0.phase) })")
        let initial = imports[0]
        expectSucceeded(initial)
        #expect(initial.first?.progress.logsTotal == 10_000)
        #expect(initial.last?.progress.logsDone == 10_000)
        #expect(initial.last?.progress.bytesDone == initial.first?.progress.bytesTotal)
        let rising = Set(initial.map(\.progress.fraction))
        #expect(rising.count > 50, "progress told on the way, not only at the end: \(rising.count) values")
        #expect(initial.count < 150, "progress posted about every hundredth, not per log: \(initial.count) reports")
        #expect(reports(log, .import).isEmpty, "the account store's first import is the initial import")
    }

    @Test func anExportIsToldWithItsLogsAndBytes() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        let log = EventLog<SyncActivity>()
        phone.observeActivity { log.append($0) }
        try write(phone, 3)
        #expect(try phone.exportPending() == 0)
        phone.close()
        let exports = reports(log, .export)
        #expect(exports.count == 1, "a flush with nothing to write is not told")
        let export = try #require(exports.first)
        expectSucceeded(export)
        #expect(export.last?.progress.logsDone == 3)
        #expect((export.last?.progress.bytesDone ?? 0) > 0)
    }

    @Test func anImportOfAnotherPeerIsToldAsAnImport() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone"), mac = try cloud.peer("mac")
        _ = try mac.sync()
        try write(phone, 5)
        let log = EventLog<SyncActivity>()
        mac.observeActivity { log.append($0) }
        _ = try mac.sync()
        mac.close()
        phone.close()
        let imports = reports(log, .import)
        try #require(imports.count == 1)
        expectSucceeded(imports[0])
        #expect(imports[0].last?.progress.logsDone == 5)
    }

    @Test func aRollAndACollectionAreTold() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        try write(phone, 4)
        let log = EventLog<SyncActivity>()
        phone.observeActivity { log.append($0) }
        guard case .rolled = try phone.rollBaseline(force: true) else { Issue.record("the roll was skipped"); return }
        let garbage = phone.collectGarbage(policy: BaselinePolicy(gracePeriod: 0), now: Date().addingTimeInterval(3600))
        phone.close()
        let rolls = reports(log, .baselineRoll)
        try #require(rolls.count == 1)
        expectSucceeded(rolls[0])
        #expect(rolls[0].first?.progress.logsTotal == 4, "the transactions the baseline holds")
        let collections = reports(log, .garbageCollection)
        try #require(collections.count == 1)
        expectSucceeded(collections[0])
        #expect(collections[0].last?.progress.logsDone == garbage.deleted.count + garbage.deletedCopies.count)
    }

    @Test func aRollThatNeedNotRollIsNotTold() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        try write(phone, 1)
        let log = EventLog<SyncActivity>()
        phone.observeActivity { log.append($0) }
        #expect(try phone.rollBaseline(force: false).isSkipped)
        phone.close()
        #expect(reports(log, .baselineRoll).isEmpty)
    }

    @Test func aModelMigrationIsToldWhenTheStoreOpens() throws {
        let cloud = try TestCloud()
        let first = try cloud.coordinator("mac")
        try first.addStore()
        #expect(try first.waitForBackgroundImport(timeout: 60))
        first.close()
        var configuration = cloud.configuration("mac")
        configuration.model = NotesVersions.withColour
        let upgraded = try UbiquitousStoreCoordinator(configuration: configuration, liveImport: .off)
        let log = EventLog<SyncActivity>()
        upgraded.observeActivity { log.append($0) }
        try upgraded.addStore()
        #expect(try upgraded.waitForBackgroundImport(timeout: 60))
        upgraded.close()
        let migrations = reports(log, .modelMigration)
        try #require(migrations.count == 1, "\(log.events.map { ($0.kind, $0.phase) })")
        expectSucceeded(migrations[0])
        #expect(migrations[0].first?.progress.logsTotal == 1 && (migrations[0].first?.progress.bytesTotal ?? 0) > 0)
    }

    @Test func aFailedExportEndsWithItsTypedError() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        try write(phone, 1)
        // The peer's own folder is a file now: no log can be written into it.
        let folder = try #require(phone.location).logDirectory(of: phone.peerID)
        try FileManager.default.removeItem(atPath: folder)
        #expect(FileManager.default.createFile(atPath: folder, contents: Data("in the way".utf8)))
        let id = try GlobalID(entity: "Note", key: "late")
        _ = try phone.store.commitLocal(inserted: [ChangeRecord(id: id, values: ["title": .string("late")])], updated: [], deleted: [])
        let log = EventLog<SyncActivity>()
        phone.observeActivity { log.append($0) }
        #expect(throws: SyncError.self) { try phone.exportPending() }
        phone.close()
        let export = try #require(reports(log, .export).first)
        guard case .started? = export.first?.phase, case let .failed(error)? = export.last?.outcome else {
            Issue.record("\(export.map(\.phase))"); return
        }
        guard case SyncError.containerUnwritable? = error as? SyncError else { Issue.record("not the sync error: \(error)"); return }
        #expect((export.last?.progress.fraction ?? 1) < 1)
    }

    @Test func theStreamCarriesTheSameReportsAndEndsAtClose() async throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        let stream = phone.activities
        try write(phone, 2)
        phone.close()
        var phases: [String] = []
        for await activity in stream { phases.append("\(activity.kind):\(activity.phase)".components(separatedBy: "(").first ?? "") }
        #expect(phases == ["export:started", "export:progressed", "export:progressed", "export:ended"], "\(phases)")
    }

    @Test func aTotalThatGrowsNeverTakesTheFractionBack() {
        let hub = ActivityHub()
        let log = EventLog<SyncActivity>()
        let observation = hub.observe { log.append($0) }
        let reporter = hub.reporter(.import)
        reporter?.begin(logs: 10)
        reporter?.advance(logs: 5)
        reporter?.grow(logs: 90) // 5 of 100 now, yet it had come halfway
        reporter?.advance(logs: 55)
        reporter?.end(.succeeded)
        hub.drain()
        observation.cancel()
        #expect(log.events.map(\.progress.fraction) == [0, 0.5, 0.6, 1, 1])
        #expect(log.events.map(\.progress.logsTotal) == [10, 10, 100, 100, 100])
        #expect(hub.reporter(.import) == nil, "nobody listens any more: nothing is made")
    }
}
