import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

@Suite("Accounts: per-account stores, switches, migration, import resolvers")
struct AccountTests {
    /// Waits (up to 20 s) until `condition` holds; account switches arrive through inotify.
    func eventually(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        Issue.record("timed out waiting for \(what)")
    }

    func keys(_ store: PersistentStore?) throws -> Set<String> {
        Set(try store?.fetch(FetchRequest(entity: "Note")).map(\.id.key) ?? [])
    }

    func insert(_ context: ObjectContext, _ key: String) throws {
        try context.insert("Note", key: key)["title"] = .string(key)
        try context.save()
    }

    @Test func anAccountRoundTripOnThreeDevices() throws {
        let cloud = try TestCloud()
        let phone = try cloud.coordinator("phone", account: "alice")
        let mac = try cloud.peer("mac", account: "alice")
        let pad = try cloud.peer("pad", account: "bob")
        try insert(pad.newContext(), "bob-1")

        let events = EventLog<CoordinatorEvent>()
        let willChangeSaves = EventLog<String>()
        // The app's one chance to save: each account will-change saves an edit to the store it is leaving.
        phone.observe { [weak phone] event in
            events.append(event)
            guard case let .storesWillChange(transition) = event, transition == .accountAdded || transition == .accountRemoved,
                  let phone, let context = try? phone.newContext() else { return }
            let key = "saved-in-will-change-\(transition.rawValue)-\(phone.storeKind?.rawValue ?? "")"
            if (try? context.insert("Note", key: key)) != nil, (try? context.save()) != nil { willChangeSaves.append(key) }
        }
        try phone.addStore()
        try phone.waitForBackgroundImport()
        try insert(try phone.newContext(), "alice-1")
        _ = try phone.sync()
        _ = try mac.sync()
        #expect(try keys(mac.store) == ["alice-1"])

        // Sign out: the local store, empty of alice's data.
        _ = try Device.setAccount(nil, at: cloud.devicePath("phone"))
        try eventually("sign-out") { events.events.last == .storesDidChange(.accountRemoved, now: .local) }
        #expect(try keys(phone.peer?.store) == [])
        #expect(events.events.suffix(2) == [.storesWillChange(.accountRemoved), .storesDidChange(.accountRemoved, now: .local)])

        // Meanwhile alice's other device keeps working.
        try insert(mac.newContext(), "alice-2")

        // Sign in bob: bob's data only, through a fallback, since bob is new on this phone.
        _ = try Device.setAccount("bob", at: cloud.devicePath("phone"))
        try eventually("sign-in bob") { events.events.last == .storesDidChange(.initialImportCompleted, now: .account) && phone.device.identityToken == "bob" }
        try phone.waitForBackgroundImport()
        #expect(try keys(phone.peer?.store) == ["bob-1"])

        // Back to alice: her store is intact and catches up with the mac's change.
        _ = try Device.setAccount("alice", at: cloud.devicePath("phone"))
        try eventually("back to alice") { events.events.last(where: { if case .didImport = $0 { return false } else { return true } }) == .storesDidChange(.accountAdded, now: .account) }
        try phone.waitForBackgroundImport()
        _ = try phone.sync()
        let aliceKeys = try keys(phone.peer?.store)
        #expect(aliceKeys.isSuperset(of: ["alice-1", "alice-2"]))
        #expect(aliceKeys.contains("saved-in-will-change-2-account"), "the edit saved while leaving alice is kept: \(willChangeSaves.events)")
        _ = try mac.sync()
        #expect(try keys(mac.store) == aliceKeys)

        let transitions = events.events.filter { if case .didImport = $0 { return false } else { return true } }
        #expect(transitions == [
            .storesDidChange(nil, now: .fallback), .storesWillChange(.initialImportCompleted), .storesDidChange(.initialImportCompleted, now: .account),
            .storesWillChange(.accountRemoved), .storesDidChange(.accountRemoved, now: .local),
            .storesWillChange(.accountAdded), .storesDidChange(.accountAdded, now: .fallback),
            .storesWillChange(.initialImportCompleted), .storesDidChange(.initialImportCompleted, now: .account),
            .storesWillChange(.accountAdded), .storesDidChange(.accountAdded, now: .account),
        ])

        // Nothing of alice's ever reached bob's container or store.
        _ = try pad.sync()
        #expect(try keys(pad.store).allSatisfy { !$0.hasPrefix("alice") && !$0.contains("-2-account") })
        let bobRoot = try #require(pad.location).ubiquityRoot
        for path in FileManager.default.subpaths(atPath: bobRoot) ?? [] where path.hasSuffix(".1.cdt") {
            let log = try TransactionLog(decoding: try AtomicFile.read(bobRoot + "/" + path, limit: 1 << 24), model: cloud.model)
            #expect(log.inserted.allSatisfy { !$0.id.key.hasPrefix("alice") }, "\(path) holds none of alice's objects")
        }
        phone.close()
    }

    @Test func migratingTheLocalStoreMakesNoDuplicates() throws {
        let cloud = try TestCloud()
        let other = try cloud.peer("other", account: "alice")
        try insert(other.newContext(), "shared")
        let phone = try cloud.coordinator("phone", account: nil)
        try phone.addStore()
        let local = try phone.newContext()
        try insert(local, "shared")
        try insert(local, "made-offline")
        _ = try Device.setAccount("alice", at: cloud.devicePath("phone"))
        try phone.checkAccount()
        try phone.waitForBackgroundImport()
        let report = try phone.migrateLocalStoreToAccount()
        #expect(report.copied == 1 && report.alreadyPresent == 1)
        _ = try phone.sync()
        _ = try other.sync()
        for store in [try #require(phone.peer).store, other.store] {
            #expect(try keys(store) == ["shared", "made-offline"])
            #expect(try store.count(FetchRequest(entity: "Note")) == 2)
        }
        // Migrating twice adds nothing.
        #expect(try phone.migrateLocalStoreToAccount().copied == 0)
        phone.close()
    }

    @Test func aResolversChoiceAndARestoredLoserReachEveryPeer() throws {
        let cloud = try TestCloud()
        var configuration = cloud.configuration("judge")
        configuration.importResolver = { conflict in conflict.property == "title" ? .use(.string("resolved by the judge")) : .keepWinner }
        _ = try Device.create(at: cloud.devicePath("judge"), userName: "judge")
        let judge = try UbiquityPeer(configuration: configuration)
        let a = try cloud.peer("a"), b = try cloud.peer("b")
        try insert(a.newContext(), "n")
        for peer in [a, b, judge] { _ = try peer.sync() }
        let id = try GlobalID(entity: "Note", key: "n")
        for (peer, title) in [(a, "from a"), (b, "from b")] {
            let context = peer.newContext()
            try #require(try context.object(id))["title"] = .string(title)
            try context.save()
        }
        for _ in 0..<3 { for peer in [judge, a, b] { _ = try peer.sync() } }
        for peer in [a, b, judge] { #expect(try peer.store.snapshot(of: id)?.values["title"] == .string("resolved by the judge")) }

        // Now restore, on a, a loser from its history: it wins everywhere.
        let loser = try #require(try a.store.conflicts().last { $0.property == "title" && $0.loserValue == .attribute(.string("from a")) || $0.loserValue == .attribute(.string("from b")) })
        let restored = loser.loserValue
        try a.restoreLoser(ofConflict: loser.id)
        for _ in 0..<2 { for peer in [a, b, judge] { _ = try peer.sync() } }
        for peer in [a, b, judge] { #expect(try peer.store.snapshot(of: id)?.values["title"].map { ConflictValue.attribute($0) } == restored) }
        #expect(try a.mergeStateText() == judge.mergeStateText())
    }

    @Test func storesOfAccountsNotSeenForLongAreRemoved() throws {
        let cloud = try TestCloud()
        let phone = try cloud.coordinator("phone", account: "alice")
        try phone.addStore()
        try phone.waitForBackgroundImport()
        try insert(try phone.newContext(), "alice-1")
        _ = try Device.setAccount("bob", at: cloud.devicePath("phone"))
        try phone.checkAccount()
        try phone.waitForBackgroundImport()
        #expect(try phone.removeUnusedAccountStores(unusedFor: 3_600).isEmpty, "alice was used a moment ago")
        #expect(try phone.removeUnusedAccountStores(unusedFor: 3_600, now: Date().addingTimeInterval(7_200)) == ["alice"])
        // Back to alice: a fresh store, rebuilt from alice's container through a fallback.
        let events = EventLog<CoordinatorEvent>()
        phone.observe { events.append($0) }
        _ = try Device.setAccount("alice", at: cloud.devicePath("phone"))
        try phone.checkAccount()
        try phone.waitForBackgroundImport()
        #expect(events.events.contains(.storesDidChange(.accountAdded, now: .fallback)))
        #expect(try keys(phone.peer?.store) == ["alice-1"])
        phone.close()
    }
}
