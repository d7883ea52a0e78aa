import Foundation
import Ubiquity

// The invariants of a scenario (Docs/Scenarios.md): after every step, the container's logs
// stay bounded and every saved transaction is still somewhere; at every handover the fallback's
// saves are in the account store; at quiescence every running peer of an account holds every
// transaction that reached the cloud, only objects some save inserted, and the same state.
// "The cloud" is the emulated cloud, or every machine's copy of it (file-sync), or under
// --syncthing every host's copy: a log is in the cloud when any copy holds it, and it has
// reached the peers when a copy that is not cut off holds it (at quiescence those copies hold
// the same files).
extension ScenarioRunner {
    static let containerIdentifier = "iCloud.ubiquity.default"
    static let contentURL = "CoreData"

    /// The container of `account` in the copy of the cloud at `root`, for model version `hash`
    /// (default: the model every device starts with).
    func location(account: String, root: String, hash: String? = nil) -> ContainerLocation {
        var location = ContainerLocation(cloud: root, identityToken: account, containerIdentifier: Self.containerIdentifier,
                                         contentURL: Self.contentURL, contentName: scenario.contentName, modelHash: hash ?? model.hash)
        // --encrypted: the checks read the cloud with the run's key, as its devices do.
        if let runSealing { location.sealing = runSealing }
        return location
    }

    // MARK: After every step

    func checkAfterStep() {
        let count = logFilesInCloud()
        peakLogFiles = max(peakLogFiles, count)
        if count > scenario.logBound {
            return violate("the container holds \(count) log files, more than the bound of \(scenario.logBound)")
        }
        checkSavedTransactionsPresent()
    }

    /// The copies of the cloud: the emulated cloud, every machine's, or every Syncthing host's
    /// (`reachable`: only those not cut off, whose files the running peers can get).
    func cloudRoots(reachable: Bool = false) -> [String] {
        guard let hosts else { return transport.cloudRoots(reachable: reachable) }
        return (1...hosts.count).filter { !reachable || !hosts.isCut($0) }.map(hosts.cloud(of:))
    }

    /// The files of the account `token` in each copy of the cloud.
    func cloudTrees(of token: String, reachable: Bool = false) -> [FileTree] {
        guard hosts != nil else { return cloudRoots(reachable: reachable).map { transport.tree(at: $0, of: token) } }
        return cloudRoots(reachable: reachable).map { FileTree.list($0, under: token) }
    }

    /// Distinct log files of the scenario's content in the cloud, every account together; a log
    /// that several copies hold counts once, one that only a copy cut off holds counts too.
    func logFilesInCloud() -> Int {
        let accounts = Set(cloudRoots().flatMap { DirectoryEntry.list($0).filter { $0.isDirectory && !$0.name.hasPrefix(".") }.map(\.name) })
        return accounts.reduce(0) { total, account in
            let trees = cloudTrees(of: account)
            guard trees.count > 1 else { return total + (trees.first?.logNumbers.reduce(0) { $0 + $1.value.count } ?? 0) }
            var logs = Set<String>()
            for tree in trees { for (folder, numbers) in tree.logNumbers { for number in numbers { logs.insert("\(folder)/\(number)") } } }
            return total + logs.count
        }
    }

    /// The numbers of `peer`'s logs in the cloud (in any of its copies, in the folder of any
    /// model version: a peer's numbers go on across versions).
    func cloudLogNumbers(account: String, peer: String, reachable: Bool = false) -> Set<Int64> {
        let folders = modelHashes.map { String(location(account: account, root: "", hash: $0).logDirectory(of: peer).dropFirst(1)) }
        return cloudTrees(of: account, reachable: reachable).reduce(into: []) { numbers, tree in
            for folder in folders { numbers.formUnion(tree.logNumbers[folder] ?? []) }
        }
    }

