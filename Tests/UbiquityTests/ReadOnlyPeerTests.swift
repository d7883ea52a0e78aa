import Foundation
import Testing
@testable import Ubiquity
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
}
