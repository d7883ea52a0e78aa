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
    ])

    /// Random subsets of the attributes set (some to nil), the rest left to their defaults.
    @Test(arguments: SeededGenerator.testSeeds(Array(1 ... 12)))
    func recordsHoldTheObjectsValues(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let cloud = try TestCloud(model: Self.model, contentName: "Records")
        let context = try cloud.peer("a").newContext()
        var expected: [GlobalID: [String: AttributeValue?]] = [:]
        for index in 0 ..< Int.random(in: 1 ... 40, using: &random) {
            let thing = try context.insert("Thing", key: "t\(index)")
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
            #expect(record.relationships == ["owner": .toOne(nil)], "seed \(seed)")
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
        let breakers: [(String, AttributeValue?)] = [("name", .string("toolongname")), ("count", .integer(-1)), ("score", .double(2)), ("score", nil)]
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
