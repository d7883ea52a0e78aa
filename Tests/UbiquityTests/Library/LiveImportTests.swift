import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// An app holding a coordinator never calls `sync()`: what other devices save reaches its store,
/// its did-import events and its fetched-results observers by itself, through whatever the
/// cloud's folders go through (Docs/Library.md, "Live import").
@Suite("Live import: a running app imports by itself")
struct LiveImportTests {
    /// Waits up to `seconds` for `condition`; false if it never held.
    func eventually(_ seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return try condition()
    }

    /// A coordinator with live import on, its store added and its initial import done.
    func liveCoordinator(_ cloud: TestCloud, _ name: String) throws -> UbiquitousStoreCoordinator {
        let coordinator = try cloud.coordinator(name, liveImport: .automatic)
        try coordinator.addStore()
        #expect(try coordinator.waitForBackgroundImport(timeout: 60))
        #expect(coordinator.storeKind == .account)
        return coordinator
    }

    func save(_ coordinator: UbiquitousStoreCoordinator, _ key: String) throws {
        let context = try coordinator.newContext()
        try context.insert("Note", key: key).set("title", key)
        try context.save()
    }

    func importedIDs(_ events: EventLog<CoordinatorEvent>) -> Set<GlobalID> {
        var ids = Set<GlobalID>()
        for case let .didImport(changes) in events.events { ids.formUnion(changes.inserted) }
        return ids
    }

    @Test func anotherCoordinatorsSavesArriveWithNoCallOnThisOne() throws {
        let cloud = try TestCloud()
        let phone = try liveCoordinator(cloud, "phone")
        defer { phone.close() }
        let mac = try liveCoordinator(cloud, "mac")
        defer { mac.close() }
        let events = EventLog<CoordinatorEvent>()
        mac.observe { events.append($0) }
        let observer = try mac.observeResults(FetchRequest(entity: "Note"))
        defer { observer.cancel() }

        for index in 0..<10 {
            try save(phone, "note\(index)")
            let id = try GlobalID(entity: "Note", key: "note\(index)")
            #expect(eventually { importedIDs(events).contains(id) }, "the mac's did-import names \(id)")
        }
        #expect(try mac.count(of: "Note") == 10)
        #expect(eventually { observer.results.count == 10 }, "the fetched results followed: \(observer.results.count)")
        // And back: the phone hears of the mac's save the same way.
        try save(mac, "fromMac")
        #expect(try eventually { try phone.count(of: "Note") == 11 })
    }

