import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

@Suite("Store lifecycle: fallback and initial import, later launches, content removal, rebuild")
struct LifecycleTests {
    /// Three peers build a container of `objects` notes in `transactions` saves.
    func buildContainer(_ cloud: TestCloud, objects: Int, transactions: Int) throws -> [UbiquityPeer] {
        let peers = try (0..<3).map { try cloud.peer("builder\($0)") }
        let perTransaction = objects / transactions
        for transaction in 0..<transactions {
            let context = peers[transaction % 3].newContext()
            for index in 0..<perTransaction {
                let note = try context.insert("Note", key: "n\(transaction)-\(index)")
                note["title"] = .string("note \(transaction)-\(index)")
                note["pinned"] = .boolean(index % 2 == 0)
            }
            if transaction % 97 == 0 { try context.insert("Folder", key: "f\(transaction)")["name"] = .string("folder \(transaction)") }
            try context.save()
            if transaction % 50 == 49 { for peer in peers { _ = try peer.sync() } }
        }
        for _ in 0..<2 { for peer in peers { _ = try peer.sync() } }
        return peers
    }

    @Test func aNewcomerJoinsThroughTheFallbackAndKeepsItsEdits() throws {
        let cloud = try TestCloud()
        let builders = try buildContainer(cloud, objects: 20_000, transactions: 2_000)
        #expect(builders[0].baselineMetadata != nil, "the builders rolled baselines on the way")

        let newcomer = try cloud.coordinator("newcomer")
        let events = EventLog<CoordinatorEvent>()
        newcomer.observe { events.append($0) }
        let gate = DispatchSemaphore(value: 0)
        newcomer.beforeHandover = { gate.wait() }
        try newcomer.addStore()
        #expect(newcomer.storeKind == .fallback)
        // Edits while the import runs: a new note, and a folder whose natural key already exists.
        let context = try newcomer.newContext()
        let fresh = try context.insert("Note", key: "written-during-import")
        fresh["title"] = .string("from the fallback")
        let folder = try context.insert("Folder", key: "f97")
        folder["name"] = .string("renamed in the fallback")
        try fresh.setTarget(folder.id, of: "folder")
        try context.save()
        gate.signal()
        #expect(try newcomer.waitForBackgroundImport(timeout: 300))
        #expect(newcomer.storeKind == .account)

        // Exactly: did-change (fallback added), did-import…, will-change(4), did-change(4).
        let sequence = events.events
        #expect(sequence.first == .storesDidChange(nil, now: .fallback))
        #expect(Array(sequence.suffix(2)) == [.storesWillChange(.initialImportCompleted), .storesDidChange(.initialImportCompleted, now: .account)])
        let middle = sequence.dropFirst().dropLast(2)
        #expect(!middle.isEmpty && middle.allSatisfy { if case .didImport = $0 { return true } else { return false } }, "\(sequence)")
        let imported = middle.reduce(into: ObjectChanges()) { total, event in if case let .didImport(changes) = event { total.merge(changes) } }
        #expect(imported.inserted.count >= 20_000)

        // A saved fallback edit is never lost and never duplicated, and reaches everybody.
        let account = try #require(newcomer.peer)
        for _ in 0..<2 {
            _ = try newcomer.sync()
            for peer in builders { _ = try peer.sync() }
        }
        let states = try builders.map { try $0.mergeStateText() } + [account.mergeStateText()]
        #expect(Set(states).count == 1)
        for store in builders.map(\.store) + [account.store] {
            #expect(try store.count(FetchRequest(entity: "Note")) == 20_001)
            #expect(try store.snapshot(of: fresh.id)?.values["title"] == .string("from the fallback"))
            #expect(try store.snapshot(of: folder.id)?.values["name"] == .string("renamed in the fallback"))
            #expect(try store.targets(of: "notes", of: folder.id) == [fresh.id])
            #expect(try store.count(FetchRequest(entity: "Folder")) == 21)
        }
        // The fallback is gone; the context made on it goes on in the account store.
        #expect(try context.save() == nil)
        try context.insert("Note", key: "after-the-handover")
        #expect(try context.save()?.peerID == account.peerID)
        #expect(context.store === account.store)
        #expect(try account.store.count(FetchRequest(entity: "Note")) == 20_002)
        newcomer.close()

        // A later launch opens the account store directly and catches up in the background.
        let relaunched = try cloud.coordinator("newcomer")
        let laterEvents = EventLog<CoordinatorEvent>()
        relaunched.observe { laterEvents.append($0) }
        try relaunched.addStore()
        #expect(relaunched.storeKind == .account)
        #expect(try relaunched.waitForBackgroundImport())
        #expect(laterEvents.events.first == .storesDidChange(nil, now: .account))
        #expect(!laterEvents.events.contains(.storesWillChange(.initialImportCompleted)))
        #expect(try relaunched.peer?.store.count(FetchRequest(entity: "Note")) == 20_002)
        relaunched.close()
    }

