import Foundation
import Testing
import Ubiquity
import UbiquitySimulation

/// `ubiq status` of a device with a mirror shows the daemon's file states (Docs/Scenarios.md, "What is emulated"):
/// Current, Data Not Present (saved, not uploaded), Stored in Cloud (not downloaded).
@Suite("File states from the daemon")
struct DaemonStatusTests {
    @Test func anOfflineDevicesSavesAreDataNotPresentAndOthersAreStoredInCloud() throws {
        let scenario = try ScenarioParser.parse("""
            devices phone mac
            all launch
            wait 1m
            mac insert Note shared title=both
            mac save
            settle
            phone offline
            phone insert Note mine title="saved offline"
            phone save
            mac insert Note theirs title="not downloaded by the phone"
            mac save
            wait 5m
            """, source: "status.scenario")
        var options = ScenarioOptions()
        options.workDirectory = NSTemporaryDirectory() + "ubiquity-status-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: options.workDirectory!) }
        let result = try ScenarioRunner.run(scenario, options: options)
        let passed = result.passed
        #expect(passed, "\(result.text)")

        let configuration = PeerConfiguration(cloud: options.workDirectory! + "/cloud", device: options.workDirectory! + "/devices/phone",
                                              model: .notes, contentName: "Notes", logger: .silent)
        let phone = try UbiquityPeer(configuration: configuration)
        defer { phone.close() }
        let report = try ContainerReport.make(for: phone)
        let states = Dictionary(report.files.filter { $0.path.hasSuffix(".1.cdt") }.map { ($0.path, $0.state) }, uniquingKeysWith: { first, _ in first })
        let phoneLogs = states.filter { $0.key.hasPrefix(phone.peerID) }
        let macLogs = states.filter { !$0.key.hasPrefix(phone.peerID) }
        #expect(phoneLogs.values.sorted { $0.rawValue < $1.rawValue } == [.dataNotPresent], "\(states)")
        #expect(Set(macLogs.values) == [.current, .storedInCloud], "\(states)")
        #expect(report.transfers?.offline == true && report.transfers?.waitingUploads ?? 0 >= 1)
        #expect(report.text.contains("offline"))
    }
}
