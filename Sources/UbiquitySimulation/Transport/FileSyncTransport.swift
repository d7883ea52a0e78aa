import Ubiquity

/// A file-sync engine between machines (`--transport file-sync`): the devices are spread over
/// machines round-robin, every device of a machine reads and writes that machine's copy of the
/// cloud (`<work>/machines/N/cloud`), and a `FileSyncEngine` keeps the copies in step on the
/// scenario's simulated time, every choice drawn from the seed:
///
/// - a machine scans `watchDelay` after something on it changed, and publishes what the scan found;
/// - every other machine pulls each new version after the `delay` of its plan: a temporary file
///   first (or, with `truncate`, a part under the final name), renamed into place a moment later
///   (alphabetically, or with `reorder` in random order and taking 1–30 s each, so they land
///   out of order); `drop` breaks the connection during a transfer (its temporary file stays,
///   it is tried again after `retry`); `lose` records a delivery as done and never writes it;
/// - conflict copies come by themselves when two machines wrote one path;
/// - `DEVICE offline` cuts the device's machine off (every device on it: they share its network),
///   `offline=RATE/DURATION` cuts machines off at random, and `online` on any device of a
///   machine reconnects it.
///
/// A machine's faults are those of its first device. A machine carries the accounts its devices
/// are signed in to (the engine's ignore list), as iCloud synced only the signed-in account and
/// as the Syncthing hosts do: a switch changes it before the app saves in will-change, and the
/// files of an account no device of the machine uses stay as they were, sent and received no more.
final class FileSyncTransport: Transport {
    /// Seconds from a change on a machine to its scan (Syncthing's file-system watcher delay).
    static let watchDelay = 10.0
    /// Seconds a delivery takes from its temporary file to its rename, without and with `reorder`.
    static let transferTime = 1.0...1.0, reorderedTransferTime = 1.0...30.0

    private struct Scheduled {
        var due: Double
        /// Begun: its temporary file (or part) is there and the rename is due.
        var underWay = false
        /// A broken transfer left its temporary file behind.
        var leftTemporary = false
    }

    let engine: FileSyncEngine
    let count: Int
    private var order: [String] = []
    private var machineOf: [String: Int] = [:]
    private var accounts: [String: String] = [:]
    private var plans: [FaultPlan?]
    private var random: SeededGenerator
    private var now = 0.0
    private var scanDue: [Double?]
    /// `nil` connected; `.infinity` cut off until told; else cut off until then.
    private var offlineUntil: [Double?]
    private var deliveries: [[String: Scheduled]]
    /// The engine's sequence when deliveries were last scheduled, and whether a machine came
    /// back or a delivery went void since.
    private var scheduledSequence = -1
    private var mustSchedule = true
    /// Per machine: a count that moves when files appear or go that its apps should import,
    /// and one that moves on any change of its files (for the listings the checks cache).
    private var generation: [Int]
    private var changes: [Int]
    private var synced: [String: Int] = [:]
    private var trees: [String: (changes: Int, tree: FileTree)] = [:]
    private var stats: [TransferStatistics]
    private var journal: [TransferRecord] = []

    /// `count` machines under `root` (`root/N/cloud`, N from 1), with a generator of its own from `seed`.
    init(machines count: Int, root: String, seed: UInt64) {
        self.count = count
        engine = FileSyncEngine(clouds: (1...count).map { "\(root)/\($0)/cloud" })
        plans = Array(repeating: nil, count: count)
        random = SeededGenerator(seed: seed)
        scanDue = Array(repeating: nil, count: count)
        offlineUntil = Array(repeating: nil, count: count)
        deliveries = Array(repeating: [:], count: count)
        generation = Array(repeating: 0, count: count)
        changes = Array(repeating: 0, count: count)
        stats = Array(repeating: TransferStatistics(), count: count)
        engine.clock = { [unowned self] in SimulatedClock.epoch + now }
    }

    var kind: ScenarioTransport { .fileSync }
    var lanes: [String] { (0..<count).map(Self.lane) }

    static func lane(_ machine: Int) -> String { "machine \(machine + 1)" }

    // MARK: Devices

    func placement(of declaration: DeviceDeclaration, index: Int) -> (cloudRoot: String, mirrorsCloud: Bool) {
        machineOf[declaration.name] = index % count
        accounts[declaration.name] = declaration.account
        return (engine.clouds[index % count], false)
    }

