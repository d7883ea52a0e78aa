import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// A fallback's saves replayed into the account store meet its uniqueness constraints as a save
/// would: the fallback never saw the account's objects, so an insert of a value the account
/// holds becomes that object (Docs/SyncSemantics.md, uniqueness constraints).
@Suite("Uniqueness constraints at the fallback's handover")
struct UniquenessHandoverTests {
    func people(_ store: PersistentStore, email: String) throws -> [GlobalID] {
        try store.fetch(FetchRequest(entity: "Person")).filter { $0.values["email"] == .some(.string(email)) }.map(\.id)
    }

    /// Also for an `Employee`, of a sub-entity of the `Person` it becomes: its log writes only
    /// what a `Person` has (a `badge` would make every other peer quarantine it).
    @Test(arguments: ["Person", "Employee"])
    func aFallbackInsertOfAValueTheAccountHoldsBecomesThatObject(entity: String) throws {
        let cloud = try TestCloud(model: UniquenessConstraintTests.model, contentName: "People")
        let a = try cloud.peer("a")
        let inA = a.newContext()
        let ada = try inA.insert("Person", key: "ada-a")
        try ada.set("email", "ada@example.com")
        try ada.set("name", "Ada")
        try inA.save()
        _ = try a.sync()

        let newcomer = try cloud.coordinator("b")
        let gate = DispatchSemaphore(value: 0)
        newcomer.beforeHandover = { gate.wait() }
        try newcomer.addStore()
        #expect(newcomer.storeKind == .fallback)
        let context = try newcomer.newContext()
        context.mergePolicy = .propertyObjectTrump
        let again = try context.insert(entity, key: "ada-b")
        try again.set("email", "ada@example.com")
        if entity == "Employee" { try again.set("badge", "7") }
        try again.set("name", "Ada Lovelace")
        let team = try context.insert("Team", key: "t")
        try team.setTarget(again.id, of: "lead")
        try context.save()
        gate.signal()
        #expect(try newcomer.waitForBackgroundImport(timeout: 120))
        let account = try #require(newcomer.peer)
        for _ in 0..<2 {
            _ = try newcomer.sync()
            #expect(try a.sync().imported.quarantined.isEmpty)
        }
        let (mine, theirs) = (try account.mergeStateText(), try a.mergeStateText())
        #expect(mine == theirs, "\(mine)\n---\n\(theirs)")
        for store in [a.store, account.store] {
            #expect(try people(store, email: "ada@example.com") == [ada.id], "one Ada, the one the account held")
            #expect(try store.snapshot(of: ada.id)?.values["name"] == .some(.string("Ada Lovelace")), "the fallback's later save wins")
            #expect(try store.snapshot(of: team.id)?.toOne["lead"] == .some(ada.id))
        }
        #expect(newcomer.handoverMerges == [again.id: ada.id])
        newcomer.close()
    }

    /// Peer `a` saves `people` (key, email, name); a newcomer's fallback then saves each of
    /// `saves` in its own transaction; `check` gets both stores once the handover is done and
    /// both peers have exchanged every log, with the coordinator's merges.
    func handOver(_ people: [(String, String, String)], fallbackSaves saves: [(String, String, String)],
                  check: (_ stores: [PersistentStore], _ merges: [GlobalID: GlobalID]) throws -> Void) throws {
        let cloud = try TestCloud(model: UniquenessConstraintTests.model, contentName: "People")
        let a = try cloud.peer("a")
        let inA = a.newContext()
        for (key, email, name) in people {
            let person = try inA.insert("Person", key: key)
            try person.set("email", email)
            try person.set("name", name)
        }
        try inA.save()
        _ = try a.sync()
        let newcomer = try cloud.coordinator("b")
        let gate = DispatchSemaphore(value: 0)
        newcomer.beforeHandover = { gate.wait() }
        try newcomer.addStore()
        let context = try newcomer.newContext()
        context.mergePolicy = .propertyObjectTrump
        for (key, email, name) in saves {
            let person = try context.insert("Person", key: key)
            try person.set("email", email)
            try person.set("name", name)
            try context.save()
        }
        gate.signal()
        #expect(try newcomer.waitForBackgroundImport(timeout: 120))
        let account = try #require(newcomer.peer)
        for _ in 0..<2 {
            _ = try newcomer.sync()
            #expect(try a.sync().imported.quarantined.isEmpty)
        }
        let (mine, theirs) = (try account.mergeStateText(), try a.mergeStateText())
        #expect(mine == theirs, "\(mine)\n---\n\(theirs)")
        try check([a.store, account.store], newcomer.handoverMerges)
        newcomer.close()
        a.close()
    }

    func names(_ store: PersistentStore) throws -> [String: String] {
        var names: [String: String] = [:]
        for person in try store.fetch(FetchRequest(entity: "Person")) {
            if case let .string(email)? = person.values["email"], case let .string(name)? = person.values["name"] {
                names[person.id.description] = "\(name) <\(email)>"
            }
        }
        return names
    }

    /// The fallback gives an ID the account holds another account object's email, and moves
    /// that object to a new email: each is written by its own insert, nothing merges.
    @Test func aHolderTheFallbackInsertsIsWrittenByItsOwnInsert() throws {
        try handOver([("ada", "ada@example.com", "Ada"), ("grace", "grace@example.com", "Grace")],
                     fallbackSaves: [("grace", "ada@example.com", "Grace H."), ("ada", "ada@home.example", "Ada at home")]) { stores, merges throws in
            for store in stores {
                #expect(try names(store) == ["Person/ada": "Ada at home <ada@home.example>", "Person/grace": "Grace H. <ada@example.com>"])
            }
            #expect(merges.isEmpty)
        }
    }

    /// Two objects of the fallback never become one: an account object whose ID the fallback
    /// inserts too is written by that insert, so another fallback insert holding its email
    /// stays an object of its own.
    @Test(arguments: [false, true])
    func twoFallbackObjectsStayTwo(keyedFirst: Bool) throws {
        var saves = [("x", "ada@example.com", "Ada L."), ("ada", "ada@work.example", "Ada at work")]
        if keyedFirst { saves.reverse() }
        try handOver([("ada", "ada@example.com", "Ada")], fallbackSaves: saves) { stores, merges throws in
            for store in stores {
                #expect(try names(store) == ["Person/ada": "Ada at work <ada@work.example>", "Person/x": "Ada L. <ada@example.com>"])
            }
            #expect(merges.isEmpty)
        }
    }
}
