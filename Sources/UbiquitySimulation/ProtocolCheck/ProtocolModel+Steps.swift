import Ubiquity

/// File contents by number, so a state holds small integers instead of arrays. Numbers are
/// given in the order contents are first met; the table lives as long as one exploration.
final class ContentTable {
    static let none: UInt16 = 0, deleted: UInt16 = 1
    private var contents: [ModelContent] = []
    private var numbers: [ModelContent: UInt16] = [:]

    func number(_ content: ModelContent) -> UInt16 {
        if let known = numbers[content] { return known }
        contents.append(content)
        let number = UInt16(contents.count + 1)
        numbers[content] = number
        return number
    }

    func content(_ number: UInt16) -> ModelContent? { number > Self.deleted ? contents[Int(number) - 2] : nil }
}

/// The moves of the model: what each peer may do next, and what the engine may deliver.
struct ProtocolModel {
    let configuration: ProtocolModelConfiguration
    let peerNames: [String]
    let contents = ContentTable()
    let peers: Int, machines: Int
    /// Path slots: every peer's logs, every receipt, the name, the conflict copies.
    let paths: [ModelPath]
    private let slotOf: [ModelPath: Int]

    init(_ configuration: ProtocolModelConfiguration) {
        self.configuration = configuration
        peers = configuration.peers
        machines = configuration.machines
        peerNames = (0..<peers).map { "p\($0)" }
        var paths: [ModelPath] = []
        for peer in 0..<peers { for number in 0..<configuration.saves { paths.append(.log(peer: peer, number: number + 1)) } }
        for peer in 0..<peers { paths.append(.receipt(peer: peer)) }
        paths.append(.baseline)
        for index in 0..<(configuration.rolls + configuration.forcedRolls) { paths.append(.copy(index)) }
        self.paths = paths
        slotOf = Dictionary(uniqueKeysWithValues: paths.enumerated().map { ($0.element, $0.offset) })
    }

    var initialState: ModelState {
        var started: UInt8 = 0
        for peer in 0..<peers where !configuration.latecomers.contains(peer) { started |= 1 << peer }
        return ModelState(stores: Array(repeating: 0, count: peers * peers), started: started, created: Array(repeating: 0, count: peers),
                          savesLeft: UInt8(configuration.saves), rollsLeft: UInt8(configuration.rolls),
                          forcedLeft: UInt8(configuration.forcedRolls), files: Array(repeating: 0, count: machines * paths.count),
                          global: Array(repeating: 0, count: paths.count), current: Array(repeating: 0, count: paths.count), nextCopy: 0)
    }

    /// Every state one step away, with the step.
    func successors(of state: ModelState) -> [(ModelStep, ModelState)] {
        var result: [(ModelStep, ModelState)] = []
        func add(_ step: ModelStep, _ outcomes: [(ModelState, Bool?)]) {
            for (next, keptName) in outcomes where next != state {
                var step = step
                step.keptName = keptName
                result.append((step, next))
            }
        }
        for peer in 0..<peers {
            guard state.started & (1 << peer) != 0 else {
                var next = state
                next.started |= 1 << peer
                add(ModelStep(kind: .start, actor: peer), [(next, nil)])
                continue
            }
            if state.savesLeft > 0 { add(ModelStep(kind: .save, actor: peer), save(peer, state)) }
            if state.rollsLeft > 0 { add(ModelStep(kind: .roll, actor: peer), roll(peer, state)) }
            // One sync, as the engine runs it: join and import, then a forced roll if one is due,
            // then garbage collection. The engine may deliver between two syncs.
            add(ModelStep(kind: .sync, actor: peer), sync(peer, state).flatMap { synced, conflict in
                maintain(peer, synced).map { ($0.0, $0.1 ?? conflict) }
            })
        }
        for machine in 0..<machines {
            for slot in paths.indices where state.global[slot] != ContentTable.none && state.current[slot] & (1 << machine) == 0 {
                var next = state
                next.files[machine * paths.count + slot] = state.global[slot] == ContentTable.deleted ? ContentTable.none : state.global[slot]
                next.current[slot] |= 1 << machine
                add(ModelStep(kind: .deliver(paths[slot]), actor: machine), [(next, nil)])
            }
        }
        return result
    }