    /// What the cloud's baselines of `account` cover: the most any copy of the cloud holds in
    /// `baseline.zip` or a conflict copy of it (peers join every one of them).
    func cloudBaselineKnowledge(account: String, reachable: Bool = false) -> KnowledgeVector {
        cloudRoots(reachable: reachable).reduce(into: KnowledgeVector()) { knowledge, root in
            for hash in modelHashes { knowledge.formMaximum(baselinesKnowledge(location(account: account, root: root, hash: hash))) }
        }
    }

    /// What the baselines of one copy of a container hold together: `baseline.zip` and its
    /// conflict copies (peers join every one of them).
    func baselinesKnowledge(_ location: ContainerLocation) -> KnowledgeVector {
        var knowledge = KnowledgeVector()
        for file in ContainerScan.sharedFolder(.baselines, of: location) where file.isBaselineFile {
            knowledge.formMaximum(baselineKnowledge(file.path))
        }
        return knowledge
    }

    /// The numbers of the logs (named so, whatever the file) in `peer`'s log folder of `location`.
    static func logNumbers(of peer: String, in location: ContainerLocation) -> Set<Int64> {
        Set(ContainerEntry.list(location.logDirectory(of: peer), as: .logs, of: location).compactMap(\.logNumber))
    }

    /// The content epoch an account is in: the latest removal anyone has made, in the cloud (any
    /// copy) or still in its remover's mirror (the later of two removals wins).
    func currentEpoch(of account: String) -> String? {
        let roots = cloudRoots() + names.compactMap { transport.localRoot(of: $0) }
        let removals = roots.compactMap { location(account: account, root: $0).currentContentRemoval }
        return removals.max { ($0.generation, $0.date, $0.epoch) < ($1.generation, $1.date, $1.epoch) }?.epoch
    }