    @Test func signedOutDevicesWorkOnTheLocalStore() throws {
        let cloud = try TestCloud()
        let coordinator = try cloud.coordinator("offline", account: nil)
        let events = EventLog<CoordinatorEvent>()
        coordinator.observe { events.append($0) }
        try coordinator.addStore()
        #expect(coordinator.storeKind == .local)
        #expect(events.events == [.storesDidChange(nil, now: .local)])
        let context = try coordinator.newContext()
        try context.insert("Note", key: "local")
        try context.save()
        #expect(try coordinator.sync().signedOut)
        #expect(DirectoryEntry.list(cloud.cloud).isEmpty, "nothing of a signed-out device reaches the cloud")
        coordinator.close()
    }

    @Test func optionsAreValidatedAsAppleDid() throws {
        let cloud = try TestCloud()
        _ = try Device.create(at: cloud.devicePath("d"), userName: "d")
        func attempt(_ change: (inout PeerConfiguration) -> Void) -> String {
            var configuration = cloud.configuration("d")
            change(&configuration)
            do { _ = try UbiquitousStoreCoordinator(configuration: configuration); return "accepted" } catch { return "\(error)" }
        }
        #expect(attempt { $0.contentName = "My.Notes" }.contains("no periods"))
        #expect(attempt { $0.contentURL = "/absolute" }.contains("relative path"))
        #expect(attempt { $0.contentURL = "Data/cache.nosync" }.contains(".nosync"))
        try AtomicFile.write([1], to: cloud.root + "/a-file")
        #expect(attempt { $0.cloud = cloud.root + "/a-file/cloud" }.contains("cannot be created"))
        #expect(attempt { _ in } == "accepted")
    }

    @Test(.enabled(if: getuid() != 0, "root writes into any folder: run as another user to check this"))
    func aCloudTheDeviceCannotWriteIsRefused() throws {
        let cloud = try TestCloud()
        _ = try Device.create(at: cloud.devicePath("d"), userName: "d")
        let readOnly = cloud.root + "/read-only"
        try AtomicFile.makeDirectory(readOnly)
        chmod(readOnly, 0o500)
        defer { chmod(readOnly, 0o700) }
        var configuration = cloud.configuration("d")
        configuration.cloud = readOnly
        #expect(throws: (any Error).self) { _ = try UbiquitousStoreCoordinator(configuration: configuration) }
        do { _ = try UbiquitousStoreCoordinator(configuration: configuration) } catch {
            #expect("\(error)".contains("not writable"), "\(error)")
        }
    }

    @Test func contentRemovalReachesRunningAndLaterPeers() throws {
        let cloud = try TestCloud()
        let remover = try cloud.coordinator("remover"), running = try cloud.coordinator("running")
        for coordinator in [remover, running] {
            try coordinator.addStore()
            try coordinator.waitForBackgroundImport()
        }
        let context = try remover.newContext()
        try context.insert("Note", key: "doomed")
        try context.save()
        _ = try running.sync()
        #expect(try running.peer?.store.count(FetchRequest(entity: "Note")) == 1)
        let laterPeer = try cloud.peer("later")   // saw the content before the removal
        laterPeer.close()

        let events = EventLog<CoordinatorEvent>()
        running.observe { events.append($0) }
        try remover.removeUbiquitousContent()
        #expect(try remover.peer?.store.count(FetchRequest(entity: "Note")) == 0)
        _ = try running.sync()
        #expect(events.events == [.storesWillChange(.contentRemoved), .storesDidChange(.contentRemoved, now: .account)])
        #expect(try running.peer?.store.count(FetchRequest(entity: "Note")) == 0)

        // Both continue on an empty store and sync again.
        let after = try running.newContext()
        try after.insert("Note", key: "fresh start")
        try after.save()
        _ = try remover.sync()
        #expect(try remover.peer?.store.count(FetchRequest(entity: "Note")) == 1)
        #expect(try remover.peer?.dumpText() == running.peer?.dumpText())

        // A peer that starts later notices the removal too.
        let later = try cloud.coordinator("later")
        let laterEvents = EventLog<CoordinatorEvent>()
        later.observe { laterEvents.append($0) }
        try later.addStore()
        try later.waitForBackgroundImport()
        _ = try later.sync()
        #expect(try later.peer?.store.snapshot(of: GlobalID(entity: "Note", key: "doomed")) == nil)
        #expect(try later.peer?.store.count(FetchRequest(entity: "Note")) == 1)
        for coordinator in [remover, running, later] { coordinator.close() }
    }

