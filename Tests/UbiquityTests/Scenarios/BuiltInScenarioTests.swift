import Foundation
import Testing
import UbiquitySimulation

/// Every built-in scenario passes with its own seed, in-process; the account switch and churn
/// also with each device as its own OS process (separate SQLite connections, locks, memory).
@Suite("Built-in scenarios")
struct BuiltInScenarioTests {
    static let names = ["account-switch", "churn", "clock-skew", "content-removed", "corrupted-log", "destroyed-baseline", "encrypted", "first-launch", "model-upgrade", "offline-edits", "quota-exceeded"]

    @Test func everyBuiltInScenarioIsRunHere() {
        #expect(ScenarioFixtures.builtInNames == Self.names, "a new built-in scenario needs a place in these tests")
    }

    @Test(arguments: names)
    func passesInProcess(name: String) throws {
        let result = try ScenarioFixtures.run(try ScenarioFixtures.builtIn(name), try ScenarioFixtures.options())
        let passed = result.passed
        #expect(passed, "\(result.text)")
        #expect(result.saves > 0 && result.steps > 10, "\(name) did real work: \(result.steps) steps, \(result.saves) saves")
        #expect(result.transfers.transfers > 0, "\(name) moved files through the daemons")
        // What each scenario is for shows in its figures, not only in its expectations.
        switch name {
        case "churn":
            let faults = result.transfers
            #expect(faults.drops > 0 && faults.truncations > 0 && faults.duplicates > 0 && faults.offlineWindows > 0, "\(faults.line)")
            #expect(result.peakLogFiles > 100 && result.peakLogFiles <= 650, "peak \(result.peakLogFiles) log files")
            #expect(faults.deletions > 0, "garbage collection deleted logs")
            #expect(result.devices.contains { $0.transitions.filter { $0.hasPrefix("did-change:added") }.count > 1 }, "devices left and came back")
        case "content-removed":
            for device in result.devices where device.name != "mac" {
                #expect(device.transitions.filter { $0 == "did-change:contentRemoved:account" }.count == 1, "\(device.name): \(device.transitions)")
            }
        case "encrypted":
            let mac = result.devices.first { $0.name == "mac" }
            #expect(mac?.transitions.contains("did-change:initialImportCompleted:account") == true, "the Mac finished its import once given the passphrase")
        case "quota-exceeded":
            #expect(result.transfers.quotaRefusals > 0)
        case "offline-edits", "clock-skew":
            #expect(result.conflicts > 0, "concurrent edits were recorded")
        case "model-upgrade":
            for device in result.devices {
                #expect(device.transitions.filter { $0 == "store-migrated" }.count == 1, "\(device.name) was migrated once: \(device.transitions)")
            }
        default:
            break
        }
    }

    /// The encrypted scenario leaves nothing readable in the cloud: no title any device saved is
    /// in any file there (every one is sealed but the key record), whatever the daemons did.
    @Test func theEncryptedScenarioLeavesNoTitleInTheCloud() throws {
        var options = try ScenarioFixtures.options()
        options.workDirectory = options.workDirectory ?? NSTemporaryDirectory() + "ubiquity-encrypted-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: options.workDirectory!) }
        let result = try ScenarioRunner.run(try ScenarioFixtures.builtIn("encrypted"), options: options)
        #expect(result.passed, "\(result.text)")
        let cloud = options.workDirectory! + "/cloud"
        let walker = try #require(FileManager.default.enumerator(atPath: cloud))
        var sealed = 0
        while let relative = walker.nextObject() as? String {
            let path = cloud + "/" + relative
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: path)), !relative.hasSuffix(".nosync") else { continue }
            for secret in ["secret note", "the iPad's", "saved on the Mac", "after the damage"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(relative) holds '\(secret)'")
            }
            if relative.contains("/.encryption/") { continue }
            #expect(bytes.starts(with: Array("UBQSEAL".utf8)), "\(relative) is sealed")
            sealed += 1
        }
        #expect(sealed > 5, "logs, receipts and a baseline are in the cloud, sealed")
    }

    /// Built-ins whose point is removals, damage and switches, with every account encrypted.
    @Test(arguments: ["account-switch", "content-removed", "corrupted-log", "first-launch"])
    func passesWithEncryptionOn(name: String) throws {
        var options = try ScenarioFixtures.options()
        options.encrypted = true
        let result = try ScenarioFixtures.run(try ScenarioFixtures.builtIn(name), options)
        let passed = result.passed
        #expect(passed, "\(result.text)")
    }

    @Test(arguments: ["account-switch", "churn", "model-upgrade"])
    func passesWithEveryDeviceInItsOwnProcess(name: String) throws {
        let result = try ScenarioFixtures.run(try ScenarioFixtures.builtIn(name), try ScenarioFixtures.options(processes: true))
        let passed = result.passed
        #expect(passed, "\(result.text)")
        #expect(result.mode == "processes")
    }

    /// A seed replays exactly: the same steps, transfers, faults and final states, whether the
    /// devices run in this process or in their own.
    @Test func aSeedReplaysTheSameRunInProcessAndAsProcesses() throws {
        let scenario = try ScenarioFixtures.builtIn("account-switch")
        let first = try ScenarioFixtures.run(scenario, try ScenarioFixtures.options(seed: 99))
        let again = try ScenarioFixtures.run(scenario, try ScenarioFixtures.options(seed: 99))
        let processes = try ScenarioFixtures.run(scenario, try ScenarioFixtures.options(seed: 99, processes: true))
        let allPassed = first.passed && again.passed && processes.passed
        #expect(allPassed)
        let signature = { (result: ScenarioResult) in
            result.devices.map { "\($0.name) \($0.saves) \($0.imports) \($0.transitions) \($0.transfers.line) \($0.finalState)" } + [result.transfers.line, "\(result.steps)"]
        }
        #expect(signature(first) == signature(again))
        #expect(signature(first) == signature(processes))
        let other = try ScenarioFixtures.run(scenario, try ScenarioFixtures.options(seed: 100))
        #expect(signature(first) != signature(other), "another seed draws other faults")
    }
}