    /// The saves the checks hold the devices to: those of each account's current content (a
    /// removal wins over what was saved in the content it removed).
    func currentContents() -> [(content: SaveLedger.Content, peers: [String: SaveLedger.PeerRecord])] {
        // One look at each account's epoch (it reads every copy's removal record), not one per content.
        let epochs = Dictionary(uniqueKeysWithValues: Set(ledger.contents.keys.map(\.account)).map { ($0, currentEpoch(of: $0)) })
        return ledger.contents.filter { $0.key.epoch == epochs[$0.key.account] ?? nil }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// No saved change lost: every saved transaction of an account store is in the cloud, in
    /// its author's mirror or outbox, or covered by a baseline.
    func checkSavedTransactionsPresent() {
        for (content, peers) in currentContents() {
            let account = content.account
            let cloudBaseline = cloudBaselineKnowledge(account: account)
            for (peer, record) in peers.sorted(by: { $0.key < $1.key }) where record.first <= record.highest {
                guard let author = devices[record.device] else { continue }
                let localRoot = transport.localRoot(of: author.name)
                let localBaseline = localRoot.map { root in modelHashes.map { baselinesKnowledge(location(account: account, root: root, hash: $0))[peer] }.max() ?? 0 } ?? 0
                let covered = max(cloudBaseline[peer], localBaseline)
                ledger.covered(content, peer: peer, upTo: covered)
                let first = max(record.first, covered + 1)
                guard first <= record.highest else { continue }
                let inCloud = cloudLogNumbers(account: account, peer: peer)
                var missing = (first...record.highest).filter { !inCloud.contains($0) }
                guard !missing.isEmpty else { continue }
                if let localRoot {
                    let mirrored = modelHashes.reduce(into: Set<Int64>()) { $0.formUnion(Self.logNumbers(of: peer, in: location(account: account, root: localRoot, hash: $1))) }
                    missing = missing.filter { !mirrored.contains($0) }
                }
                guard !missing.isEmpty else { continue }
                if author.running, let outbox = try? send(.probe(full: false), to: author).state?.outbox {
                    missing.removeAll { outbox.contains($0) }
                }
                if !missing.isEmpty {
                    violate("saved transaction(s) \(missing.map(String.init).joined(separator: ", ")) of \(peer) (account '\(account)', saved by \(record.device)) are gone: in neither the cloud, the device nor a baseline")
                    return
                }
            }
        }
    }

    /// The knowledge of the baseline at `path` (empty when there is none), read once per version.
    func baselineKnowledge(_ path: String) -> KnowledgeVector {
        guard let signature = FileTree.signature(path) else { return KnowledgeVector() }
        if let cached = baselineCache[path], cached.signature == signature { return cached.knowledge }
        let knowledge = (try? BaselineMetadata(archiveAt: path, sealing: runSealing ?? .none))?.knowledge ?? sealedBaselineKnowledge(path) ?? KnowledgeVector()
        baselineCache[path] = (signature, knowledge)
        return knowledge
    }

    /// The knowledge of a sealed baseline (encrypted content), read with the key some device of
    /// the run keeps: the checks look into the cloud as a device with the passphrase would.
    func sealedBaselineKnowledge(_ path: String) -> KnowledgeVector? {
        guard SealedFile.isSealedFile(path) else { return nil }
        for name in names {
            let support = devices[name]!.directory + "/" + DeviceLocation.supportFolderName
            guard let walker = FileManager.default.enumerator(atPath: support) else { continue }
            while let relative = walker.nextObject() as? String {
                guard relative.hasSuffix("/" + StoreFolder.keyFileName) else { continue }
                let sealing = ContentSealing.reading(keyFile: support + "/" + relative, scratchDirectory: devices[name]!.directory + "/.invariants")
                if let metadata = try? BaselineMetadata(archiveAt: path, sealing: sealing) { return metadata.knowledge }
            }
        }
        return nil
    }

    // MARK: At a handover

    /// Right after a fallback handed over (nothing else imported since), every value the app
    /// saved in the fallback is in the account store, and nothing is alive that no save inserted.
    func checkHandover(_ handover: Handover, of device: RunDevice) {
        let account = handover.account
        let fallback = ledger.takeFallback(device: device.name, account: account)
        for (gid, values) in fallback.values.sorted(by: { $0.key < $1.key }) {
            guard let actual = handover.values[gid] else {
                if ledger.deleted[account]?.contains(gid) == true { continue }
                return violate("\(device.name) saved \(gid) in its fallback store, but after the handover the account store of '\(account)' does not have it")
            }
            let acrossEntities = handover.mergedAcrossEntities?.contains(gid) == true
            for (attribute, value) in values.sorted(by: { $0.key < $1.key }) where actual[attribute] != value {
                // Merged into an object of another entity: an attribute that entity lacks is not on it.
                if acrossEntities, actual[attribute] == nil { continue }
                return violate("\(device.name) saved \(gid).\(attribute) = \(value) in its fallback store, but after the handover the account store of '\(account)' holds \(actual[attribute] ?? "nothing")")
            }
        }
        for gid in fallback.deletes.sorted() where handover.values[gid] != nil {
            return violate("\(device.name) deleted \(gid) in its fallback store, but after the handover it is alive in the account store of '\(account)'")
        }
        checkNoStrangers(handover.liveObjects, on: device, account: account)
    }

    /// No duplicate from any fallback or migration: every live object was inserted by some save.
    func checkNoStrangers(_ liveObjects: [String], on device: RunDevice, account: String) {
        let known = ledger.inserted[account] ?? []
        if let stranger = liveObjects.first(where: { !known.contains($0) }) {
            violate("\(stranger) is alive on \(device.name) (account '\(account)') but no save ever inserted it: a duplicate from a fallback or a migration")
        }
    }

    // MARK: At quiescence

    /// After `settle` (and at the end): the online running peers of each account converged.
    func checkQuiescent() throws { try checkConverged(required: false) }

    /// Every running peer of each account (with `required`, offline ones too) holds every
    /// transaction that reached the cloud, only objects some save inserted, and the same state.
    func checkConverged(required: Bool) throws {
        // Peers on one model version converge among themselves; a version no device is on any
        // more owes every peer its saves (the upgrades carried them in their baselines).
        var groups: [String: [(device: RunDevice, state: DeviceState)]] = [:]
        for name in names {
            let device = devices[name]!
            guard device.running, required || !isOffline(device) else { continue }
            guard let state = try send(.probe(full: true), to: device).state, state.storeKind == .account, let account = state.account else { continue }
            groups[account + "\u{0}" + device.model.hash, default: []].append((device, state))
        }
        let versionsInUse = Set(names.map { devices[$0]!.model.hash })
        for (group, members) in groups.sorted(by: { $0.key < $1.key }) where violations.isEmpty {
            let account = String(group.split(separator: "\u{0}", maxSplits: 1)[0]), version = members[0].device.model.hash
            for member in members { checkNoStrangers(member.state.liveObjects, on: member.device, account: account) }
            let cloudBaseline = cloudBaselineKnowledge(account: account, reachable: true)
            let current = currentContents().first { $0.content.account == account }?.peers ?? [:]
            for (peer, full) in current.sorted(by: { $0.key < $1.key }) where violations.isEmpty {
                var record = full
                if !record.highestByVersion.isEmpty {
                    record.highest = record.highestByVersion.filter { $0.key == version || !versionsInUse.contains($0.key) }.values.max() ?? 0
                    guard record.highest > 0 else { continue }
                }
                let uploaded = cloudBaseline[peer] >= record.highest
                    || cloudLogNumbers(account: account, peer: peer, reachable: true).contains(record.highest)
                guard uploaded else {
                    // It may wait on its author: away from the account, offline or over quota.
                    if let author = devices[record.device], author.running, author.account == account,
                       author.syncthingHost != nil || transport.carries(author.name), !isOffline(author), !transport.isStalled(author.name) {
                        violate("transaction \(record.highest) of \(peer), saved by \(record.device), never reached the cloud although \(record.device) is online")
                    }
                    continue
                }
                for member in members where (member.state.knowledge[peer] ?? 0) < record.highest {
                    violate("\(member.device.name) never received transaction \(record.highest) of \(peer) (saved by \(record.device)): it holds up to \(member.state.knowledge[peer] ?? 0)")
                }
            }
            for member in members where violations.isEmpty { checkOneObjectPerConstrainedValue(member.state, on: member.device, account: account) }
            guard violations.isEmpty, Set(members.map(\.state.mergeState)).count > 1 else { continue }
            let detail = members.map { "\($0.device.name) [\(KnowledgeVector($0.state.knowledge))]" }.joined(separator: ", ")
            violate("the peers of '\(account)' hold different states at quiescence: \(detail)")
        }
    }

    /// No two live objects hold one uniqueness constraint's values, unless an update wrote
    /// them: concurrent inserts of a value are joined into one object everywhere, while two
    /// updates to one value keep both objects (Docs/SyncSemantics.md, uniqueness constraints).
    func checkOneObjectPerConstrainedValue(_ state: DeviceState, on device: RunDevice, account: String) {
        let updated = ledger.updatedProperties[account] ?? [:]
        for duplicate in state.uniquenessDuplicates ?? [] {
            let written = duplicate.objects.contains { !(updated[$0] ?? []).isDisjoint(with: duplicate.properties) }
            guard !written else { continue }
            return violate("\(device.name) holds \(duplicate.objects.count) live objects with \(duplicate.constraint) = \(duplicate.values), "
                + "all inserted with it: \(duplicate.objects.joined(separator: ", "))")
        }
    }

    /// Every concurrent overwrite among the saved transactions is in every running peer's
    /// conflict history. Checked on attributes whose writers all overwrote each other
    /// concurrently with different values (objects deleted or handed over from a fallback are
    /// left out: their history depends on the order of arrival).
    func checkConflictsRecorded() throws {
        for (content, writes) in ledger.writes.sorted(by: { $0.key < $1.key }) {
            let account = content.account
            guard content.epoch == currentEpoch(of: account) else { continue }
            let excluded = (ledger.deleted[account] ?? []).union(ledger.migratedObjects[account] ?? [])
            var slots: [String: [SaveLedger.AttributeWrite]] = [:]
            for write in writes where !excluded.contains(write.gid) { slots["\(write.gid)|\(write.attribute)", default: []].append(write) }
            var expected: [String] = []
            for (slot, all) in slots where all.count > 1 {
                let pairwise = all.indices.allSatisfy { i in all.indices.allSatisfy { j in i == j || Self.concurrent(all[i], all[j]) } }
                guard pairwise, Set(all.map(\.value)).count == all.count else { continue }
                // A stamp's text sorts like the stamp.
                let winner = all.max { $0.stamp < $1.stamp }!
                expected += all.filter { $0.stamp != winner.stamp }.map { "\(slot)|\($0.stamp)" }
            }
            for name in names where violations.isEmpty {
                let device = devices[name]!
                guard device.running, let state = try send(.probe(full: true), to: device).state, state.account == account,
                      state.storeKind == .account, let recorded = state.conflictLosers.map(Set.init) else { continue }
                if let missing = expected.sorted().first(where: { !recorded.contains($0) }) {
                    violate("\(name) did not record the concurrent overwrite \(missing) (object|attribute|loser's stamp) in its conflict history")
                }
            }
        }
    }

    static func concurrent(_ a: SaveLedger.AttributeWrite, _ b: SaveLedger.AttributeWrite) -> Bool {
        a.peerID != b.peerID && !b.knowledge.covers(peer: a.peerID, number: a.number) && !a.knowledge.covers(peer: b.peerID, number: b.number)
    }

    // MARK: The result

    func makeResult() throws -> ScenarioResult {
        var result = ScenarioResult(scenario: scenario.name, seed: seed,
                                    mode: hosts != nil ? "syncthing" : options.deviceExecutable == nil ? "in-process" : "processes")
        result.warnings = warnings
        result.about = scenario.about
        result.expectations = expectations
        result.transport = hosts != nil ? "syncthing" : transport.kind.rawValue
        result.machines = transport.machineSummaries
        if let hosts {
            result.syncthing = SyncthingSummary(hosts: hosts.count, separation: hosts.mode.rawValue, realSeconds: realTime.elapsed,
                                                waits: realTime.waits, waitsAtLimit: realTime.waitsAtLimit)
        }
        result.steps = stepCount
        result.simulatedSeconds = clock.seconds
        result.violations = violations
        result.peakLogFiles = peakLogFiles
        result.logBound = scenario.logBound
        result.saves = ledger.count
        for name in names {
            let device = devices[name]!
            var summary = DeviceSummary(name: name, peerID: device.peerID)
            summary.saves = device.saves
            summary.imports = device.imports
            summary.transitions = device.transitions
            summary.transfers = transport.statistics(of: name)
            summary.machine = transport.machine(of: name)
            let state = try? send(.probe(full: false), to: device).state
            summary.conflicts = state?.conflictCount ?? 0
            result.conflicts += summary.conflicts
            if let state, state.running, let kind = state.storeKind {
                summary.finalState = "\(kind.rawValue) store\(state.account.map { " of '\($0)'" } ?? ""), \(state.liveObjects.count) objects, knowledge [\(KnowledgeVector(state.knowledge))]"
            } else {
                summary.finalState = "not running"
            }
            if isOffline(device) { summary.finalState += " (offline)" }
            result.devices.append(summary)
        }
        result.transfers = transport.totalStatistics
        transport.finish(at: clock.seconds)
        timeline.duration = clock.seconds
        result.timeline = timeline
        var replay = scenario.replayCommand ?? "ubiq scenario run \(scenario.reference) --seed \(seed)"
        if let peers = options.peers { replay += " --peers \(peers)" }
        if let steps = options.steps { replay += " --steps \(steps)" }
        if hosts != nil { replay += " --syncthing" } else if options.deviceExecutable != nil { replay += " --processes" }
        if transport.kind != .icloud { replay += " --transport \(transport.kind.rawValue)" }
        if let machines = options.machines { replay += " --machines \(machines)" }
        if options.encrypted { replay += " --encrypted" }
        for (key, value) in options.extraFaults { replay += " --faults \(key)\(value.map { "=\($0)" } ?? "")" }
        if !result.passed { replay += "   (work directory kept: \(work))" }
        result.replay = replay
        return result
    }
}
