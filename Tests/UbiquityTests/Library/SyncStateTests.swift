import Foundation
import Testing
import Ubiquity
import UbiquityTestSupport

/// "Am I synced?": the coordinator's `syncState` says up to date, waiting for which file of
/// whom, or blocked and why, and its observers hear every change in order.
@Suite("A coordinator's sync state")
struct SyncStateTests {
    func save(_ peer: UbiquityPeer, _ keys: [String]) throws {
        for key in keys {
            let context = peer.newContext()
            try context.insert("Note", key: key).set("title", key)
            try context.save()
        }
    }

    /// The phone's log file of transaction `number`.
    func logPath(_ peer: UbiquityPeer, _ number: Int64) throws -> String {
        let folder = try #require(peer.location).logDirectory(of: peer.peerID)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { TransactionLog.transactionNumber(inFileName: $0) == number })
        return folder + "/" + name
    }

    /// A coordinator on the account store of `name`, its initial import done.
    func started(_ cloud: TestCloud, _ name: String) throws -> UbiquitousStoreCoordinator {
        let coordinator = try cloud.coordinator(name)
        try coordinator.addStore()
        #expect(try coordinator.waitForBackgroundImport(timeout: 60))
        return coordinator
    }

    @Test func upToDateAfterARoundThatBroughtEverything() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        defer { phone.close() }
        let mac = try started(cloud, "mac")
        defer { mac.close() }
        let states = EventLog<SyncState>()
        mac.observeSyncState { states.append($0) }
        try save(phone, ["a", "b"])
        _ = try mac.sync()
        guard case .upToDate = mac.syncState else {
            Issue.record("after a round that imported everything: \(mac.syncState)")
            return
        }
        #expect(states.events.first == .syncing, "a round is told as it starts: \(states.events)")
        #expect(states.events.dropFirst().dropLast().allSatisfy { if case .importing(_, 2) = $0 { true } else { false } }, "\(states.events)")
        guard case .upToDate? = states.events.last else { Issue.record("the round's result comes last: \(states.events)"); return }
    }

    @Test func anImportIsToldAsImportingNOfMThenTheResult() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        defer { phone.close() }
        let mac = try started(cloud, "mac")
        let states = EventLog<SyncState>()
        mac.observeSyncState { states.append($0) }
        try save(phone, (0..<120).map { "n\($0)" })
        _ = try mac.sync()
        mac.close()
        let importing = states.events.compactMap { state -> (Int, Int)? in
            if case let .importing(done, total) = state { return (done, total) }
            return nil
        }
        #expect(importing.count > 2, "\(states.events)")
        #expect(Set(importing.map(\.1)) == [120], "M is the logs found")
        #expect(zip(importing, importing.dropFirst()).allSatisfy { $0.0 < $1.0 }, "N rises: \(importing)")
        guard case .upToDate? = states.events.last else { Issue.record("the round's result comes last: \(states.events)"); return }
    }

    @Test func waitingNamesTheFileWhoseAuthorAndSince() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        defer { phone.close() }
        let mac = try started(cloud, "mac")
        defer { mac.close() }
        try save(phone, ["a", "b", "c"])
        // Transaction 2 is still on its way (a file-sync engine has not brought it yet).
        let second = try logPath(phone, 2)
        let aside = cloud.root + "/in-transit"
        try FileManager.default.moveItem(atPath: second, toPath: aside)
        _ = try mac.sync()
        guard case let .waiting(waits) = mac.syncState else {
            Issue.record("with transaction 2 missing: \(mac.syncState)")
            return
        }
        #expect(waits.map(\.kind) == [.log] && waits.map(\.number) == [2] && waits.map(\.peerID) == [phone.peerID])
        #expect(waits.first?.since != nil)
        #expect(mac.syncState.line.hasPrefix("waiting for transaction 2 of \(phone.peerID) since "), "\(mac.syncState.line)")

        try FileManager.default.moveItem(atPath: aside, toPath: second)
        _ = try mac.sync()
        guard case .upToDate = mac.syncState else {
            Issue.record("once the file arrived: \(mac.syncState)")
            return
        }
        #expect(try mac.count(of: "Note") == 3)
    }

    @Test func blockedByADamagedFileSaysWhoseAndWhich() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        defer { phone.close() }
        let mac = try started(cloud, "mac")
        defer { mac.close() }
        try save(phone, ["a", "b", "c"])
        try AtomicFile.write(Array("not a log".utf8), to: try logPath(phone, 2))
        _ = try mac.sync()
        guard case let .blocked(.damagedFile(peerID, number, reason)) = mac.syncState else {
            Issue.record("with transaction 2 damaged: \(mac.syncState)")
            return
        }
        #expect(peerID == phone.peerID && number == 2 && !reason.isEmpty)
    }

    @Test func blockedWithoutTheKeyOfEncryptedContent() throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        defer { phone.close() }
        let mac = try started(cloud, "mac")
        defer { mac.close() }
        try phone.enableEncryption(passphrase: "correct horse", parameters: .fast)
        try save(phone, ["sealed"])
        _ = try? mac.sync()
        #expect(mac.syncState == .blocked(.noKey), "\(mac.syncState)")
    }

    @Test func aFirstLaunchIsNotSyncingUntilItsInitialImportEnds() async throws {
        let cloud = try TestCloud()
        let phone = try cloud.peer("phone")
        try save(phone, ["a"])
        phone.close()
        _ = try Device.create(at: cloud.devicePath("mac"), userName: "mac")
        let background = BackgroundWork(.manual)
        let mac = try UbiquitousStoreCoordinator(configuration: cloud.configuration("mac"), background: background, liveImport: .off)
        defer { mac.close() }
        let stream = mac.syncStateStream()
        try mac.addStore()
        #expect(mac.syncState == .notSyncing(.initialImport))
        background.runPending()
        guard case .upToDate = mac.syncState else {
            Issue.record("after the initial import: \(mac.syncState)")
            return
        }
        mac.close()
        var seen: [SyncState] = []
        for await state in stream { seen.append(state) }
        #expect(seen.first == .notSyncing(.initialImport) && seen.count == 2, "\(seen)")
    }
}