    func attach(_ device: String, directory: String, mirrorsCloud: Bool, plan: FaultPlan, seed: UInt64) {
        order.append(device)
        let machine = machineOf[device]!
        synced[device] = generation[machine]
        engine.carried[machine] = Set(devices(on: machine).compactMap { accounts[$0] })
        guard plans[machine] == nil else { return }
        plans[machine] = plan
        var shown = plan
        shown.skew = 0...0   // the devices' clocks, not the machine's
        if !shown.isQuiet { journal.append(.faultPlan(shown, time: now, device: Self.lane(machine))) }
    }

    func deviceWrote(_ device: String, at now: Double) {
        let machine = machineOf[device]!
        let upToDate = synced[device] == generation[machine]
        changed(machine, at: now)
        if upToDate { synced[device] = generation[machine] }
    }

    func deviceSynced(_ device: String) { synced[device] = generation[machineOf[device]!] }

    func carry(_ account: String?, for device: String, at now: Double) {
        let machine = machineOf[device]!
        accounts[device] = account
        let carried = Set(devices(on: machine).compactMap { accounts[$0] })
        guard carried != engine.carried[machine] else { return }
        engine.carried[machine] = carried
        // What changed in an account while the machine did not carry it is scanned now, and
        // what it lacks of one it carries again is pulled.
        mustSchedule = true
        scanDue[machine] = min(scanDue[machine] ?? .infinity, now + Self.watchDelay)
    }

    func filesChanged(under root: String, at now: Double) {
        guard let machine = engine.clouds.firstIndex(of: root) else { return }
        changed(machine, at: now)
    }

    /// Files of `machine` changed on it: its apps have news and it scans soon.
    private func changed(_ machine: Int, at now: Double) {
        generation[machine] += 1
        changes[machine] += 1
        scanDue[machine] = min(scanDue[machine] ?? .infinity, now + Self.watchDelay)
    }

    // MARK: Time

    func nextWake(after now: Double, stalledToo: Bool) -> Double? {
        var wakes: [Double] = []
        if mustSchedule || scheduledSequence != engine.sequence { wakes.append(now) }
        for machine in 0..<count {
            if let until = offlineUntil[machine] {
                if until.isFinite { wakes.append(until) }
                continue   // cut off: nothing moves on it until it is back
            }
            if let due = scanDue[machine] { wakes.append(due) }
            if let due = deliveries[machine].values.lazy.map(\.due).min() { wakes.append(due) }
        }
        return wakes.min().map { max($0, now) }
    }

    func round(now: Double) -> Set<String> {
        self.now = now
        var arrived: Set<Int> = []
        for machine in 0..<count {
            if let until = offlineUntil[machine], now >= until { reconnect(machine) }
        }
        for machine in 0..<count where offlineUntil[machine] == nil {
            guard let plan = plans[machine], plan.offlineRate > 0, Double.random(in: 0..<1, using: &random) < plan.offlineRate else { continue }
            stats[machine].offlineWindows += 1
            cut(machine, until: now + draw(plan.offlineFor))
        }
        for machine in 0..<count where offlineUntil[machine] == nil {
            guard let due = scanDue[machine], due <= now else { continue }
            scanDue[machine] = nil
            if scan(machine) { arrived.insert(machine) }
        }
        if mustSchedule || scheduledSequence != engine.sequence { schedule() }
        for machine in 0..<count where offlineUntil[machine] == nil {
            let plan = plans[machine] ?? FaultPlan()
            var due = deliveries[machine].filter { $0.value.due <= now }.map(\.key).sorted()
            if plan.reorder { due.shuffle(using: &random) }
            for path in due {
                guard let entry = deliveries[machine][path] else { continue }
                let landed = entry.underWay ? finish(path, on: machine, entry, plan: plan) : begin(path, on: machine, entry, plan: plan)
                if landed { arrived.insert(machine) }
            }
        }
        for machine in arrived {
            generation[machine] += 1
            changes[machine] += 1
        }
        return Set(order.filter { synced[$0] != generation[machineOf[$0]!] })
    }

    /// Scans `machine` and notes what it published; true when the scan changed its files (a
    /// conflict copy took a device's file aside or brought the other version in).
    private func scan(_ machine: Int) -> Bool {
        let result = engine.scan(machine)
        stats[machine].uploads += result.published.count
        stats[machine].bytesUp += result.bytes
        for path in result.published { note(machine, .upload, path, "published") }
        for path in result.deleted { note(machine, .deleteInCloud, path, "deletion published") }
        guard !result.conflictCopies.isEmpty else { return false }
        stats[machine].conflictCopies += result.conflictCopies.count
        for path in result.conflictCopies { note(machine, .conflictCopy, path, "conflict copy") }
        // The copies are new files here: the next scan publishes them.
        scanDue[machine] = min(scanDue[machine] ?? .infinity, now + Self.watchDelay)
        return true
    }