    // MARK: Peers

    private func save(_ peer: Int, _ state: ModelState) -> [(ModelState, Bool?)] {
        // A store that has not caught up with its own logs imports them before it saves (the
        // engine's catch-up at open): a number is never given twice.
        guard store(peer, state)[peer] == state.created[peer] else { return [] }
        var next = state
        let number = state.created[peer] + 1
        next.stores[peer * peers + peer] = number
        next.created[peer] = number
        next.savesLeft -= 1
        return write(.log(peer: peer, number: Int(number)), .log(knowledge: store(peer, next)), machine: machine(of: peer), in: next)
    }

    private func roll(_ peer: Int, _ state: ModelState) -> [(ModelState, Bool?)] {
        let machine = machine(of: peer)
        let store = store(peer, state)
        guard mayRoll(peer, state), mayReplace(store, machine, state) else { return [] }
        var next = state
        next.rollsLeft -= 1
        return write(.baseline, rolled(store, machine, state), machine: machine, in: next)
    }

    /// Joins the baselines the rules ask for, imports every applicable log, writes the receipt.
    private func sync(_ peer: Int, _ state: ModelState) -> [(ModelState, Bool?)] {
        let machine = machine(of: peer)
        var next = state
        var store = store(peer, state)
        let holdsNothing = store.allSatisfy { $0 == 0 }
        switch configuration.rules {
        case .current:
            let chosen = BaselineProtocol.baselinesToJoin(knowledge: vector(store), holdsNothing: holdsNothing,
                                                          candidates: candidates(machine, state), hasLog: hasLog(machine, state))
            for baseline in chosen { store = zip(store, knowledge(baseline.knowledge)).map { max($0, $1) } }
        case .legacy:
            if case let .baseline(baseline, _)? = file(.baseline, machine, state),
               legacyMustAdopt(store, baseline, holdsNothing: holdsNothing, machine, state) {
                store = legacyAdopt(store, baseline, machine, state)
            }
        }
        var progress = true
        while progress {
            progress = false
            for author in 0..<peers where Int(store[author]) < configuration.saves {
                guard case let .log(seen)? = file(.log(peer: author, number: Int(store[author]) + 1), machine, state),
                      (0..<peers).allSatisfy({ $0 == author || store[$0] >= seen[$0] }) else { continue }
                store[author] += 1
                progress = true
            }
        }
        next.stores.replaceSubrange(peer * peers..<(peer + 1) * peers, with: store)
        let receipt = ModelContent.receipt(knowledge: store, view: view(machine, state))
        guard file(.receipt(peer: peer), machine, state) != receipt else { return [(next, nil)] }
        return write(.receipt(peer: peer), receipt, machine: machine, in: next)
    }

    /// Whether a forced roll is due somewhere but the configuration's budget of forced rolls
    /// is spent: such a state is not really quiescent, and is not judged. (With no budget at
    /// all, the rules are checked without forced rolls, and every quiescent state is judged.)
    func forcedRollWithheld(_ state: ModelState) -> Bool {
        configuration.forcedRolls > 0 && state.forcedLeft == 0 && (0..<peers).contains { peer in
            state.started & (1 << peer) != 0 && mustRoll(peer, state) && mayRoll(peer, state)
                && mayReplace(store(peer, state), machine(of: peer), state)
        }
    }

    /// A forced roll when the rules require one, then garbage collection: own logs, and
    /// conflict copies the name holds entirely.
    private func maintain(_ peer: Int, _ state: ModelState) -> [(ModelState, Bool?)] {
        let machine = machine(of: peer)
        var outcomes: [(ModelState, Bool?)] = [(state, nil)]
        let store = store(peer, state)
        if state.forcedLeft > 0, mustRoll(peer, state), mayRoll(peer, state), mayReplace(store, machine, state) {
            var next = state
            next.forcedLeft -= 1
            outcomes = write(.baseline, rolled(store, machine, state), machine: machine, in: next)
        }
        return outcomes.map { state, keptName in (collect(peer, state), keptName) }
    }