    /// The saving device is another process (`ubiq insert`), as an app beside the command-line tool.
    @Test func savesOfAnotherProcessArrive() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("writer")
        _ = try Device.create(at: sandbox.device("app"), userName: "app")
        let coordinator = try UbiquitousStoreCoordinator(configuration: PeerConfiguration(
            cloud: sandbox.cloud, device: sandbox.device("app"), model: .notes, contentName: "Notes", logger: .silent))
        defer { coordinator.close() }
        try coordinator.addStore()
        #expect(try coordinator.waitForBackgroundImport(timeout: 60))
        let events = EventLog<CoordinatorEvent>()
        coordinator.observe { events.append($0) }
        for index in 0..<3 {
            try sandbox.succeed(["insert", "Note", "--id", "p\(index)", "title=from another process"], device: "writer")
            let id = try GlobalID(entity: "Note", key: "p\(index)")
            #expect(eventually { importedIDs(events).contains(id) }, "\(events.events)")
        }
        #expect(try coordinator.count(of: "Note") == 3)
    }

    /// A file-sync tool that rebuilds the cloud deletes every folder and writes them again: the
    /// watches go with the folders, and live import finds them again.
    @Test func theCloudsFoldersDeletedAndRecreated() throws {
        let cloud = try TestCloud()
        let phone = try liveCoordinator(cloud, "phone")
        defer { phone.close() }
        let mac = try liveCoordinator(cloud, "mac")
        defer { mac.close() }
        let watching = EventLog<String>()
        mac.observeLiveImport { if case let .watching(root, _) = $0 { watching.append(root) } }
        try save(phone, "before")
        #expect(try eventually { try mac.count(of: "Note") == 1 })

        // The cloud's contents go, and come back (the phone's folders, as its next save writes them).
        // Moved out in one step first: the devices may be writing into the folders meanwhile.
        let trash = cloud.root + "/trash"
        try FileManager.default.moveItem(atPath: cloud.cloud, toPath: trash)
        try FileManager.default.createDirectory(atPath: cloud.cloud, withIntermediateDirectories: false)
        try FileManager.default.removeItem(atPath: trash)
        Thread.sleep(forTimeInterval: 0.2)
        try save(phone, "after")
        #expect(try eventually(10) { try mac.count(of: "Note") == 2 }, "the mac imported the save made after the folders came back")
        #expect(eventually(5) { !watching.events.isEmpty }, "live import said it watches the folders again")
    }

    /// Another device turns encryption on: this one waits, says why, and imports again as soon
    /// as it is given the key — without the app calling anything but the unlock.
    @Test func encryptionTurnedOnElsewhereWaitsForTheKey() throws {
        let cloud = try TestCloud()
        let phone = try liveCoordinator(cloud, "phone")
        defer { phone.close() }
        let mac = try liveCoordinator(cloud, "mac")
        defer { mac.close() }
        let activity = EventLog<String>()
        mac.observeLiveImport { event in
            switch event {
            case let .waiting(reason): activity.append("waiting: \(reason)")
            case .resumed: activity.append("resumed")
            default: break
            }
        }
        try #require(phone.peer).enableEncryption(passphrase: "correct horse", parameters: .fast)
        try save(phone, "sealed")
        #expect(eventually { activity.events.contains { $0.hasPrefix("waiting: ") } }, "\(activity.events)")
        #expect(try mac.count(of: "Note") == 0)

        try #require(mac.peer).unlockEncryption(passphrase: "correct horse")
        #expect(try eventually { try mac.count(of: "Note") == 1 }, "\(activity.events)")
        #expect(eventually { activity.events.last == "resumed" }, "\(activity.events)")
    }

    /// Sign-out, then sign-in again: live import follows the device's transitions, and what was
    /// saved elsewhere meanwhile arrives after the sign-in.
    @Test func followsSignOutAndSignIn() throws {
        let cloud = try TestCloud()
        let phone = try liveCoordinator(cloud, "phone")
        defer { phone.close() }
        let mac = try liveCoordinator(cloud, "mac")
        defer { mac.close() }
        try save(phone, "first")
        #expect(try eventually { try mac.count(of: "Note") == 1 })

        _ = try Device.setAccount(nil, at: cloud.devicePath("mac"))
        #expect(eventually { mac.storeKind == .local })
        try save(phone, "whileSignedOut")
        _ = try Device.setAccount(Device.defaultAccount, at: cloud.devicePath("mac"))
        #expect(eventually { mac.storeKind == .account })
        #expect(try eventually { try mac.count(of: "Note") == 2 }, "the save made while signed out arrived")
        try save(phone, "afterSignIn")
        #expect(try eventually { try mac.count(of: "Note") == 3 })
    }

    /// Polling, for a cloud folder where inotify sees nothing of other machines' writes.
    @Test func pollingImportsWithoutInotify() throws {
        let cloud = try TestCloud()
        let phone = try liveCoordinator(cloud, "phone")
        defer { phone.close() }
        let mac = try cloud.coordinator("mac", liveImport: .polling(every: 0.1))
        defer { mac.close() }
        try mac.addStore()
        #expect(try mac.waitForBackgroundImport(timeout: 60))
        try save(phone, "polled")
        #expect(try eventually { try mac.count(of: "Note") == 1 })
    }
}
