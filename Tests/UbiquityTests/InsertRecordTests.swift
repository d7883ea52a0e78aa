import Foundation
import Testing
import UbiquityTestSupport
@testable import Ubiquity
@testable import UbiquityCore

/// A save builds a new object's record from the values set on it plus the defaults, and checks
/// them without reading each through `value(for:)`: the record must still hold what
/// `value(for:)` reads for every attribute, and a save with several bad values must still throw
/// the error of the first in the entity's attribute order.
@Suite("A new object's record holds what the object reads")
struct InsertRecordTests {
    static let model = try! ObjectModel(name: "Records", entities: [
        EntityDescription("Thing", attributes: [
            AttributeDescription("name", .string, optional: false, default: .string("anon"), validation: AttributeValidation(maxLength: 6)),
            AttributeDescription("count", .integer16, default: .integer(3), validation: AttributeValidation(minimum: .integer(0))),
            AttributeDescription("note", .string),
            AttributeDescription("score", .double, optional: false, validation: AttributeValidation(maximum: .double(1))),
            AttributeDescription("when", .date),
            AttributeDescription("flag", .boolean, default: .boolean(true)),
            AttributeDescription("scratch", .string, transient: true),
        ], relationships: [RelationshipDescription("owner", destination: "Thing")]),
        EntityDescription("Tag", attributes: [
            AttributeDescription("label", .string, optional: false),
            AttributeDescription("weight", .float),
        ], relationships: [RelationshipDescription("thing", destination: "Thing"), RelationshipDescription("parent", destination: "Tag")]),
    ])

    /// Random subsets of the attributes set (some to nil), the rest left to their defaults.
    @Test(arguments: SeededGenerator.testSeeds(Array(1 ... 12)))
    func recordsHoldTheObjectsValues(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let cloud = try TestCloud(model: Self.model, contentName: "Records")
        let context = try cloud.peer("a").newContext()
        var expected: [GlobalID: [String: AttributeValue?]] = [:]
        var expectedToOnes: [GlobalID: [String: RelationshipChange]] = [:]
        var things: [GlobalID] = []
        for index in 0 ..< Int.random(in: 1 ... 40, using: &random) {
            // Tags between things: a save makes the records of two entities in turns.
            if Bool.random(using: &random) {
                let tag = try context.insert("Tag", key: "g\(index)")
                tag["label"] = .string("tag \(index)")
                if Bool.random(using: &random) { tag["weight"] = .float(Float(index)) }
                let target = things.isEmpty || Bool.random(using: &random) ? nil : things.randomElement(using: &random)
                if let target { try tag.setTarget(target, of: "thing") }
                expected[tag.id] = ["label": .string("tag \(index)"), "weight": try tag.value(for: "weight")]
                expectedToOnes[tag.id] = ["thing": .toOne(target), "parent": .toOne(nil)]
            }
            let thing = try context.insert("Thing", key: "t\(index)")
            if !things.isEmpty, Bool.random(using: &random) {
                let owner = things.randomElement(using: &random)!
                try thing.setTarget(owner, of: "owner")
                expectedToOnes[thing.id] = ["owner": .toOne(owner)]
            } else {
                expectedToOnes[thing.id] = ["owner": .toOne(nil)]
            }
            things.append(thing.id)
            if Bool.random(using: &random) { thing["name"] = .string(["a", "bb", "ccc"].randomElement(using: &random)!) }
            if Bool.random(using: &random) { thing["count"] = Bool.random(using: &random) ? .integer(Int64.random(in: 0 ... 99, using: &random)) : nil }
            if Bool.random(using: &random) { thing["note"] = Bool.random(using: &random) ? .string("n\(index)") : nil }
            thing["score"] = .double(Double.random(in: 0 ... 1, using: &random))
            if Bool.random(using: &random) { thing["when"] = .date(secondsSince1970: Double(Int.random(in: 0 ... 1_000_000, using: &random))) }
            if Bool.random(using: &random) { thing["flag"] = .boolean(Bool.random(using: &random)) }
            if Bool.random(using: &random) { thing["scratch"] = .string("not saved") }
            expected[thing.id] = Dictionary(uniqueKeysWithValues: try Self.model.entity(named: "Thing").attributes.map { ($0.name, try thing.value(for: $0.name)) })
        }
        let log = try #require(try context.save())
        #expect(log.inserted.count == expected.count, "seed \(seed)")
        for record in log.inserted {
            #expect(record.values == expected[record.id], "seed \(seed): the record of \(record.id) differs from what the object read")
            #expect(record.relationships == expectedToOnes[record.id], "seed \(seed): the to-ones of \(record.id)")
        }
    }