    private func collect(_ peer: Int, _ state: ModelState) -> ModelState {
        let machine = machine(of: peer)
        var next = state
        let view = configuration.rules == .legacy ? vector(nameKnowledge(machine, state) ?? []) : vector(self.view(machine, state))
        var receipts: [ReceiptView] = []
        var peersWithoutReceipt = 0
        for other in 0..<peers where other != peer && isVisible(other, machine, state) {
            if case let .receipt(knowledge, seen)? = file(.receipt(peer: other), machine, state) {
                receipts.append(ReceiptView(knowledge: vector(knowledge), baselineView: vector(seen)))
            } else {
                peersWithoutReceipt += 1
            }
        }
        for number in 1...max(1, configuration.saves) where file(.log(peer: peer, number: number), machine, state) != nil {
            if BaselineProtocol.mayCollect(author: peerNames[peer], number: Int64(number), view: view, receipts: receipts,
                                           peersWithoutReceipt: peersWithoutReceipt, olderThanGracePeriod: false) {
                delete(.log(peer: peer, number: number), machine: machine, in: &next)
            }
        }
        if configuration.rules == .current {
            for copy in BaselineProtocol.redundantCopies(candidates(machine, state)) {
                delete(copyPath(copy.name), machine: machine, in: &next)
            }
        }
        return next
    }

    // MARK: Rules

    private func mayRoll(_ peer: Int, _ state: ModelState) -> Bool {
        let machine = machine(of: peer)
        let store = store(peer, state)
        let unimported = (0..<peers).contains { author in
            Int(store[author]) < configuration.saves && file(.log(peer: author, number: Int(store[author]) + 1), machine, state) != nil
        }
        switch configuration.rules {
        case .current:
            return BaselineProtocol.mayRoll(knowledge: vector(store), candidates: candidates(machine, state), hasUnimportedLog: unimported)
        case .legacy:
            // The old roll skipped when the baseline under the name already held everything.
            return !unimported && !zip(nameKnowledge(machine, state) ?? ModelKnowledge(repeating: 0, count: peers), store).allSatisfy { $0 >= $1 }
        }
    }

    private func mayReplace(_ store: ModelKnowledge, _ machine: Int, _ state: ModelState) -> Bool {
        let current = nameKnowledge(machine, state).map { BaselineCandidate(name: "baseline.zip", isAtName: true, knowledge: vector($0), contentID: "\($0)") }
        return BaselineProtocol.mayReplace(vector(store), current: current)
    }

    private func mustRoll(_ peer: Int, _ state: ModelState) -> Bool {
        let machine = machine(of: peer)
        let store = store(peer, state)
        switch configuration.rules {
        case .current:
            return !BaselineProtocol.strandedPeers(knowledge: vector(store), view: vector(view(machine, state)), hasLog: hasLog(machine, state)).isEmpty
                || !BaselineProtocol.unresolvedCopies(candidates(machine, state)).isEmpty
        case .legacy:
            let baseline = nameKnowledge(machine, state) ?? ModelKnowledge(repeating: 0, count: peers)
            return (0..<peers).contains { author in
                store[author] > baseline[author] && file(.log(peer: author, number: Int(baseline[author]) + 1), machine, state) == nil
            }
        }
    }

    /// The old adoption test: the store lacks something the baseline holds, and is empty or
    /// misses the next log of a peer the baseline is ahead on.
    private func legacyMustAdopt(_ store: ModelKnowledge, _ baseline: ModelKnowledge, holdsNothing: Bool, _ machine: Int, _ state: ModelState) -> Bool {
        guard zip(store, baseline).contains(where: { $0 < $1 }) else { return false }
        if holdsNothing { return true }
        return (0..<peers).contains { author in
            store[author] < baseline[author] && file(.log(peer: author, number: Int(store[author]) + 1), machine, state) == nil
        }
    }