    /// Every path a connected machine lacks and has no delivery for gets one, due after its plan's delay.
    private func schedule() {
        scheduledSequence = engine.sequence
        mustSchedule = false
        for machine in 0..<count where offlineUntil[machine] == nil {
            let delay = plans[machine]?.delay ?? 0...0
            for path in engine.pending(machine) where deliveries[machine][path] == nil {
                deliveries[machine][path] = Scheduled(due: now + draw(delay))
            }
        }
    }

    /// Starts a delivery (a deletion is done at once); true when files the apps see changed.
    private func begin(_ path: String, on machine: Int, _ entry: Scheduled, plan: FaultPlan) -> Bool {
        var entry = entry
        guard engine.needs(machine, path) else {
            if entry.leftTemporary { engine.removeTemporary(machine, path) }
            deliveries[machine][path] = nil
            return false
        }
        if plan.loseRate > 0, Double.random(in: 0..<1, using: &random) < plan.loseRate {
            engine.lose(machine, path)
            stats[machine].lost += 1
            deliveries[machine][path] = nil
            note(machine, .lost, path, "LOST: recorded as delivered, never written")
            return false
        }
        let deletion = engine.global[path]?.bytes == nil
        let part = !deletion && plan.truncateRate > 0 && Double.random(in: 0..<1, using: &random) < plan.truncateRate
        let (partsBefore, deletionsBefore) = (engine.partialsShown, engine.deletionsDelivered)
        guard engine.begin(machine, path, showingPart: part) else {
            // Changed here and not scanned yet: the machine's scan decides first.
            let scan = min(scanDue[machine] ?? .infinity, now + Self.watchDelay)
            scanDue[machine] = scan
            entry.due = scan + 1
            deliveries[machine][path] = entry
            return false
        }
        if deletion {
            deliveries[machine][path] = nil
            guard engine.deletionsDelivered > deletionsBefore else { return false }
            stats[machine].deletions += 1
            note(machine, .deleteInMirror, path, "deleted")
            return true
        }
        entry.underWay = true
        entry.leftTemporary = false
        entry.due = now + draw(plan.reorder ? Self.reorderedTransferTime : Self.transferTime)
        deliveries[machine][path] = entry
        guard engine.partialsShown > partsBefore else {
            changes[machine] += 1   // a temporary file: nothing for the apps
            return false
        }
        stats[machine].truncations += 1
        note(machine, .fault, path, "a part shown under the final name; the whole file follows")
        return true
    }

    /// Renames a delivery into place, unless the connection breaks; true when it landed.
    private func finish(_ path: String, on machine: Int, _ entry: Scheduled, plan: FaultPlan) -> Bool {
        var entry = entry
        if plan.dropRate > 0, Double.random(in: 0..<1, using: &random) < plan.dropRate {
            engine.abandon(machine, path)
            stats[machine].drops += 1
            entry.underWay = false
            entry.leftTemporary = true
            entry.due = now + draw(plan.retryAfter)
            deliveries[machine][path] = entry
            note(machine, .fault, path, "connection lost: the temporary file stays, tried again later")
            return false
        }
        deliveries[machine][path] = nil
        let size = engine.global[path]?.bytes?.count ?? 0
        guard engine.finish(machine, path) else {
            mustSchedule = true   // void (a newer version came, or the file changed here): pulled again if still lacking
            changes[machine] += 1
            return false
        }
        stats[machine].downloads += 1
        stats[machine].bytesDown += Int64(size)
        note(machine, .download, path, "\(size) bytes")
        return true
    }

    func takeJournal() -> [TransferRecord] {
        defer { journal.removeAll() }
        return journal
    }

    func isCaughtUp(_ device: String, at now: Double) -> Bool {
        let machine = machineOf[device]!
        return offlineUntil[machine] == nil && engine.pending(machine).isEmpty && engine.deliveriesUnderWay(to: machine) == 0
    }

    func rescan(at now: Double) {
        for machine in 0..<count { scanDue[machine] = min(scanDue[machine] ?? .infinity, now) }
    }

    func pendingWork() -> [String] {
        (0..<count).compactMap { machine in
            var parts: [String] = []
            let waiting = deliveries[machine].count
            if waiting > 0 { parts.append("\(waiting) deliveries waiting") }
            if scanDue[machine] != nil { parts.append("a scan due") }
            if offlineUntil[machine] != nil { parts.append("cut off") }
            return parts.isEmpty ? nil : "\(Self.lane(machine)): " + parts.joined(separator: ", ")
        }
    }

    // MARK: Steps

    func canGoOffline(_ device: String) -> Bool { true }

