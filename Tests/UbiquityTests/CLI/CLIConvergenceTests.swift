import Foundation
import Testing

/// Many OS processes write to one cloud at once; afterwards every device holds the same data.
@Suite("CLI multi-process convergence")
struct CLIConvergenceTests {
    static let soakers = ["s0", "s1", "s2"]
    static let updaters = ["u0", "u1"]
    static let soakCount = 150
    static let updatesEach = 8

    @Test func concurrentProcessesConverge() throws {
        let sandbox = try CLISandbox()
        let devices = Self.soakers + Self.updaters
        for device in devices { try sandbox.initDevice(device) }
        // The shared object exists everywhere before the storm.
        try sandbox.succeed(["insert", "Note", "--id", "shared", "title=original"], device: "s0")
        for device in devices { try sandbox.succeed(["sync"], device: device) }

        // Three soaks and two chains of updates of the shared note, all at once. A device
        // serves one process at a time, so each updater runs its updates one after another.
        var soaks: [(String, UbiqProcess)] = []
        for device in Self.soakers {
            soaks.append((device, try sandbox.start(["soak", "--count", "\(Self.soakCount)", "--prefix", "\(device)-"], device: device)))
        }
        var titles: Set<String> = ["original"]
        var pending = Dictionary(uniqueKeysWithValues: Self.updaters.map { ($0, 0) })
        var running: [String: UbiqProcess] = [:]
        var failures: [UbiqResult] = []
        var overlapping = 0
        let deadline = Date().addingTimeInterval(90)
        while (!running.isEmpty || pending.values.contains { $0 < Self.updatesEach }) && Date() < deadline {
            for device in Self.updaters {
                if let process = running[device] {
                    guard !process.isRunning else { continue }
                    let result = process.wait()
                    if !result.succeeded { failures.append(result) }
                    running[device] = nil
                }
                guard let done = pending[device], done < Self.updatesEach else { continue }
                let title = "\(device) edit \(done)"
                titles.insert(title)
                if soaks.contains(where: { $0.1.isRunning }) { overlapping += 1 }
                running[device] = try sandbox.start(["update", "Note/shared", "title=\(title)", "body=by \(device)"], device: device)
                pending[device] = done + 1
            }
            usleep(5_000)
        }
        for process in running.values { failures.append(process.wait(timeout: 1)) }
        var printed: Set<String> = ["Note/shared"]
        for (device, soak) in soaks {
            let result = soak.wait(timeout: 90)
            if !result.succeeded { failures.append(result) }
            #expect(result.stdoutLines.count == Self.soakCount, "\(device) printed one ID per save: \(result)")
            printed.formUnion(result.stdoutLines)
        }
        #expect(failures.isEmpty, "every concurrent process succeeded: \(failures)")
        #expect(overlapping > 0, "updates really ran while soaks were saving")

        // Two rounds: the first exports anything waiting and imports, the second takes in what
        // other devices exported during the first.
        for _ in 0..<2 {
            let syncs = try devices.map { try sandbox.start(["sync"], device: $0) }
            for result in syncs.map({ $0.wait() }) { #expect(result.succeeded, "\(result)") }
        }

        let dumps = try devices.map { try sandbox.dump($0) }
        for (device, dump) in zip(devices, dumps) {
            #expect(dump == dumps[0], "\(device)'s dump is byte-identical to \(devices[0])'s")
        }
        let ids = Set(try objectIDs(inJSON: dumps[0]))
        #expect(printed.subtracting(ids).isEmpty, "every acknowledged save is present; missing: \(printed.subtracting(ids).sorted())")
        #expect(ids.count == Self.soakers.count * Self.soakCount + 1, "nothing more than what was saved")
        let shared = try #require(try JSONSerialization.jsonObject(with: Data(dumps[0].utf8)) as? [[String: Any]])
            .first { $0["id"] as? String == "Note/shared" }
        let title = (shared?["values"] as? [String: Any])?["title"] as? String
        #expect(title.map(titles.contains) == true, "the shared title is one that was written: \(title ?? "none")")
        #expect(title != "original", "a later update won over the original title")
    }
}
