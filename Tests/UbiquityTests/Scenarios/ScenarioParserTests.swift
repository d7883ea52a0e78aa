import Testing
import Ubiquity
import UbiquitySimulation

/// The scenario format reads as documented, and every mistake is reported with its line.
@Suite("Scenario files")
struct ScenarioParserTests {
    @Test func aScenarioReadsIntoItsParts() throws {
        let scenario = try ScenarioParser.parse("""
            # a comment
            scenario two-devices
            about The first line.
            seed 42
            devices iphone mac
            device mac account bob skew -2h
            baseline threshold=20 grace=1d
            bound 50
            faults delay=1s..30s drop=0.1 reorder

            iphone launch
            iphone insert Note n1 title="Milk, eggs" pinned=true   # a trailing comment
            iphone save
            wait 5m
            repeat 3
              mac insert Note m{i} title="note {i}"
              mac save
            end
            random 10 keys=5
              3 ? edit Note
              1 wait 10s..1m
            end
            settle
            mac expect events will-change:accountAdded did-change:accountAdded:fallback
            mac expect Note n1 title="Milk, eggs"
            expect converged
            """, source: "test.scenario")
        #expect(scenario.name == "two-devices")
        #expect(scenario.about == ["The first line."])
        #expect(scenario.seed == 42)
        #expect(scenario.devices.map(\.name) == ["iphone", "mac"])
        #expect(scenario.devices[1].account == "bob" && scenario.devices[1].skew == -7_200)
        #expect(scenario.baselinePolicy.transactionThreshold == 20 && scenario.baselinePolicy.gracePeriod == 86_400)
        #expect(scenario.logBound == 50)
        #expect(scenario.steps.count == 11)
        guard case let .device("iphone", .insert("Note", "n1", values)) = scenario.steps[2].action else {
            Issue.record("line 12 is an insert: \(scenario.steps[2].action)")
            return
        }
        #expect(values == [PropertyAssignment(name: "title", text: "Milk, eggs"), PropertyAssignment(name: "pinned", text: "true")])
        #expect(scenario.steps[2].line == 12)
        guard case let .repeated(3, body) = scenario.steps[5].action, case let .random(block) = scenario.steps[6].action else {
            Issue.record("blocks")
            return
        }
        #expect(body.count == 2 && body[0].line == 16)
        #expect(block.count == 10 && block.keys == 5 && block.choices.map(\.weight) == [3, 1])
        guard case let .wait(range) = block.choices[1].step.action else { Issue.record("a random wait"); return }
        #expect(range == 10...60)
    }

    /// Each mistake, the line it is on, and words of its message.
    static let mistakes: [(text: String, line: Int, says: String)] = [
        ("devices a b\na lanch", 2, "unknown device step 'lanch'"),
        ("devices a\nb launch", 2, "unknown step or device 'b'"),
        ("devices a\na insert Note", 2, "usage: DEVICE insert ENTITY KEY"),
        ("devices a\na insert Note k title", 2, "expected attribute=value"),
        ("devices a\na save\nrepeat 3\na save", 3, "never closed with 'end'"),
        ("devices a\nend", 2, "'end' without"),
        ("devices a\nwait soon", 2, "'wait' takes a duration"),
        ("devices a\nfaults drop=2", 2, "drop takes a probability"),
        ("devices a\nfaults teleport=1", 2, "unknown fault 'teleport'"),
        ("devices a\na launch\nseed 3", 3, "belongs before the first step"),
        ("devices a a", 1, "declared twice"),
        ("devices All", 1, "lower-case word"),
        ("devices a\na expect events did-change:sideways:account", 2, "unknown event"),
        ("devices a\na policy lenient", 2, "unknown merge policy"),
        ("devices a\nrandom 5\n  ? edit Note\nend", 3, "starts with a positive weight"),
        ("devices a\na insert Note k title=\"open", 2, "quote is not closed"),
        ("a launch", 1, "unknown step or device 'a'"),
        ("scenario x", 0, "no devices"),
        ("devices a\nbaseline threshold=0", 2, "threshold takes a positive number"),
        ("devices a\nquota lots", 2, "'quota' takes a size"),
        ("devices a\na wait-for did-change:soon:account", 2, "unknown event"),
        ("peers 2\ndevice peer3 skew 1h", 2, "no device 'peer3'"),
        ("device all skew 1h", 1, "'device all' comes after"),
        ("devices a\na wait-for will-change:accountAdded within", 2, "usage: DEVICE wait-for"),
    ]

    @Test(arguments: mistakes.indices)
    func aMistakeIsReportedWithItsLine(index: Int) {
        let mistake = Self.mistakes[index]
        do {
            _ = try ScenarioParser.parse(mistake.text, source: "bad.scenario")
            Issue.record("\(mistake.text.debugDescription) was accepted")
        } catch {
            #expect(error.line == mistake.line, "\(error)")
            #expect(error.description.contains(mistake.says), "\(error)")
            #expect(error.description.hasPrefix(mistake.line > 0 ? "bad.scenario:\(mistake.line): " : "bad.scenario: "))
        }
    }

    @Test func genericPeersTakeSettingsOneByOneOrAll() throws {
        let scenario = try ScenarioParser.parse("peers 3\ndevice all account bob\ndevice peer2 skew 1h\nall launch", source: "peers.scenario")
        #expect(scenario.devices.map(\.name) == ["peer1", "peer2", "peer3"])
        #expect(scenario.devices.allSatisfy { $0.account == "bob" })
        #expect(scenario.devices.map(\.skew) == [nil, 3_600, nil])
    }

    @Test func peersAndStepsApplyOnlyWhereTheScenarioAllowsThem() throws {
        let named = try ScenarioParser.parse("devices a b\na launch", source: "named.scenario")
        var options = ScenarioOptions()
        options.peers = 3
        #expect(throws: ScenarioError.self) { try ScenarioRunner.run(named, options: options) }
        options.peers = nil
        options.steps = 10
        #expect(throws: ScenarioError.self) { try ScenarioRunner.run(named, options: options) }
    }

    @Test func fewerPeersThanTheStepsNameIsAnErrorAtTheFirstSuchStep() throws {
        let scenario = try ScenarioParser.parse("peers 5\npeer1 launch\nrepeat 2\n  peer5 launch\nend\n", source: "five.scenario")
        var options = ScenarioOptions()
        options.peers = 4
        let error = try #require(throws: ScenarioError.self) { try ScenarioRunner.run(scenario, options: options) }
        #expect(error.description == "five.scenario:4: 'peer5' is not a device of this run: --peers 4 makes peer1…peer4")
    }

    @Test func everyBuiltInScenarioReads() throws {
        for name in ScenarioFixtures.builtInNames {
            let scenario = try ScenarioFixtures.builtIn(name)
            #expect(!scenario.about.isEmpty, "\(name) says what it shows")
            #expect(scenario.name == name)
        }
    }
}
