import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// Seeded random saves on four peers of a model with a uniqueness constraint — inserts from a
/// pool of three emails (so most collide), edits, deletes, leads and tags, syncs at random —
/// end in one merge state on every peer, with no two live people sharing an email. With
/// emails changed by updates too, which are never merged across devices, they still converge.
@Suite("Uniqueness constraints under random concurrent saves")
struct UniquenessConvergenceTests {
    @Test(arguments: SeededGenerator.testSeeds([7, 8, 9]), [false, true])
    func randomSavesConvergeWithOneObjectPerValue(seed: UInt64, changesEmails: Bool) throws {
        let cloud = try TestCloud(model: UniquenessConstraintTests.model, contentName: "People")
        let peers = try cloud.peers(4)
        var random = SeededGenerator(seed: seed)
        var made = 0
        for step in 0..<200 {
            let index = Int.random(in: 0..<peers.count, using: &random)
            let peer = peers[index]
            let context = peer.newContext()
            context.mergePolicy = .propertyObjectTrump
            let people = try context.fetch(FetchRequest(entity: "Person"))
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                made += 1
                let person = try context.insert(Bool.random(using: &random) ? "Person" : "Employee", key: "p\(index)-\(made)")
                try person.set("email", "e\(Int.random(in: 0..<3, using: &random))@example.com")
                try person.set("name", "n\(step)")
            case 4..<6:
                guard let person = people.randomElement(using: &random) else { continue }
                try person.set("age", step)
                if changesEmails, Bool.random(using: &random) { try person.set("email", "e\(Int.random(in: 0..<3, using: &random))@example.com") }
            case 6:
                guard let person = people.randomElement(using: &random) else { continue }
                context.delete(person)
            case 7:
                guard let person = people.randomElement(using: &random) else { continue }
                made += 1
                try context.insert("Team", key: "t\(index)-\(made)").setTarget(person.id, of: "lead")
            case 8:
                guard let person = people.randomElement(using: &random) else { continue }
                made += 1
                try context.insert("Tag", key: "g\(index)-\(made)").add(person.id, to: "people")
            default:
                _ = try peer.sync()
                continue
            }
            do {
                try context.save()
            } catch is UniquenessConstraintError where changesEmails {
                continue   // the new email is another live person's here: refused, as it should be
            }
        }
        for _ in 0..<3 { for peer in peers { _ = try peer.sync() } }
        let state = try peers[0].mergeStateText(), dump = try peers[0].dumpText()
        for peer in peers {
            #expect(try peer.mergeStateText() == state, "seed \(seed): one merge state")
            #expect(try peer.dumpText() == dump, "seed \(seed): one dump")
            let emails = try peer.store.fetch(FetchRequest(entity: "Person")).compactMap { $0.values["email"] ?? nil }
            if !changesEmails { #expect(Set(emails).count == emails.count, "seed \(seed): one person per email, found \(emails)") }
        }
    }
}