    /// A save's new objects reach the merge laid out by attribute index; the same records by
    /// name must leave a store in the same state: for new keys (a new row) and for keys
    /// deleted earlier (a tombstone: the merge's full path).
    @Test(arguments: SeededGenerator.testSeeds(Array(1 ... 8)))
    func laidOutRecordsMergeAsByName(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        // Each cloud is kept for as long as its peer: a peer outliving its cloud writes into the
        // deleted folder and leaves it behind in the temporary directory.
        let (laidOutCloud, byNameCloud) = (try TestCloud(model: Self.model, contentName: "Records"), try TestCloud(model: Self.model, contentName: "Records"))
        let laidOut = try laidOutCloud.peer("a")
        let byName = try byNameCloud.peer("b")
        let deletedKeys = (0 ..< 6).map { "old\($0)" }
        for peer in [laidOut, byName] {
            let context = peer.newContext()
            for key in deletedKeys { try context.insert("Thing", key: key)["score"] = .double(0.25) }
            try context.save()
            for key in deletedKeys { context.delete(try #require(try context.object(try GlobalID(entity: "Thing", key: key)))) }
            try context.save()
        }
        let context = laidOut.newContext()
        for index in 0 ..< Int.random(in: 1 ... 30, using: &random) {
            if Bool.random(using: &random) {
                let tag = try context.insert("Tag", key: "g\(index)")
                tag["label"] = .string("tag \(index)")
                if Bool.random(using: &random) { tag["weight"] = .float(Float(index)) }
            }
            let key = index < deletedKeys.count && Bool.random(using: &random) ? deletedKeys[index] : "t\(index)"
            let thing = try context.insert("Thing", key: key)
            thing["score"] = .double(Double.random(in: 0 ... 1, using: &random))
            if Bool.random(using: &random) { thing["name"] = .string(["a", "bb"].randomElement(using: &random)!) }
            if Bool.random(using: &random) { thing["note"] = Bool.random(using: &random) ? .string("n\(index)") : nil }
            if Bool.random(using: &random) { thing["count"] = .integer(Int64.random(in: 0 ... 9, using: &random)) }
        }
        let log = try #require(try context.save())
        #expect(log.inserted.allSatisfy { if case .laidOut = $0.valueStorage { true } else { false } }, "seed \(seed): a new object's record is not laid out")
        let named = log.inserted.map { ChangeRecord(id: $0.id, values: $0.values, relationships: $0.relationships) }
        _ = try #require(try byName.store.commitLocal(inserted: named, updated: [], deleted: []))
        for record in log.inserted {
            let (left, right) = (try laidOut.store.snapshot(of: record.id), try byName.store.snapshot(of: record.id))
            #expect(left != nil && left == right, "seed \(seed): \(record.id) differs between the records laid out and by name")
        }
    }

    /// Several bad values on one object: the error is the first bad attribute's, in the
    /// entity's order, whichever order they were set in.
    @Test(arguments: SeededGenerator.testSeeds(Array(1 ... 12)))
    func theFirstBadValueInAttributeOrderIsReported(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let cloud = try TestCloud(model: Self.model, contentName: "Records")
        let context = try cloud.peer("a").newContext()
        let thing = try context.insert("Thing", key: "bad")
        thing["score"] = .double(0.5)
        // `when` and `note` have no rules of their own: only their kind and optionality are checked.
        let breakers: [(String, AttributeValue?)] = [("name", .string("toolongname")), ("count", .integer(-1)), ("score", .double(2)), ("score", nil),
                                                     ("when", .date(secondsSince1970: .infinity))]
        for (name, value) in breakers.shuffled(using: &random).prefix(Int.random(in: 2 ... 3, using: &random)) { thing[name] = value }
        var first: ValidationError?
        for attribute in try Self.model.entity(named: "Thing").attributes where first == nil {
            let value = try thing.value(for: attribute.name)
            do { try attribute.validate(value, entity: "Thing") } catch { first = error }
        }
        let error = try #require(first, "seed \(seed): no value was broken")
        #expect(throws: error, "seed \(seed)") { try context.save() }
    }
}