    func isOffline(_ device: String, at now: Double) -> Bool {
        offlineUntil[machineOf[device]!].map { now < $0 } ?? false
    }

    func setConnected(_ connected: Bool, _ device: String, at now: Double) {
        self.now = now
        let machine = machineOf[device]!
        if connected { reconnect(machine) } else { cut(machine, until: .infinity) }
    }

    private func cut(_ machine: Int, until: Double) {
        if let current = offlineUntil[machine] {
            offlineUntil[machine] = max(current, until)
            return
        }
        offlineUntil[machine] = until
        engine.online[machine] = false
        let text = until.isFinite ? "cut off until +\(SimulatedDuration.text(until))" : "cut off"
        note(machine, .offline, "", text)
        for device in devices(on: machine) { journal.append(TransferRecord(time: now, device: device, kind: .offline, path: "", detail: "\(Self.lane(machine)) \(text)")) }
    }

    private func reconnect(_ machine: Int) {
        guard offlineUntil[machine] != nil else { return }
        offlineUntil[machine] = nil
        engine.online[machine] = true
        mustSchedule = true
        note(machine, .online, "", "connected")
        for device in devices(on: machine) { journal.append(TransferRecord(time: now, device: device, kind: .online, path: "", detail: "\(Self.lane(machine)) connected")) }
    }

    private func devices(on machine: Int) -> [String] { order.filter { machineOf[$0] == machine } }

    func setFaults(_ pairs: [(key: String, value: String?)], for device: String?, at now: Double) {
        let machines = device.map { [machineOf[$0]!] } ?? Array(0..<count)
        for machine in machines {
            var plan = plans[machine] ?? FaultPlan()
            for (key, value) in pairs { _ = plan.set(key, value) }
            plans[machine] = plan
            journal.append(.faultPlan(plan, time: now, device: Self.lane(machine)))
        }
    }

    /// Never called: `FileSyncPlan` refuses a scenario with a quota before it starts.
    func setQuota(_ bytes: Int64?) {}

    /// The device's own logs that its machine holds and no other machine does: what the engine
    /// has yet to carry anywhere.
    func uploadsWaiting(_ device: String, account: String?, logFolder: String) -> Int {
        guard let account else { return 0 }
        let machine = machineOf[device]!
        let mine = tree(at: engine.clouds[machine], of: account).logNumbers[logFolder] ?? []
        let elsewhere = (0..<count).filter { $0 != machine }.reduce(into: Set<Int64>()) {
            $0.formUnion(tree(at: engine.clouds[$1], of: account).logNumbers[logFolder] ?? [])
        }
        return mine.subtracting(elsewhere).count
    }

    func isStalled(_ device: String) -> Bool { false }

    func carries(_ device: String) -> Bool { true }

    // MARK: What the checks read

    func cloudRoots(reachable: Bool) -> [String] {
        (0..<count).filter { !reachable || offlineUntil[$0] == nil }.map { engine.clouds[$0] }
    }

    func tree(at root: String, of token: String) -> FileTree {
        guard let machine = engine.clouds.firstIndex(of: root) else { return FileTree.list(root, under: token) }
        let key = "\(machine)/\(token)"
        if let cached = trees[key], cached.changes == changes[machine] { return cached.tree }
        let tree = FileTree.list(root, under: token)
        trees[key] = (changes[machine], tree)
        return tree
    }

    func localRoot(of device: String) -> String? { nil }

    func damageRoot(of device: String) -> String { engine.clouds[machineOf[device]!] }

    // MARK: The report

    func statistics(of device: String) -> TransferStatistics { stats[machineOf[device]!] }

    var totalStatistics: TransferStatistics { stats.reduce(TransferStatistics(), +) }

    var machineSummaries: [MachineSummary] {
        (0..<count).map { machine in
            MachineSummary(name: Self.lane(machine), devices: devices(on: machine), transfers: stats[machine],
                           connected: offlineUntil[machine] == nil)
        }
    }

    func machine(of device: String) -> Int? { machineOf[device].map { $0 + 1 } }

    func finish(at now: Double) {}

    // MARK: Helpers

    /// A draw from `range`, in whole seconds (deliveries due at one second share a round).
    private func draw(_ range: ClosedRange<Double>) -> Double {
        guard range.lowerBound < range.upperBound else { return range.lowerBound.rounded(.up) }
        return Double.random(in: range, using: &random).rounded(.up)
    }

    private func note(_ machine: Int, _ kind: TransferRecord.Kind, _ path: String, _ detail: String) {
        journal.append(TransferRecord(time: now, device: Self.lane(machine), kind: kind, path: path, detail: detail))
    }
}
