import Foundation
import Synchronization
import Testing
import Ubiquity
import UbiquityTestSupport

/// `ubiq status` answers "am I synced?" first, with the app's own answer: what the coordinator
/// holds in `syncState` is what a reader in another process prints.
@Suite("Status says the sync state")
struct CLIStatusSyncStateTests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The app on `mac`: a coordinator on its account store, its initial import done.
    func app(_ sandbox: CLISandbox, _ name: String) throws -> UbiquitousStoreCoordinator {
        _ = try Device.create(at: sandbox.device(name), userName: name)
        let configuration = PeerConfiguration(cloud: sandbox.cloud, device: sandbox.device(name), model: .notes,
                                              contentName: "Notes", baselinePolicy: nil, logger: .silent)
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration, liveImport: .off)
        try coordinator.addStore()
        #expect(try coordinator.waitForBackgroundImport(timeout: 60))
        return coordinator
    }

    /// Checks that `status` and `status --json` of `device` say `state` first.
    func expectStatus(_ sandbox: CLISandbox, _ device: String, says state: SyncState, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = try sandbox.succeed(["status"], device: device)
        #expect(text.stdoutLines.first == "Sync state: \(state.line)", "\(text)", sourceLocation: sourceLocation)
        #expect(text.stdoutLines.dropFirst().first == "Device", sourceLocation: sourceLocation)
        let report = try json(try sandbox.succeed(["status", "--json"], device: device).stdout)
        let recorded = try #require(report["syncState"] as? [String: Any], sourceLocation: sourceLocation)
        #expect(recorded["line"] as? String == state.line, sourceLocation: sourceLocation)
    }

    @Test func statusPrintsTheAppsStateFirstWhileTheAppRuns() throws {
        let sandbox = try CLISandbox()
        let phone = try TestCloudAt(root: sandbox.root).peer("phone")
        let mac = try app(sandbox, "mac")
        defer { mac.close() }
        try expectStatus(sandbox, "mac", says: mac.syncState) // up to date after the initial import

        for key in ["a", "b", "c"] { try TestCloudAt(root: sandbox.root).save(phone, key) }
        // Transaction 2 has not arrived yet: the app waits for it, and so says status.
        let folder = try #require(phone.location).logDirectory(of: phone.peerID)
        let second = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { TransactionLog.transactionNumber(inFileName: $0) == 2 })
        try FileManager.default.moveItem(atPath: folder + "/" + second, toPath: sandbox.root + "/in-transit")
        _ = try mac.sync()
        guard case .waiting = mac.syncState else { Issue.record("\(mac.syncState)"); return }
        try expectStatus(sandbox, "mac", says: mac.syncState)

        try FileManager.default.moveItem(atPath: sandbox.root + "/in-transit", toPath: folder + "/" + second)
        _ = try mac.sync()
        guard case .upToDate = mac.syncState else { Issue.record("\(mac.syncState)"); return }
        try expectStatus(sandbox, "mac", says: mac.syncState)
        phone.close()
    }

    /// While the app's round imports, another process's `status` says how far it got: the
    /// state the app was told is the one recorded (at the import's start and each tenth).
    @Test func statusSaysImportingNOfMWhileTheAppsRoundImports() throws {
        let sandbox = try CLISandbox()
        let phone = try TestCloudAt(root: sandbox.root).peer("phone")
        defer { phone.close() }
        let mac = try app(sandbox, "mac")
        defer { mac.close() }
        for key in (0..<60).map({ "n\($0)" }) { try TestCloudAt(root: sandbox.root).save(phone, key) }
        let seen = Mutex<(state: SyncState, status: String)?>(nil)
        mac.observeSyncState { state in
            guard case .importing = state, seen.withLock({ $0 == nil }) else { return }
            let status = (try? sandbox.succeed(["status"], device: "mac").stdoutLines.first) ?? nil
            seen.withLock { $0 = (state, status ?? "no status") }
        }
        _ = try mac.sync()
        let first = try #require(seen.withLock { $0 }, "the round told no importing state")
        guard case let .importing(_, total) = first.state else { return }
        #expect(total == 60)
        #expect(first.status == "Sync state: " + first.state.line)
    }

    /// The tool's own `sync` records what its round found, as a coordinator records its rounds:
    /// `status` says so afterwards, up to date, then blocked on another peer's damaged log.
    @Test func theToolsOwnSyncRecordsWhatItsRoundFound() throws {
        let sandbox = try CLISandbox()
        let writer = try sandbox.initDevice("writer")
        _ = try sandbox.initDevice("phone")
        try sandbox.succeed(["sync"], device: "phone")
        let upToDate = try sandbox.succeed(["status"], device: "phone")
        #expect(upToDate.stdoutLines.first?.hasPrefix("Sync state: up to date (as of ") == true, "\(upToDate)")

        // The writer's first log arrives cut short: the phone's next round quarantines it, and
        // the writer's second waits for it.
        try sandbox.succeed(["insert", "Note", "title=first"], device: "writer")
        try sandbox.succeed(["insert", "Note", "title=second"], device: "writer")
        let path = try #require(FileManager.default.enumerator(atPath: sandbox.cloud)?.compactMap { $0 as? String }
            .first { $0.contains(writer + "/Notes/") && ($0 as NSString).lastPathComponent.hasPrefix("0000000001-") })
        let first = URL(fileURLWithPath: sandbox.cloud + "/" + path)
        let bytes = try Data(contentsOf: first)
        try bytes.prefix(bytes.count - 40).write(to: first)
        try sandbox.succeed(["sync"], device: "phone")
        let blocked = try sandbox.succeed(["status"], device: "phone")
        #expect(blocked.stdoutLines.first?.hasPrefix("Sync state: blocked: transaction 1 of \(writer) is damaged (") == true, "\(blocked)")
        let report = try json(try sandbox.succeed(["status", "--json"], device: "phone").stdout)
        let recorded = try #require(report["syncState"] as? [String: Any])
        #expect(blocked.stdoutLines.first == "Sync state: " + (recorded["line"] as? String ?? ""), "\(recorded)")
    }
}