    /// The old adoption: the store's state became the baseline's; of what it held beyond, it
    /// kept only the peers with a log missing in between (the rest, it expected to import again).
    private func legacyAdopt(_ store: ModelKnowledge, _ baseline: ModelKnowledge, _ machine: Int, _ state: ModelState) -> ModelKnowledge {
        (0..<peers).map { author in
            guard store[author] > baseline[author] else { return baseline[author] }
            let gap = (Int(baseline[author]) + 1...Int(store[author])).contains { file(.log(peer: author, number: $0), machine, state) == nil }
            return gap ? store[author] : baseline[author]
        }
    }

    // MARK: The engine

    /// Writes `content` at `path` on `machine`. When the engine holds a newer version the machine
    /// has not received, the two collide: one keeps the name, the other becomes a conflict copy
    /// (both outcomes are explored).
    private func write(_ path: ModelPath, _ content: ModelContent, machine: Int, in state: ModelState) -> [(ModelState, Bool?)] {
        let slot = slotOf[path]!, local = machine * paths.count + slot
        let bit = UInt8(1 << machine), number = contents.number(content)
        let theirs = state.global[slot]
        guard theirs > ContentTable.deleted, state.current[slot] & bit == 0 else {
            var next = state
            next.files[local] = number
            next.global[slot] = number
            next.current[slot] = bit
            return [(next, nil)]
        }
        // Beyond the copies the configuration allows, the collision is not explored.
        guard let copy = slotOf[.copy(Int(state.nextCopy))] else { return [] }
        var mineWins = state
        mineWins.nextCopy += 1
        mineWins.files[local] = number
        mineWins.global[slot] = number
        mineWins.current[slot] = bit
        mineWins.global[copy] = theirs
        mineWins.current[copy] = 0
        var theirsWin = state
        theirsWin.nextCopy += 1
        theirsWin.files[local] = ContentTable.none
        theirsWin.files[machine * paths.count + copy] = number
        theirsWin.global[copy] = number
        theirsWin.current[copy] = bit
        return [(mineWins, true), (theirsWin, false)]
    }

    /// Deletes `path` on `machine`; the engine carries the deletion unless a newer version
    /// exists (a modification wins over a deletion).
    private func delete(_ path: ModelPath, machine: Int, in state: inout ModelState) {
        let slot = slotOf[path]!, local = machine * paths.count + slot
        guard state.files[local] != ContentTable.none else { return }
        state.files[local] = ContentTable.none
        let bit = UInt8(1 << machine)
        if state.current[slot] & bit != 0 {
            state.global[slot] = ContentTable.deleted
            state.current[slot] = bit
        }
    }

    /// A state in one line: each store, then each machine's files.
    func describe(_ state: ModelState) -> String {
        func kv(_ knowledge: ModelKnowledge) -> String { "{" + knowledge.enumerated().filter { $0.element > 0 }.map { "p\($0.offset):\($0.element)" }.joined(separator: " ") + "}" }
        var parts = (0..<peers).map { "p\($0)=\(state.started & (1 << $0) == 0 ? "off" : kv(store($0, state)))" }
        for machine in 0..<machines {
            let files = paths.indices.compactMap { slot -> String? in
                guard let content = contents.content(state.files[machine * paths.count + slot]) else { return nil }
                switch content {
                case .log: return paths[slot].description
                case let .receipt(knowledge, view): return "\(paths[slot])\(kv(knowledge))/\(kv(view))"
                case let .baseline(knowledge, resolves):
                    return "\(paths[slot])\(kv(knowledge))" + (resolves.isEmpty ? "" : "+resolves\(resolves)")
                }
            }
            parts.append("m\(machine)[" + files.joined(separator: " ") + "]")
        }
        return parts.joined(separator: " ")
    }

    // MARK: Views of a machine's files

    func machine(of peer: Int) -> Int { configuration.placement[peer] }

    func store(_ peer: Int, _ state: ModelState) -> ModelKnowledge { Array(state.stores[peer * peers..<(peer + 1) * peers]) }

    func file(_ path: ModelPath, _ machine: Int, _ state: ModelState) -> ModelContent? {
        guard let slot = slotOf[path] else { return nil }
        return contents.content(state.files[machine * paths.count + slot])
    }

