import Testing
@testable import UbiquitySimulation

/// The timeline names each transfer by a short path (`ScenarioRunner.shortPath`): an ASCII path
/// is split on bytes, any other on characters, by the same rule.
@Suite("Journal paths")
struct JournalPathTests {
    @Test func aLogAReceiptAndAnythingElseAreNamedShort() {
        let folder = "default/iCloud.ubiquity.default/CoreData/peer1~403329c9-5c6c-4c67-b2ca-52da2dfc5536/Notes/Hk_Gtul"
        #expect(ScenarioRunner.shortPath(folder + "/0000000003-6B29FC40-CA47-1067-B31D-00DD010662DA.1.cdt") == "default:peer1~403329c9…/3")
        #expect(ScenarioRunner.shortPath(folder + "/receipt.0.cdt") == "default:peer1~403329c9…/receipt.0.cdt")
        #expect(ScenarioRunner.shortPath("default/iCloud.ubiquity.default/CoreData/.baseline/Notes/h/baseline.zip") == "default:h/baseline.zip")
        #expect(ScenarioRunner.shortPath("//a//b/") == "a:a/b")
        #expect(ScenarioRunner.shortPath("x") == "x:x")
        #expect(ScenarioRunner.shortPath("") == "")
        // Not ASCII: split on characters, to the same kind of result.
        #expect(ScenarioRunner.shortPath("défault/a/b/ç.txt") == "défault:b/ç.txt")
    }
}
