import Foundation
import Testing
import Ubiquity

/// `ubiq model migrate --to BUNDLE.xcdatamodeld` walks a device's store from its version
/// through every later one of the bundle (Docs/CLI.md, Docs/Models.md).
@Suite("CLI: model migrate through the versions of a bundle")
struct CLIModelVersionWalkTests {
    static let plants = 100

    /// Device `name`'s store, made with version 1 of `bundle` by the library, holding the
    /// plants `p0` … and one bed.
    func storeOnVersion1(_ sandbox: CLISandbox, _ name: String, bundle: GeneratedModelBundle) throws {
        try sandbox.initDevice(name)
        let configuration = PeerConfiguration(cloud: sandbox.cloud, device: sandbox.device(name),
                                              model: try ObjectModel.load(contentsOf: bundle.path, version: "Garden"),
                                              contentName: "Garden", logger: .silent)
        let peer = try UbiquityPeer(configuration: configuration)
        defer { peer.close() }
        let context = peer.newContext()
        let bed = try context.insert("Bed", key: "b")
        bed["label"] = .string("only bed")
        for index in 0..<Self.plants {
            let plant = try context.insert("Plant", key: "p\(index)")
            plant["name"] = .string("p\(index)")
            plant["tag"] = .string("t\(index)")
            try plant.setTarget(bed.id, of: "bed")
        }
        try context.save()
    }

    @Test func aStoreOnVersion1WalksTheHundredVersionsInOneCommand() throws {
        let sandbox = try CLISandbox()
        let bundle = try GeneratedModelBundle(in: sandbox.root, versions: 100)
        try storeOnVersion1(sandbox, "phone", bundle: bundle)
        let new = ["--model", bundle.path, "--content", "Garden"]
        let refused = try sandbox.run(["fetch", "Crop"] + new, device: "phone")
        #expect(!refused.succeeded && refused.stderr.contains("the store was made for model 'Garden'") && refused.stderr.contains("run 'ubiq model migrate --to MODEL'"), "\(refused.stderr)")

        let migrated = try sandbox.succeed(["model", "migrate", "--to", bundle.path, "--content", "Garden", "--json"], device: "phone").stdout
        let json = try #require(try JSONSerialization.jsonObject(with: Data(migrated.utf8)) as? [String: Any])
        #expect(json["migrated"] as? Bool == true && json["steps"] as? Int == 99 && json["baselineOwed"] as? Bool == false)
        #expect(json["objectsBefore"] as? Int == Self.plants + 1 && json["objectsAfter"] as? Int == Self.plants + 1)
        let fetched = try sandbox.succeed(["fetch", "Crop", "--where", "name == 'p42'"] + new, device: "phone").stdout
        #expect(fetched.contains("Crop/p42") && fetched.contains("\(GeneratedModelBundle.tagName(at: 100))=\"t42\"") && fetched.contains("plot=Plot/b"), "\(fetched)")
        #expect(try objectIDs(inJSON: sandbox.succeed(["fetch", "Crop", "--json"] + new, device: "phone").stdout).count == Self.plants)
        let again = try sandbox.succeed(["model", "migrate", "--to", bundle.path, "--content", "Garden"], device: "phone").stdout
        #expect(again.contains("the store is already on model 'Garden 100'") && again.contains("nothing to migrate"), "\(again)")
    }

    @Test func aStepThatCannotBeInferredIsNamedAndTheStoreStaysOnItsVersion() throws {
        let sandbox = try CLISandbox()
        let bundle = try GeneratedModelBundle(in: sandbox.root, versions: 100, retypedAt: 50)
        try storeOnVersion1(sandbox, "phone", bundle: bundle)
        let refused = try sandbox.run(["model", "migrate", "--to", bundle.path, "--content", "Garden"], device: "phone")
        #expect(!refused.succeeded)
        #expect(refused.stderr.contains("the store on model 'Garden' cannot be migrated to 'Garden 100': step 49 of 99, 'Garden 49' → 'Garden 50', cannot be inferred"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Crop.height: type integer32 → string"), "\(refused.stderr)")
        let old = ["--model", bundle.path + "/Garden.xcdatamodel", "--content", "Garden"]
        #expect(try objectIDs(inJSON: sandbox.succeed(["fetch", "Plant", "--json"] + old, device: "phone").stdout).count == Self.plants)
    }
}
