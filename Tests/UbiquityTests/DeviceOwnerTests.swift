import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// One owner per device: a second writer — in this process or another — is refused with a typed
/// error naming the owner, found by the kernel's list of locks even before the owner wrote its
/// pid into the lock file.
@Suite("Device owner")
struct DeviceOwnerTests {
    @Test func aSecondCoordinatorInThisProcessIsRefusedNamingThisProcess() throws {
        let cloud = try TestCloud()
        let first = try cloud.coordinator("phone")
        let refused = PeerError.device(.inUse(cloud.devicePath("phone"), owner: .thisProcess))
        #expect(throws: refused) { _ = try cloud.coordinator("phone") }
        #expect(throws: refused) { _ = try UbiquityPeer(configuration: cloud.configuration("phone")) }
        #expect(refused.description == "the device at \(cloud.devicePath("phone")) is in use by this process (a peer or coordinator opened on it here; close that one first)")

        // Readers take no lock: one open beside the owner, and the owner's writes go on.
        try first.addStore()
        try first.waitForBackgroundImport()
        let reader = try UbiquityPeer.openReadOnly(configuration: cloud.configuration("phone"))
        let context = try #require(first.peer).newContext()
        _ = try context.insert("Note")
        try context.save()
        reader.close()

        first.close()
        let second = try cloud.coordinator("phone")
        second.close()
    }

    @Test func aCLIProcessIsRefusedNamingThisProcessPid() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        let device = sandbox.device("phone")
        let owner = try UbiquitousStoreCoordinator(configuration: PeerConfiguration(cloud: sandbox.cloud, device: device, model: .notes, contentName: "Notes", logger: .silent),
                                                   liveImport: .off)
        defer { owner.close() }
        let line = "ubiq: error: the device at \(device) is in use by another process (pid \(getpid()))"
        let insert = try sandbox.run(["insert", "Note", "title=x"], device: "phone", timeout: 30)
        #expect(!insert.succeeded && insert.stderrLines == [line], "\(insert)")

        // The pid the owner writes into the lock file is not what names it: empty (an owner
        // between its lock and its write), the owner is still found, by the lock's inode.
        #expect(truncate(device + "/.lock", 0) == 0)
        let sync = try sandbox.run(["sync"], device: "phone", timeout: 30)
        #expect(!sync.succeeded && sync.stderrLines == [line], "\(sync)")
    }
}
