import Foundation
import Testing
@testable import Ubiquity
import UbiquityCore
import UbiquityTestSupport

/// `UbiquityPeer.openReadOnly`: reads a device another peer owns, takes no lock and writes nothing.
@Suite("Read-only peer")
struct ReadOnlyPeerTests {
    /// Every file below `root` with its size and modification time. SQLite's `-shm` index is left
    /// out: a WAL reader marks what it reads there by design, and it holds no data.
    func files(under root: String) -> [String: String] {
        var result: [String: String] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return result }
        for case let path as String in enumerator where !path.hasSuffix("-shm") {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: root + "/" + path) else { continue }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? -1
            let time = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
            result[path] = "\(attributes[.type] ?? "?") \(size) \(time)"
        }
        return result
    }

    @Test func readsWhatTheOwnerHoldsAndWritesNothing() throws {
        let cloud = try TestCloud()
        let writer = try cloud.peer("writer")
        let context = writer.newContext()
        let note = try context.insert("Note")
        note["title"] = .string("Hello")
        try context.save()
        let owner = try cloud.peer("owner")
        _ = try owner.sync()
        _ = try owner.rollBaseline(force: true)   // the reader reads the baseline too

        let before = (device: files(under: cloud.devicePath("owner")), cloud: files(under: cloud.cloud))
        let reader = try UbiquityPeer.openReadOnly(configuration: cloud.configuration("owner"))
        #expect(reader.isReadOnly && !owner.isReadOnly)
        #expect(try reader.store.dump() == owner.store.dump())
        #expect(try reader.store.fetch(FetchRequest(entity: "Note")).count == 1)
        #expect(reader.store.knowledge == owner.store.knowledge)
        let report = try ContainerReport.make(for: reader)
        #expect(report.peerID == owner.peerID && report.outbox == 0)
        #expect(try Doctor.examine(reader).isEmpty)
        #expect(reader.baselineMetadata?.author == owner.peerID)

        // Everything that would write is refused, with a message that says why.
        #expect { try reader.sync() } throws: { "\($0)".contains("opened read-only") }
        #expect { try reader.importAvailable() } throws: { "\($0)".contains("opened read-only") }
        #expect { try reader.exportPending() } throws: { "\($0)".contains("opened read-only") }
        #expect { try reader.rollBaseline(force: true) } throws: { "\($0)".contains("opened read-only") }
        #expect(throws: PeerError.readOnly(action: "restore a conflict")) { try reader.restoreLoser(ofConflict: 1) }
        #expect(reader.collectGarbage().deleted.isEmpty)
        let readerContext = reader.newContext()
        _ = try readerContext.insert("Note")
        #expect(throws: StoreError.readOnly) { try readerContext.save() }
        reader.close()
        #expect(files(under: cloud.devicePath("owner")) == before.device, "the reader wrote nothing on the device")
        #expect(files(under: cloud.cloud) == before.cloud, "nor in the cloud")

        // A reader opened later sees what the owner imported since.
        let second = try context.insert("Note")
        second["title"] = .string("Again")
        try context.save()
        _ = try owner.sync()
        let later = try UbiquityPeer.openReadOnly(configuration: cloud.configuration("owner"))
        #expect(try later.store.fetch(FetchRequest(entity: "Note")).count == 2)
        // It holds no lock: the owner can go and come back while the reader is open.
        owner.close()
        let again = try UbiquityPeer(configuration: cloud.configuration("owner"))
        again.close()
        later.close()
        writer.close()
    }

    @Test func aDeviceWithoutAStoreIsRefusedInOneLine() throws {
        let cloud = try TestCloud()
        _ = try Device.create(at: cloud.devicePath("fresh"), userName: "fresh")
        #expect { try UbiquityPeer.openReadOnly(configuration: cloud.configuration("fresh")) } throws: {
            "\($0)" == "this device has no store of account 'default' yet (nothing was saved or synced there)"
        }
        #expect(files(under: cloud.devicePath("fresh")).keys.sorted() == ["device.plist"], "and nothing was made")
    }

    /// A device whose store was made once and is gone (its folder and `tokens.plist` stand),
    /// and the store's path.
    func deviceWithoutItsStore(_ cloud: TestCloud, _ name: String) throws -> String {
        let owner = try cloud.peer(name)
        let path = owner.store.path
        owner.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return path
    }

    @Test func aReaderOfNoStoreYetMakesNothing() throws {
        let cloud = try TestCloud()
        let path = try deviceWithoutItsStore(cloud, "phone")
        let before = files(under: cloud.devicePath("phone"))
        // No owner holds the device: the reader still opens it read-only, and makes no store.
        #expect(throws: StoreError.missing(path)) {
            try UbiquityPeer.withReadablePeer(configuration: cloud.configuration("phone")) { _ in }
        }
        #expect(files(under: cloud.devicePath("phone")) == before, "nothing was made on the device")
    }

    @Test func aStoreBeingCreatedIsSaidSoAndMakesNothing() throws {
        let cloud = try TestCloud()
        let path = try deviceWithoutItsStore(cloud, "phone")
        // The owner makes a new store under this name, and renames it once its schema is whole.
        var owning: FileLock? = try FileLock(directory: cloud.devicePath("phone"))
        #expect(FileManager.default.createFile(atPath: path + ".creating", contents: Data("half a store".utf8)))
        let before = files(under: cloud.devicePath("phone"))
        #expect(throws: StoreError.beingCreated(path)) {
            try UbiquityPeer.withReadablePeer(configuration: cloud.configuration("phone")) { _ in }
        }
        #expect(StoreError.beingCreated(path).description == "the store at \(path) is being created by the process that owns the device; try again in a moment")
        #expect(files(under: cloud.devicePath("phone")) == before, "nothing was made on the device")

        // An owner that died half way left the file: nobody holds the device, so no store is there yet.
        owning?.release()
        owning = nil
        #expect(throws: StoreError.missing(path)) {
            try UbiquityPeer.withReadablePeer(configuration: cloud.configuration("phone")) { _ in }
        }

        // The owner starts a creating file a crash left afresh, and leaves none behind.
        let owner = try cloud.peer("phone")
        #expect(try owner.store.fetch(FetchRequest(entity: "Note")).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path + ".creating"))
        owner.close()
    }

    @Test func aStoreBeingRebuiltIsSaidSoWhileItsOwnerLives() throws {
        let cloud = try TestCloud()
        let owner = try cloud.peer("phone")
        let path = owner.store.path
        owner.close()
        try StoreMarker.mark(path, .rebuild)
        #expect(throws: StoreError.beingReplaced(path, .rebuild)) {
            try UbiquityPeer.withReadablePeer(configuration: cloud.configuration("phone")) { _ in }
        }
        #expect(StoreError.beingReplaced(path, .rebuild).description
                == "the store at \(path) is being rebuilt from the container by the process that owns the device; try again when it is done")

        // A mark left by a process that died marks nothing.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        try Data("\(gone.processIdentifier) rebuild\n".utf8).write(to: URL(fileURLWithPath: StoreMarker.rebuildingPath(path)))
        let count = try UbiquityPeer.withReadablePeer(configuration: cloud.configuration("phone")) { try $0.store.fetch(FetchRequest(entity: "Note")).count }
        #expect(count == 0)
        StoreMarker.clear(path)
    }
}
