import Foundation
import Testing
import Ubiquity
@testable import UbiquitySimulation

/// The cloud keeps its listing current from the paths the daemons name, and tells a daemon
/// which paths changed since it looked: what it keeps must be what a fresh walk finds, or the
/// daemons' incremental scans would queue other transfers than a look at every file.
@Suite("Emulated cloud listing")
struct EmulatedCloudListingTests {
    let root = NSTemporaryDirectory() + "ubiquity-cloud-listing-" + UUID().uuidString
    let folder = "default/c/peer~1/Notes/h"

    func write(_ text: String, _ name: String, in cloud: EmulatedCloud) throws {
        try AtomicFile.makeDirectory(cloud.path + "/" + folder)
        try AtomicFile.write(Array(text.utf8), to: cloud.path + "/" + folder + "/" + name)
    }

    func expectFresh(_ cloud: EmulatedCloud) {
        let kept = cloud.tree(of: "default"), fresh = FileTree.list(cloud.path, under: "default")
        #expect(kept.files == fresh.files)
        #expect(kept.logNumbers == fresh.logNumbers)
    }

    @Test func namedChangesKeepTheListingAsAWalkFindsIt() throws {
        let cloud = EmulatedCloud(path: root + "/cloud")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try write("one", "0000000001-5397FC82-881A-52A0-8677-094A7DD9B470.1.cdt", in: cloud)
        cloud.didChange()
        #expect(cloud.tree(of: "default").files.count == 1)
        let looked = cloud.generation

        // A new log, a second file with the same transaction number, a rewrite and a removal.
        try write("two", "0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1.cdt", in: cloud)
        cloud.didChange(folder + "/0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1.cdt")
        try write("copy", "0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1 2.cdt", in: cloud)
        cloud.didChange(folder + "/0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1 2.cdt")
        try write("one, longer", "0000000001-5397FC82-881A-52A0-8677-094A7DD9B470.1.cdt", in: cloud)
        cloud.didChange(folder + "/0000000001-5397FC82-881A-52A0-8677-094A7DD9B470.1.cdt")
        expectFresh(cloud)
        #expect(cloud.tree(of: "default").logNumbers[folder]?.isSuperset(of: [1, 2]) == true)
        unlink(cloud.path + "/" + folder + "/0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1.cdt")
        cloud.didChange(folder + "/0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1.cdt")
        expectFresh(cloud)
        unlink(cloud.path + "/" + folder + "/0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1 2.cdt")
        cloud.didChange(folder + "/0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1 2.cdt")
        expectFresh(cloud)
        #expect(cloud.tree(of: "default").logNumbers[folder] == [1])

        #expect(cloud.changedPaths(since: looked, under: "default") == [
            folder + "/0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1.cdt", folder + "/0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1 2.cdt", folder + "/0000000001-5397FC82-881A-52A0-8677-094A7DD9B470.1.cdt",
        ])
        #expect(cloud.changedPaths(since: looked, under: "other") == [])
        #expect(cloud.changedPaths(since: cloud.generation, under: "default") == [])
    }

    @Test func aChangeNobodyNamedMakesEveryDaemonLookAtEverything() throws {
        let cloud = EmulatedCloud(path: root + "/cloud")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try write("one", "0000000001-5397FC82-881A-52A0-8677-094A7DD9B470.1.cdt", in: cloud)
        cloud.didChange(folder + "/0000000001-5397FC82-881A-52A0-8677-094A7DD9B470.1.cdt")
        let looked = cloud.generation
        try write("two", "0000000002-1A3ED9C0-D71F-5756-A461-912C8C74A434.1.cdt", in: cloud)
        cloud.didChange()
        #expect(cloud.changedPaths(since: looked, under: "default") == nil)
        expectFresh(cloud)
    }
}
