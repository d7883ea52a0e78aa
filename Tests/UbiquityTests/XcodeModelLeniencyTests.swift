import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// Xcode's model files as apps have them, read with Core Data's leniency
/// (Tests/Fixtures/models/Garden.xcdatamodeld: three versions written as Xcode 8, 10 and 16
/// write them, and an `.xccurrentversion` that names none).
@Suite("Xcode model files: what Core Data takes, the reader takes")
struct XcodeModelLeniencyTests {
    static let garden = XcodeModelTests.fixtures + "/Garden.xcdatamodeld"

    static func model(_ body: String) throws -> ObjectModel {
        try XcodeModelReader(file: "M.xcdatamodel/contents").read(Array("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            \(body)
            </model>
            """.utf8), name: "M")
    }

    /// `.xccurrentversion` holding `<dict/>`: the last version in Xcode's natural order is
    /// current (`Garden 10`, not `Garden 2` as a plain sort would have it), with a warning.
    @Test func aBundleNamingNoCurrentVersionUsesTheLastInNaturalOrder() throws {
        let bundle = try XcodeModelBundle(path: Self.garden)
        #expect(bundle.versions == ["Garden", "Garden 2", "Garden 10"])
        #expect(bundle.currentVersion == "Garden 10")
        #expect(bundle.notes.map(\.level) == [.warning])
        #expect(bundle.notes.first?.message.contains("using 'Garden 10'") == true)
        let model = try ObjectModel.load(contentsOf: Self.garden)
        #expect(model.name == "Garden 10")
        #expect(model.notes.contains(bundle.notes[0]))
        #expect(try ObjectModel.load(contentsOf: Self.garden, version: "Garden 2").name == "Garden 2")
        #expect(XcodeModelBundle.naturallyPrecedes("Model 9", "Model 10"))
        #expect(XcodeModelBundle.naturallyPrecedes("Model", "Model 2"))
        #expect(!XcodeModelBundle.naturallyPrecedes("model 3", "Model 2"))
    }

    /// Uniqueness constraints, derived, composite and Undefined transient attributes load, and
    /// every value is read as Core Data reads it.
    @Test func constraintsDerivedCompositeAndUndefinedAttributesLoad() throws {
        let model = try ObjectModel.load(contentsOf: Self.garden)
        let plant = try model.entity(named: "Plant"), bed = try model.entity(named: "Bed")
        #expect(plant.uniquenessConstraints == [["name", "bed"]])
        #expect(bed.uniquenessConstraints == [["label"]])
        // Derived and transient attributes are kept in memory only.
        #expect(plant.attributes.map(\.name) == ["name", "height", "perennial", "watered", "planted", "location_latitude", "location_longitude"])
        #expect(plant.transientAttributes.map(\.name) == ["searchName", "thumbnail"])
        #expect(plant.transientAttribute("searchName")?.derivation == "canonical:(name)")
        #expect(plant.transientAttribute("searchName")?.isTransient == false)
        #expect(plant.transientAttribute("thumbnail")?.type == .undefined)
        #expect(bed.transientAttribute("plantCount")?.derivation == "plants.@count")
        // Composite attributes: their parts, won together in a merge.
        #expect(plant.mergeGroups == [["location_latitude", "location_longitude"]])
        #expect(plant.attribute("location_latitude")?.type == .double && plant.attribute("location_latitude")?.defaultValue == .double(0))
        #expect(bed.attributes.map(\.name) == ["label", "size_width", "size_length"])
        #expect(bed.mergeGroups == [["size_width", "size_length"]])
        // Values as Core Data parses them.
        #expect(plant.attribute("height")?.defaultValue == .integer(0))
        #expect(plant.attribute("perennial")?.defaultValue == .integer(1))
        #expect(plant.attribute("watered")?.defaultValue == .boolean(true))
        #expect(plant.attribute("planted")?.validation.minimum == .date(secondsSince1970: 599_616_000 + 978_307_200))
        #expect(plant.attribute("name")?.defaultValue == .string("") && plant.attribute("name")?.isOptional == false)
        let infos = model.notes.filter { $0.level == .info }.map(\.description)
        #expect(infos.contains { $0.hasSuffix(":20: <attribute>: default value '0.0' of Plant.height read as 0, as Core Data reads it") }, "\(infos)")
        #expect(infos.contains { $0.contains(":21: <attribute>: default value 'YES' of Plant.perennial read as 1") })
        #expect(infos.contains { $0.contains(":22: <attribute>: default value '100' of Plant.watered read as true") })
        #expect(infos.contains { $0.contains("composite attribute Plant.location read as its parts location_latitude, location_longitude") })
        #expect(!infos.contains { $0.contains("spotlightIndexingEnabled") }, "an attribute Xcode writes is known")

        // Shown, and named as what iOS 7 iCloud could not sync; a warning for each derivation,
        // which is not honoured (the constraints are kept, and name no derived attribute).
        let text = model.textDescription
        #expect(text.contains("  unique: name, bed"))
        #expect(text.contains("  searchName: String, optional, derived from canonical:(name) (not computed)"))
        #expect(text.contains("  thumbnail: Undefined, optional, transient"))
        #expect(model.unhonouredFeatures.count == 2)
        let check = ICloudModelCheck(model: model)
        #expect(!check.isAccepted)
        #expect(Set(check.findings.filter { $0.severity == .refused }.map(\.subject)) == ["Bed (label)", "Bed.plantCount", "Plant (name, bed)", "Plant.searchName"])
        // The store's record of the model (its plist file) keeps all of it.
        let reread = try ObjectModel(plist: model.plistValue)
        #expect(reread.hash == model.hash && reread.entities == model.entities)
    }

    /// Constraints are part of Core Data's entity version hash; a derivation's expression is
    /// not, but being derived is (a derived attribute is not in the logs).
    @Test func constraintsAndDerivationEnterTheHashAsDocumented() throws {
        func entity(_ extra: String) -> String {
            "<entity name=\"A\"><attribute name=\"x\" optional=\"YES\" attributeType=\"String\" \(extra)/><attribute name=\"y\" optional=\"YES\" attributeType=\"String\"/>"
        }
        let plain = try Self.model(entity("") + "</entity>")
        let unique = try Self.model(entity("") + "<uniquenessConstraints><uniquenessConstraint><constraint value=\"y\"/></uniquenessConstraint></uniquenessConstraints></entity>")
        let derived = try Self.model(entity("derived=\"YES\" derivationExpression=\"lowercase:(y)\"") + "</entity>")
        let otherwiseDerived = try Self.model(entity("derived=\"YES\" derivationExpression=\"uppercase:(y)\"") + "</entity>")
        #expect(plain.hash != unique.hash)
        #expect(plain.hash != derived.hash)
        #expect(derived.hash == otherwiseDerived.hash)
        #expect(ObjectModel.canonicalDescription(of: unique.declaredEntities).contains("\n  unique y\n"))
        // What a version change does to them: nothing to migrate, but said.
        #expect(ModelDiff(from: plain, to: unique).changes.map(\.detail) == ["uniqueness constraints changed"])
        #expect(ModelDiff(from: plain, to: derived).changes.map(\.detail) == ["becomes derived (its stored values are dropped)"])
        #expect(ModelDiff(from: derived, to: otherwiseDerived).changes.map(\.detail) == ["derivation changed"])
        #expect(ModelDiff(from: plain, to: unique).canInferMapping && ModelDiff(from: plain, to: derived).canInferMapping)
    }

    /// What the reader does not know is ignored with a level-2 note naming the line; what it
    /// reads leniently too.
    @Test(arguments: [
        ("<entity name=\"A\"><attribute name=\"x\" attributeType=\"String\" colour=\"red\"/></entity>", "M.xcdatamodel/contents:3: <attribute>: unknown attribute 'colour' ignored"),
        ("<entity name=\"A\"><widget name=\"w\"/></entity>", "M.xcdatamodel/contents:3: <widget>: unknown element in <entity name=\"A\"> ignored"),
        ("<entity name=\"A\"/><compositeAttribute name=\"C\"/>", "M.xcdatamodel/contents:3: <compositeAttribute>: unknown element in <model> ignored"),
        ("<entity name=\"A\"><attribute name=\"x\" transient=\"YES\" attributeType=\"Money\"/></entity>", "M.xcdatamodel/contents:3: <attribute>: unknown attribute type 'Money' of transient A.x read as Undefined"),
        ("<entity name=\"A\"><attribute name=\"x\" optional=\"YES\" attributeType=\"Boolean\" minValueString=\"1\"/></entity>", "M.xcdatamodel/contents:3: <attribute>: minValueString on a Boolean attribute ignored"),
        ("<entity name=\"A\"><attribute name=\"x\" optional=\"YES\" attributeType=\"Integer 64\" defaultValueString=\"-2.9\"/></entity>", "M.xcdatamodel/contents:3: <attribute>: default value '-2.9' of A.x read as -2, as Core Data reads it"),
        ("<entity name=\"A\"><attribute name=\"x\" optional=\"YES\" attributeType=\"Boolean\" defaultValueString=\"0.0\"/></entity>", "M.xcdatamodel/contents:3: <attribute>: default value '0.0' of A.x read as false, as Core Data reads it"),
    ])
    func whatIsNotKnownIsIgnoredWithANote(_ body: String, _ note: String) throws {
        let model = try Self.model(body)
        #expect(model.notes.map(\.description) == [note])
        #expect(model.notes.map(\.level) == [.info])
    }

    /// An inverse that does not name its relationship back (Xcode's compiler warns and Core Data
    /// takes it) is read as no inverse, with a level-1 note; the other side keeps its own.
    @Test func anInverseThatDoesNotAnswerIsAcceptedWithAWarning() throws {
        let model = try ObjectModel.load(contentsOf: Self.garden, version: "Garden")
        #expect(model.entity("Plant")?.relationship("bed")?.inverse == nil)
        #expect(model.entity("Bed")?.relationship("plants")?.inverse == nil)
        let warnings = model.notes.filter { $0.level == .warning }.map(\.description)
        #expect(warnings == [Self.garden + "/Garden.xcdatamodel/contents:10: <relationship>: Plant.bed names Bed.plants as its inverse, but Bed.plants has no inverse: the inverse is not reciprocal, and Plant.bed is read as having no inverse"])
        #expect(model.notes.contains { $0.level == .info && $0.message.hasPrefix("Bed.plants has no inverse relationship") && $0.line == 5 })

        let crossed = try Self.model("""
            <entity name="A"><relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="a" inverseEntity="B"/>
            <relationship name="c" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="a" inverseEntity="B"/></entity>
            <entity name="B"><relationship name="a" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="A" inverseName="c" inverseEntity="A"/></entity>
            """)
        #expect(crossed.entity("A")?.relationship("b")?.inverse == nil)
        #expect(crossed.entity("A")?.relationship("c")?.inverse == "a")
        #expect(crossed.notes.filter { $0.level == .warning }.map(\.message) == ["A.b names B.a as its inverse, but B.a names A.c as its inverse: the inverse is not reciprocal, and A.b is read as having no inverse"])
    }

    /// A model with constraints, derived, composite and Undefined transient attributes syncs
    /// between two peers; the derived and transient values stay in memory, out of the log and
    /// the store, and opening the model warns that derivations are not honoured (its
    /// constraints are kept).
    @Test func aModelWithEveryNewConstructSyncsWithoutItsInMemoryValues() throws {
        let model = try ObjectModel.load(contentsOf: Self.garden)
        let cloud = try TestCloud(model: model, contentName: "Garden")
        let lines = LineSink()
        _ = try Device.create(at: cloud.devicePath("a"), userName: "a", identityToken: Device.defaultAccount)
        var configuration = cloud.configuration("a", policy: nil)
        configuration.logFormat = .xml
        configuration.logger = UbiquityLogger(level: .warning, peerID: "", storeName: "") { lines.append($0) }
        let a = try UbiquityPeer(configuration: configuration)
        let b = try cloud.peer("b", policy: nil)
        #expect(lines.all.filter { $0.contains("enforced") }.isEmpty, "\(lines.all)")
        #expect(lines.all.filter { $0.contains("is not computed") }.count == 2)

        let context = a.newContext()
        let bed = try context.insert("Bed", key: "b1")
        bed["label"] = .string("North")
        bed["size_width"] = .integer(3)
        bed["size_length"] = .integer(8)
        bed["plantCount"] = .integer(1)
        let plant = try context.insert("Plant", key: "p1")
        plant["name"] = .string("Basil")
        plant["searchName"] = .string("basil")
        plant["thumbnail"] = .binary([1, 2, 3])
        plant["location_latitude"] = .double(48.1)
        plant["location_longitude"] = .double(11.6)
        try plant.setTarget(bed.id, of: "bed")
        #expect(plant["searchName"] == .string("basil"), "kept in memory by the context")
        let log = try #require(try context.save())
        for record in log.inserted {
            #expect(Set(record.values.keys).isDisjoint(with: ["searchName", "thumbnail", "plantCount"]), "\(record.values.keys)")
        }
        #expect(log.inserted.first { $0.id == plant.id }?.values["height"] == .integer(0), "the lenient default is stored")

        _ = try a.sync()
        _ = try b.sync()
        #expect(try a.dumpText() == b.dumpText())
        let received = try #require(try b.store.snapshot(of: try GlobalID("Plant/p1")))
        #expect(received.values["name"] == .string("Basil"))
        #expect(received.values["location_latitude"] == .double(48.1) && received.values["location_longitude"] == .double(11.6))
        #expect(received.values["watered"] == .boolean(true))
        #expect(received.values["searchName"] == nil && received.values["thumbnail"] == nil)
        #expect(try b.store.snapshot(of: try GlobalID("Bed/b1"))?.values["size_length"] == .integer(8))
        let dump = try b.dumpText()
        for name in ["searchName", "thumbnail", "plantCount", "basil"] {
            #expect(!dump.contains(name), "\(name) is not in the store dump")
        }
        // The log as written to the cloud.
        var logs = 0
        for path in FileManager.default.subpaths(atPath: cloud.cloud) ?? [] where path.hasSuffix(".cdt") {
            let bytes = try AtomicFile.read(cloud.cloud + "/" + path, limit: 1 << 24)
            // (Other files of the folder end in .cdt too: only transaction logs decode.)
            guard let written = try? TransactionLog(decoding: bytes, model: model),
                  written.inserted.contains(where: { $0.id == plant.id }) else { continue }
            logs += 1
            for record in written.inserted {
                #expect(Set(record.values.keys).isDisjoint(with: ["searchName", "thumbnail", "plantCount"]), "\(path): \(record.values.keys)")
            }
            let text = String(decoding: bytes, as: UTF8.self)
            for name in ["searchName", "thumbnail", "plantCount"] { #expect(!text.contains(name), "\(name) is not in \(path)") }
        }
        #expect(logs == 1, "the transaction log is in the cloud")
    }
}

/// Log lines a test's logger wrote.
final class LineSink: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
