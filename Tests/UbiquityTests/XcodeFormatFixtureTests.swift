import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// One Workshop model drawn as Xcode 4, 8, 12 and 16 write it
/// (Tests/Fixtures/models/xcode-formats/XcodeNWorkshop.xcdatamodeld, two versions each), with
/// every feature its Xcode had: all attribute types, defaults, validation, transient and
/// Undefined attributes, derived attributes, composites, uniqueness constraints, an abstract
/// parent, to-one, to-many and ordered relationships with each delete rule, fetched
/// properties, fetch request templates, configurations, user info, indexes and Spotlight
/// flags. Each is read whole, entity by entity and property by property.
@Suite("Xcode model formats: the Workshop model as Xcode 4, 8, 12 and 16 write it")
struct XcodeFormatFixtureTests {
    static let eras = [4, 8, 12, 16]

    static func bundle(era: Int) -> String {
        XcodeModelTests.fixtures + "/xcode-formats/Xcode\(era)Workshop.xcdatamodeld"
    }

    static func model(era: Int, version: Int) throws -> ObjectModel {
        try ObjectModel.load(contentsOf: bundle(era: era), version: version == 1 ? "Workshop" : "Workshop \(version)")
    }

    @Test(arguments: eras)
    func eachBundleListsItsVersionsAndItsCurrentOne(era: Int) throws {
        let bundle = try XcodeModelBundle(path: Self.bundle(era: era))
        #expect(bundle.versions == ["Workshop", "Workshop 2"])
        #expect(bundle.currentVersion == "Workshop 2")
        #expect(bundle.notes.isEmpty)
        #expect(try ObjectModel.load(contentsOf: Self.bundle(era: era)).name == "Workshop 2")
    }

    @Test(arguments: eras, [1, 2])
    func everyEntityPropertyAndConstraintIsRead(era: Int, version: Int) throws {
        let model = try Self.model(era: era, version: version)
        let read = XcodeFormatFixtureExpectations.describe(model)
        let expected = XcodeFormatFixtureExpectations.lines(era: era, version: version)
        #expect(read == expected)
        for (offset, line) in read.enumerated() where offset >= expected.count || expected[offset] != line {
            Issue.record("first difference at line \(offset): read '\(line)', expected '\(offset < expected.count ? expected[offset] : "-")'")
            break
        }
    }

    /// What changes no data — fetched properties, fetch request templates, configurations,
    /// user info, indexes, Spotlight and CloudKit flags, the diagram layout — gives no note; a
    /// composite gives one naming its parts.
    @Test(arguments: eras)
    func onlyCompositesAreNoted(era: Int) throws {
        for version in [1, 2] {
            let notes = try Self.model(era: era, version: version).notes
            let expected = era >= 16 ? [
                "Bench.footprint read as its parts footprint_depth, footprint_width",
                "Mechanic.address read as its parts address_city, address_postcode, address_street",
            ] : []
            #expect(notes.map { $0.message.replacingOccurrences(of: "composite attribute ", with: "") } == expected)
            #expect(notes.allSatisfy { $0.level == .info && $0.line != nil })
        }
    }

    /// Version 2 adds an optional attribute and renames one through its renaming identifier:
    /// both inferred, in every format.
    @Test(arguments: eras)
    func consecutiveVersionsDiffAsAnAddedAndARenamedAttribute(era: Int) throws {
        let diff = ModelDiff(from: try Self.model(era: era, version: 1), to: try Self.model(era: era, version: 2))
        #expect(!diff.sameHash)
        #expect(diff.canInferMapping)
        let changes = diff.changes.map { "\($0.kind) \($0.entity).\($0.property ?? "-") \($0.mapping)" }
        #expect(changes == ["renamed JobNote.body inferred", "added Tool.brand inferred"])
        #expect(diff.oldPropertyNames["JobNote"]?["body"] == "text")
    }

    /// The formats differ only where their Xcode could draw more: Xcode 8 added uniqueness
    /// constraints and date defaults; the diagram layout, `syncable`, Xcode 4's counts on
    /// to-ones, scalar types and code generation change nothing.
    @Test func xcode8AddsConstraintsAndDateDefaultsToXcode4sModel() throws {
        let diff = ModelDiff(from: try Self.model(era: 4, version: 2), to: try Self.model(era: 8, version: 2))
        let changes = diff.changes.map { "\($0.kind) \($0.entity).\($0.property ?? "-") \($0.mapping)" }
        #expect(changes == ["changed Asset.- inferred", "changed Asset.acquired noMigration", "changed Bench.- inferred", "changed Tool.- inferred"])
        #expect(diff.canInferMapping)
    }
}