    /// Whether any machine, or the engine, holds `path` with a content matching `test`.
    func anywhere(_ state: ModelState, _ test: (ModelPath, ModelContent) -> Bool) -> Bool {
        for (slot, path) in paths.enumerated() {
            if let content = contents.content(state.global[slot]), test(path, content) { return true }
            for machine in 0..<machines {
                if let content = contents.content(state.files[machine * paths.count + slot]), test(path, content) { return true }
            }
        }
        return false
    }

    private func hasLog(_ machine: Int, _ state: ModelState) -> (String, Int64) -> Bool {
        { author, number in
            number <= Int64(self.configuration.saves) && self.file(.log(peer: Int(author.dropFirst())!, number: Int(number)), machine, state) != nil
        }
    }

    private func candidates(_ machine: Int, _ state: ModelState) -> [BaselineCandidate] {
        let first = slotOf[.baseline]!
        return (first..<paths.count).compactMap { slot in
            guard case let .baseline(knowledge, resolves)? = contents.content(state.files[machine * paths.count + slot]) else { return nil }
            // A copy's content never changes here, so its path identifies it.
            return BaselineCandidate(name: paths[slot].description, isAtName: slot == first, knowledge: vector(knowledge),
                                     contentID: "\(knowledge)", resolves: Set(resolves.map { copyIdentity($0, state) }))
        }
    }

    /// What a roll by a store holding `store` on `machine` writes: its knowledge, and the copies it
    /// resolves (every copy it sees; it may roll only when it holds them all).
    private func rolled(_ store: ModelKnowledge, _ machine: Int, _ state: ModelState) -> ModelContent {
        let resolved = BaselineProtocol.resolvedByRoll(candidates(machine, state))
        let copies = (0..<(configuration.rolls + configuration.forcedRolls)).filter { resolved.contains(copyIdentity($0, state)) }
        return .baseline(store, resolves: copies)
    }

    private func copyIdentity(_ index: Int, _ state: ModelState) -> String {
        let slot = slotOf[.copy(index)]!
        let content: String
        if case let .baseline(knowledge, _)? = contents.content(state.global[slot]) { content = "\(knowledge)" } else {
            // Deleted everywhere: its identity is its path and the content it had, found on any machine.
            content = (0..<machines).lazy.compactMap { machine -> String? in
                if case let .baseline(knowledge, _)? = self.contents.content(state.files[machine * self.paths.count + slot]) { return "\(knowledge)" }
                return nil
            }.first ?? ""
        }
        return ModelPath.copy(index).description + "|" + content
    }

    private func copyPath(_ name: String) -> ModelPath {
        .copy(Int(name.dropFirst("baseline.conflict-".count).prefix { $0.isNumber })!)
    }

    private func view(_ machine: Int, _ state: ModelState) -> ModelKnowledge {
        switch configuration.rules {
        case .current: return knowledge(BaselineProtocol.view(of: candidates(machine, state)))
        case .legacy: return nameKnowledge(machine, state) ?? ModelKnowledge(repeating: 0, count: peers)
        }
    }

    private func nameKnowledge(_ machine: Int, _ state: ModelState) -> ModelKnowledge? {
        if case let .baseline(knowledge, _)? = file(.baseline, machine, state) { return knowledge }
        return nil
    }

    /// A peer's folder is visible once one of its files arrived.
    private func isVisible(_ peer: Int, _ machine: Int, _ state: ModelState) -> Bool {
        file(.receipt(peer: peer), machine, state) != nil
            || (1...max(1, configuration.saves)).contains { file(.log(peer: peer, number: $0), machine, state) != nil }
    }

    func vector(_ knowledge: ModelKnowledge) -> KnowledgeVector {
        var entries: [String: Int64] = [:]
        for (peer, number) in knowledge.enumerated() where number > 0 { entries[peerNames[peer]] = Int64(number) }
        return KnowledgeVector(entries)
    }

    func knowledge(_ vector: KnowledgeVector) -> ModelKnowledge {
        peerNames.map { UInt8(vector[$0]) }
    }
}
