import Foundation
import Testing

/// `ubiq scenario fuzz` as a sweep reads it: one line per seed, the replay command of each
/// failed seed, and last exactly `N passed, M failed`; status 1 when a seed failed; no device
/// log lines unless `--log-level` asks.
@Suite("CLI scenario fuzz")
struct CLIScenarioFuzzTests {
    func fuzz(_ arguments: [String]) throws -> UbiqResult {
        let sandbox = try CLISandbox()
        return try UbiqProcess(binary: sandbox.binary, arguments: ["scenario", "fuzz"] + arguments, directory: sandbox.root).wait(timeout: 300)
    }

    @Test(arguments: ["icloud", "file-sync"])
    func passingSeedsPrintOneLineEachAndTheCount(transport: String) throws {
        let result = try fuzz(["--seeds", "1..2", "--steps", "30", "--transport", transport])
        #expect(result.succeeded, "\(result)")
        let lines = result.stdoutLines
        #expect(lines.count == 3, "\(lines)")
        for (index, line) in lines.prefix(2).enumerated() {
            #expect(line.range(of: "^seed \(index + 1): passed, [0-9]+ steps, [0-9.]+ s$", options: .regularExpression) != nil, "\(line)")
        }
        #expect(lines.last == "2 passed, 0 failed")
        #expect(!result.stderr.contains("Ubiquity:"), "no device log lines without --log-level: \(result.stderr.prefix(300))")
    }

    /// Sabotage (every delivery lost) makes both seeds fail: each line names the first violation, each replay follows.
    @Test func failedSeedsExitOneWithTheirReplayCommands() throws {
        let result = try fuzz(["--seeds", "11..12", "--steps", "60", "--faults", "none", "--faults", "lose=1", "--transport", "file-sync"])
        #expect(result.status == 1 && !result.signaled, "\(result)")
        let lines = result.stdoutLines
        #expect(lines.count == 5, "\(lines)")
        for (index, line) in lines.prefix(2).enumerated() {
            #expect(line.hasPrefix("seed \(11 + index): FAILED, "), "\(line)")
            #expect(line.contains("random-\(11 + index).scenario"), "the first violation, with its place: \(line)")
        }
        for (index, line) in lines.dropFirst(2).prefix(2).enumerated() {
            #expect(line.hasPrefix("replay: ubiq scenario fuzz --seeds \(11 + index) --steps 60 --transport file-sync --faults none --faults lose=1"), "\(line)")
        }
        #expect(lines.last == "0 passed, 2 failed")
        for line in lines.dropFirst(2).prefix(2) {
            if let work = line.components(separatedBy: "kept: ").last?.dropLast() { try? FileManager.default.removeItem(atPath: String(work)) }
        }
    }

    static let workshop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/models/Workshop.xcdatamodel").path

    /// Fixed seeds over a model of the team's (a constraint of a parent and its sub-entity, an
    /// abstract entity, an ordered to-many, value rules): every invariant holds on both transports.
    @Test(arguments: ["icloud", "file-sync"])
    func seedsOverAModelPassOnBothTransports(transport: String) throws {
        let result = try fuzz(["--seeds", "1..3", "--steps", "80", "--model", Self.workshop, "--transport", transport])
        #expect(result.succeeded, "\(result)")
        #expect(result.stdoutLines.count == 4, "\(result.stdoutLines)")
        #expect(result.stdoutLines.last == "3 passed, 0 failed")
        #expect(result.stderr.contains("note: Item.code: its pattern is not drawn; the default value is written"), "\(result.stderr)")
    }

    /// A failed seed's replay names the model, so the same scenario runs again.
    @Test func aFailedSeedOverAModelReplaysWithIt() throws {
        let result = try fuzz(["--seeds", "5", "--steps", "20", "--model", Self.workshop, "--faults", "lose=1"])
        #expect(result.status == 1 && !result.signaled, "\(result)")
        let replay = try #require(result.stdoutLines.first { $0.hasPrefix("replay: ") })
        #expect(replay.hasPrefix("replay: ubiq scenario fuzz --seeds 5 --steps 20 --model \(Self.workshop) --faults lose=1"), "\(replay)")
        if let work = replay.components(separatedBy: "kept: ").last?.dropLast() { try? FileManager.default.removeItem(atPath: String(work)) }
    }

    /// `--print` shows the model line and the steps drawn over it: four devices, pooled inserts, mutations.
    @Test func printShowsTheModelAndItsMutations() throws {
        let result = try fuzz(["--seeds", "4", "--model", Self.workshop, "--print"])
        #expect(result.succeeded, "\(result)")
        for line in ["model \"\(Self.workshop)\"", "devices d1 d2 d3 d4", "all policy object-trump", "all mutate pooled", "  40 ? mutate"] {
            #expect(result.stdoutLines.contains(line), "\(line) in \(result.stdout)")
        }
        #expect(!result.stdout.contains("edit Note"))
    }

    @Test func aModelThatDoesNotLoadIsAOneLineError() throws {
        let result = try fuzz(["--seeds", "1", "--model", "/nonexistent/Missing.xcdatamodel"])
        #expect(result.status != 0 && result.stderr.contains("--model: "), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test func badArgumentsAreOneLineErrors() throws {
        let seeds = try fuzz(["--seeds", "9..3"])
        #expect(seeds.status != 0 && seeds.stderr.contains("--seeds takes a number or a range such as 1..50, not '9..3'"), "\(seeds)")
        let machines = try fuzz(["--seeds", "1", "--machines", "2"])
        #expect(machines.status != 0 && machines.stderr.contains("--machines belongs to --transport file-sync"), "\(machines)")
        let transport = try fuzz(["--seeds", "1", "--transport", "dropbox"])
        #expect(transport.status != 0 && transport.stderr.contains("dropbox"), "\(transport)")
    }
}
