import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// A store carried through every version of an `.xcdatamodeld` to the current one, a version
/// at a time (Docs/Models.md, "Migration"): every step planned first, a refused step named.
@Suite("Migration through the versions of a model bundle")
struct ModelVersionWalkTests {
    static let beds = 10

    /// A peer on version 1 of `bundle` holding `plants` plants spread over the beds.
    func storeOnVersion1(_ cloud: TestCloud, _ bundle: GeneratedModelBundle, plants: Int) throws -> String {
        let peer = try cloud.peer("a")
        defer { peer.close() }
        let context = peer.newContext()
        var beds: [GlobalID] = []
        for index in 0..<Self.beds {
            let bed = try context.insert("Bed", key: "b\(index)")
            bed["label"] = .string("bed \(index)")
            beds.append(bed.id)
        }
        for index in 0..<plants {
            let plant = try context.insert("Plant", key: "p\(index)")
            plant["name"] = .string("p\(index)")
            plant["height"] = .integer(Int64(index))
            plant["tag"] = .string("t\(index)")
            try plant.setTarget(beds[index % Self.beds], of: "bed")
        }
        try context.save()
        return peer.store.path
    }

    /// The configuration of peer `a` on the current version, given every version.
    func onCurrentVersion(_ cloud: TestCloud, _ bundle: GeneratedModelBundle) throws -> PeerConfiguration {
        let xcode = try XcodeModelBundle(path: bundle.path)
        var configuration = cloud.configuration("a")
        try configureModelVersions(&configuration, modelPath: bundle.path)
        // What a store's open was given before versions were walked: the bundle's other versions.
        configuration.previousModels = try xcode.versions.dropLast().map { try xcode.model(version: $0) }
        return configuration
    }

    /// Every object of the newest version, with the values version 1 gave it.
    func expectEveryObjectKept(_ peer: UbiquityPeer, plants: Int) throws {
        let newest = 100
        let crops = try peer.store.fetch(FetchRequest(entity: "Crop"))
        #expect(crops.count == plants)
        let tag = GeneratedModelBundle.tagName(at: newest)
        for crop in crops {
            #expect(crop.id.entity == "Crop" && crop.id.key.hasPrefix("p"))
            let index = try #require(Int(crop.id.key.dropFirst()))
            #expect(crop.values["name"] == .string("p\(index)"))
            #expect(crop.values["height"] == .integer(Int64(index)))
            #expect(crop.values[tag] == .string("t\(index)"), "renamed 24 times, each step by the name before")
            #expect(crop.toOne["plot"] == .some(try GlobalID(entity: "Plot", key: "b\(index % Self.beds)")))
        }
        let plots = try peer.store.fetch(FetchRequest(entity: "Plot"))
        #expect(plots.count == Self.beds)
        for plot in plots {
            #expect(plot.values["label"] == .string("bed \(plot.id.key.dropFirst())"))
            for count in GeneratedModelBundle.countAttributes(at: newest) { #expect(plot.values[count] == .integer(7)) }
        }
    }

    @Test func aStoreOnTheOldestOfAHundredVersionsReachesTheNewestKeepingEveryObject() throws {
        let folder = try TestCloud()
        let bundle = try GeneratedModelBundle(in: folder.root, versions: 100)
        let cloud = try TestCloud(model: try ObjectModel.load(contentsOf: bundle.path, version: "Garden"), contentName: "Garden")
        let plants = 1_000
        _ = try storeOnVersion1(cloud, bundle, plants: plants)
        let configuration = try onCurrentVersion(cloud, bundle)
        // Straight from version 1, the attribute renamed 24 times would be dropped: its name
        // before the last renaming is no name of version 1.
        #expect(ModelDiff(from: try #require(configuration.modelVersions?.models.first), to: configuration.model).changes
            .contains { $0.entity == "Crop" && $0.property == "tag" && $0.kind == .removed })

        let started = ContinuousClock.now
        let peer = try UbiquityPeer(configuration: configuration)
        defer { peer.close() }
        let elapsed = ContinuousClock.now - started
        print("walk through 100 versions, \(plants + Self.beds) objects: \(elapsed)")
        let migration = try #require(peer.migration)
        #expect(migration.steps == 99 && migration.sourceName == "Garden" && migration.destinationName == "Garden 100")
        #expect(migration.objectsBefore == plants + Self.beds && migration.objectsAfter == plants + Self.beds)
        #expect(try peer.store.migratedFrom() == configuration.modelVersions?.models.first?.hash, "the version whose folder holds the old saves")
        try expectEveryObjectKept(peer, plants: plants)
        _ = try peer.sync()
        #expect(try peer.store.migrationKnowledgeOwed() == nil, "the walked state is in a baseline of the newest version")
    }

