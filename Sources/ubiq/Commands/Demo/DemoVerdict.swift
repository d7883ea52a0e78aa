import Ubiquity

/// What "converged, nothing lost" means for the demo's story, checked on the stores themselves.
struct DemoVerdict {
    let scenario: DemoScenario
    let dumps: [String]
    let conflicts: [ConflictRecord]

    func problems() throws -> [String] {
        var problems: [String] = []
        if Set(dumps).count != 1 { problems.append("the three dumps differ") }
        for peer in scenario.all {
            let store = peer.peer.store
            for id in [scenario.trip, scenario.packing, scenario.urgent] where try !store.isAlive(id) {
                problems.append("\(id) is missing on \(peer.letter)")
            }
            if try store.isAlive(scenario.flights) { problems.append("\(scenario.flights) is still alive on \(peer.letter)") }
            if try !store.targets(of: "tags", of: scenario.packing).contains(scenario.urgent) {
                problems.append("the tag is missing on \(peer.letter)")
            }
        }
        // Nothing lost: one title won, the other is in the conflict history.
        let titles = [scenario.titleB, scenario.titleC]
        let winner = try scenario.a.title(of: scenario.packing)
        if let winner, titles.contains(winner) {
            let loser = titles.first { $0 != winner }!
            let recorded = conflicts.contains { $0.object == scenario.packing && $0.property == "title" && $0.loserValue == .attribute(.string(loser)) }
            if !recorded { problems.append("the losing title \"\(loser)\" is not in the conflict history") }
        } else {
            problems.append("the packing list's title is \(winner.map { "\"\($0)\"" } ?? "gone"), neither edit")
        }
        return problems
    }
}