    @Test func aDeletedStoreIsRebuiltFromTheContainer() throws {
        let cloud = try TestCloud()
        let other = try cloud.peer("other")
        let victim = try cloud.coordinator("victim", policy: BaselinePolicy(transactionThreshold: 5))
        try victim.addStore()
        try victim.waitForBackgroundImport()
        for index in 0..<12 {
            let context = try victim.newContext()
            try context.insert("Note", key: "v\(index)")
            try context.save()
            _ = try victim.sync()
        }
        _ = try other.sync()
        #expect(victim.peer?.baselineMetadata != nil)
        let before = try #require(victim.peer).store.knowledge
        victim.close()

        // The rebuild option deletes the store; the fallback flow rebuilds it from baseline and logs.
        let rebuilt = try UbiquitousStoreCoordinator(configuration: cloud.configuration("victim", policy: BaselinePolicy(transactionThreshold: 5), rebuild: true))
        let events = EventLog<CoordinatorEvent>()
        rebuilt.observe { events.append($0) }
        try rebuilt.addStore()
        try rebuilt.waitForBackgroundImport()
        #expect(events.events.first == .storesDidChange(nil, now: .fallback), "the rebuild goes through a fallback")
        #expect(events.events.last == .storesDidChange(.initialImportCompleted, now: .account))
        let peer = try #require(rebuilt.peer)
        #expect(peer.store.knowledge == before)
        let context = peer.newContext()
        try context.insert("Note", key: "after rebuild")
        #expect(try context.save()?.transactionNumber == before[peer.peerID] + 1, "no transaction number is reused")
        _ = try other.sync()
        _ = try rebuilt.sync()
        #expect(try other.dumpText() == peer.dumpText())
        #expect(try other.store.count(FetchRequest(entity: "Note")) == 13)
        rebuilt.close()
    }

    struct InterruptedImport: Error {}

    @Test func savesInAFallbackSurviveAnInterruptedInitialImport() throws {
        let cloud = try TestCloud()
        let other = try cloud.peer("other")
        let context = other.newContext()
        try context.insert("Note", key: "from-other")
        try context.save()

        let first = try cloud.coordinator("phone")
        first.beforeHandover = { throw InterruptedImport() }
        #expect(try first.addStore().kind == .fallback)
        let fallback = try first.newContext()
        try fallback.insert("Note", key: "saved-in-fallback")["title"] = .string("must survive")
        try fallback.save()
        #expect(throws: InterruptedImport.self) { try first.waitForBackgroundImport() }
        #expect(first.storeKind == .fallback, "the app stays on the fallback when the import fails")
        first.close()

        // The next launch finds the fallback, finishes the import and migrates its saves.
        let second = try cloud.coordinator("phone")
        #expect(try second.addStore().kind == .fallback)
        try second.waitForBackgroundImport()
        let store = try #require(second.peer).store
        #expect(try store.snapshot(of: GlobalID(entity: "Note", key: "saved-in-fallback"))?.values["title"] == .string("must survive"))
        #expect(try store.snapshot(of: GlobalID(entity: "Note", key: "from-other")) != nil)
        _ = try other.sync()
        #expect(try other.store.snapshot(of: GlobalID(entity: "Note", key: "saved-in-fallback")) != nil, "and it reaches the other peer")
        second.close()
    }
}