    @Test func oneStepThatCannotBeInferredIsNamedAndTheStoreIsUntouched() throws {
        let folder = try TestCloud()
        let bundle = try GeneratedModelBundle(in: folder.root, versions: 100, retypedAt: 50)
        let cloud = try TestCloud(model: try ObjectModel.load(contentsOf: bundle.path, version: "Garden"), contentName: "Garden")
        let path = try storeOnVersion1(cloud, bundle, plants: 20)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try UbiquityPeer(configuration: try onCurrentVersion(cloud, bundle))
        } throws: { error in
            guard case let PeerError.migrationWalkRefused(.stepRefused(store, destination, step, steps, refusal)) = error else { return false }
            return store == "Garden" && destination == "Garden 100" && step == 49 && steps == 99
                && refusal.sourceName == "Garden 49" && refusal.destinationName == "Garden 50"
                && refusal.refusals.map { "\($0.entity).\($0.property ?? "")" } == ["Crop.height"]
                && "\(error)".contains("step 49 of 99, 'Garden 49' → 'Garden 50', cannot be inferred")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "nothing was touched")
        let again = try cloud.peer("a")
        #expect(try again.store.fetch(FetchRequest(entity: "Plant")).count == 20)
        again.close()
    }

    @Test func aWalkCutShortCarriesOnFromTheVersionItReached() throws {
        let folder = try TestCloud()
        let bundle = try GeneratedModelBundle(in: folder.root, versions: 100)
        let cloud = try TestCloud(model: try ObjectModel.load(contentsOf: bundle.path, version: "Garden"), contentName: "Garden")
        let path = try storeOnVersion1(cloud, bundle, plants: 50)
        let configuration = try onCurrentVersion(cloud, bundle)
        let versions = try #require(configuration.modelVersions)
        // A process that died after 30 steps: each step committed alone.
        let plans = try versions.steps(from: versions.models[0].hash, to: configuration.model)
        for plan in plans.prefix(30) { _ = try PersistentStore.migrate(atPath: path, plan: plan) }
        #expect(PersistentStore.storedModelHash(atPath: path) == versions.models[30].hash)

        let peer = try UbiquityPeer(configuration: configuration)
        defer { peer.close() }
        #expect(peer.migration?.steps == 69 && peer.migration?.sourceName == "Garden 31")
        try expectEveryObjectKept(peer, plants: 50)
    }

    @Test func aStoreOfNoVersionIsRefusedAndOneOnTheCurrentVersionHasNothingToDo() throws {
        let folder = try TestCloud()
        let bundle = try GeneratedModelBundle(in: folder.root, versions: 5)
        let cloud = try TestCloud(contentName: "Garden")
        try cloud.peer("a").close()
        var configuration = try onCurrentVersion(cloud, bundle)
        #expect {
            try UbiquityPeer(configuration: configuration)
        } throws: { error in
            guard case let PeerError.migrationWalkRefused(.storeVersionUnknown(stored, model, versions)) = error else { return false }
            return stored == ObjectModel.notes.hash && model == "Garden 5" && versions.count == 5
                && "\(error)".contains("none of the 5 version(s) of 'Garden 5' ('Garden' … 'Garden 5')")
        }
        configuration.device = cloud.devicePath("b")
        _ = try Device.create(at: configuration.device, userName: "b", identityToken: Device.defaultAccount)
        try UbiquityPeer(configuration: configuration).close()
        let reopened = try UbiquityPeer(configuration: configuration)
        #expect(reopened.migration == nil)
        reopened.close()
    }
}
