import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

@Suite("Contexts follow their store through handovers and account switches")
struct ContextHandoverTests {
    private func store(_ root: String, _ name: String) throws -> PersistentStore {
        try PersistentStore(path: "\(root)/\(name).sqlite", model: .notes, peerID: "ann~\(name)", storeName: "Notes", contentName: "Notes")
    }

    private func title(_ store: PersistentStore, _ key: String) throws -> AttributeValue?? {
        try store.snapshot(of: GlobalID(entity: "Note", key: key))?.values["title"]
    }

    @Test func aSaveDuringAHandoverWaitsAndLandsAfterTheReplayedSaves() throws {
        let root = NSTemporaryDirectory() + "ubiquity-handover-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fallback = try store(root, "fallback"), account = try store(root, "account")
        let context = ObjectContext(store: fallback)
        try context.insert("Note", key: "n").set("title", "first")
        try context.save()
        try #require(try context.object(GlobalID(entity: "Note", key: "n"))).set("title", "edited during the handover")

        fallback.beginHandover("the initial import completed")
        let saved = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        // The context is the saving thread's until it signals.
        nonisolated(unsafe) let handedContext = context
        let saver = Thread {
            do { outcome.set(try handedContext.save().map { "transaction \($0.transactionNumber) of \($0.peerID)" } ?? "nothing") } catch { outcome.set("\(error)") }
            saved.signal()
        }
        saver.start()
        // The replay of the fallback's saves (what the coordinator does): the older edit first.
        let replay = ObjectContext(store: account)
        try replay.insert("Note", key: "n").set("title", "first")
        try replay.save()
        fallback.handOver(to: account, reason: "the initial import completed", keepsChanges: true)
        #expect(saved.wait(timeout: .now() + 30) == .success)
        #expect(outcome.value == "transaction 2 of ann~account", "the waiting save went into the account store, after the replay")
        #expect(try title(account, "n") == .some(.string("edited during the handover")))
        #expect(context.store === account)
        // And the context goes on there.
        try context.insert("Note", key: "m").set("title", "later")
        try context.save()
        #expect(try account.count(FetchRequest(entity: "Note")) == 2)
        #expect(try fallback.count(FetchRequest(entity: "Note")) == 1)
    }

    @Test func anotherAccountsStoreTakesNoUnsavedChangesOfTheOld() throws {
        let root = NSTemporaryDirectory() + "ubiquity-handover-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let personal = try store(root, "personal"), work = try store(root, "work")
        let context = ObjectContext(store: personal)
        try context.insert("Note", key: "private").set("title", "personal")
        personal.beginHandover("the device switched from 'personal' to 'work'")
        personal.handOver(to: work, reason: "the device switched from 'personal' to 'work'", keepsChanges: false)
        #expect {
            try context.save()
        } throws: { error in
            "\(error)".contains("the device switched from 'personal' to 'work'") && "\(error)".contains("rollback()")
        }
        #expect(try work.count(FetchRequest(entity: "Note")) == 0)
        context.rollback()
        try context.insert("Note", key: "w").set("title", "work")
        try context.save()
        #expect(try work.count(FetchRequest(entity: "Note")) == 1)
        #expect(try personal.count(FetchRequest(entity: "Note")) == 0)
    }

    @Test func aStoreRetiredForGoodFailsItsContextsClearly() throws {
        let root = NSTemporaryDirectory() + "ubiquity-handover-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let old = try store(root, "old")
        let context = ObjectContext(store: old)
        try context.insert("Note").set("title", "x")
        old.beginHandover("switching")
        old.retire("the handover failed: disk full")
        #expect(throws: StoreError.retired("the handover failed: disk full")) { try context.save() }
    }

    @Test func aCoordinatorsContextFollowsAnAccountSwitchOnceItHoldsNothingOfTheOldAccount() throws {
        let cloud = try TestCloud()
        _ = try Device.create(at: cloud.devicePath("phone"), userName: "ann", identityToken: "personal")
        let coordinator = try UbiquitousStoreCoordinator(configuration: cloud.configuration("phone"), watchesDevice: false)
        defer { coordinator.close() }
        try coordinator.addStore()
        #expect(try coordinator.waitForBackgroundImport())
        let context = try coordinator.newContext()
        try context.insert("Note", key: "p").set("title", "personal")
        try context.save()
        try context.insert("Note", key: "unsaved").set("title", "personal, not saved")

        _ = try Device.setAccount("work", at: cloud.devicePath("phone"))
        try coordinator.checkAccount()
        #expect { try context.save() } throws: { error in
            guard case ContextHandoverError.unsavedChangesOfPreviousAccount = error else { return false }
            return "\(error)".contains("call rollback() and make them again")
        }
        context.rollback()
        try context.insert("Note", key: "w").set("title", "work")
        try context.save()
        #expect(try coordinator.waitForBackgroundImport())
        #expect(coordinator.storeKind == .account)
        #expect(try coordinator.fetch(FetchRequest(entity: "Note")).map(\.id.key) == ["w"])
    }
}

/// A value set on one thread and read on another.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String?
    func set(_ value: String) { lock.withLock { stored = value } }
    var value: String? { lock.withLock { stored } }
}
