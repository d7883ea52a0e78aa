import Ubiquity

/// The emulated iCloud (`--transport icloud`, the default): one shared cloud, and per device a
/// mirror its `TransferDaemon` syncs with it under the device's fault plan. A device declared
/// `direct` (and every device on Syncthing hosts) has no daemon and reads its cloud itself.
final class ICloudTransport: Transport {
    let cloud: EmulatedCloud
    private var order: [String] = []
    private var daemons: [String: TransferDaemon] = [:]
    private var directories: [String: String] = [:]
    /// Direct devices: the cloud generation each one last imported at.
    private var syncedGeneration: [String: Int] = [:]
    private var journal: [TransferRecord] = []

    /// Whether the daemons watch their mirrors (inotify) or walk them at every scan.
    private let watchMirrors: Bool

    init(cloud: EmulatedCloud, watchMirrors: Bool = true) {
        self.cloud = cloud
        self.watchMirrors = watchMirrors
    }

    var kind: ScenarioTransport { .icloud }
    var lanes: [String] { [] }

    // MARK: Devices

    func placement(of declaration: DeviceDeclaration, index: Int) -> (cloudRoot: String, mirrorsCloud: Bool) {
        (cloud.path, !declaration.direct)
    }

    func attach(_ device: String, directory: String, mirrorsCloud: Bool, plan: FaultPlan, seed: UInt64) {
        order.append(device)
        directories[device] = directory
        if mirrorsCloud {
            daemons[device] = TransferDaemon(name: device, device: directory, cloud: cloud, plan: plan, seed: seed, watchMirror: watchMirrors)
            if !plan.isQuiet { journal.append(.faultPlan(plan, time: 0, device: device)) }
        } else {
            syncedGeneration[device] = -1
        }
    }

    func deviceWrote(_ device: String, at now: Double) {
        if let daemon = daemons[device] { return daemon.noteMirrorChanged() }
        // A direct device wrote the cloud itself: the daemons look again, and it is no news to it.
        let upToDate = syncedGeneration[device] == cloud.generation
        cloud.didChange()
        if upToDate { syncedGeneration[device] = cloud.generation }
    }

    func deviceSynced(_ device: String) {
        if daemons[device] == nil { syncedGeneration[device] = cloud.generation }
    }

    /// Nothing to do: each daemon reads its device's account at its next round.
    func carry(_ account: String?, for device: String, at now: Double) {}

    func filesChanged(under root: String, at now: Double) { cloud.didChange() }

    // MARK: Time

    func nextWake(after now: Double, stalledToo: Bool) -> Double? {
        // Asked at every moment: a plain loop (a debug build runs `compactMap` as generic code).
        var earliest: Double?
        for device in order {
            guard let daemon = daemons[device], stalledToo || !daemon.isStalledByQuota, let wake = daemon.nextWake(after: now) else { continue }
            if earliest == nil || wake < earliest! { earliest = wake }
        }
        return earliest
    }

    func round(now: Double) -> Set<String> {
        var news: Set<String> = []
        for device in order {
            guard let daemon = daemons[device] else {
                if syncedGeneration[device] != cloud.generation { news.insert(device) }
                continue
            }
            if daemon.round(now: now) > 0 { news.insert(device) }
            journal += daemon.journal
            daemon.journal.removeAll()
        }
        return news
    }

    func takeJournal() -> [TransferRecord] {
        defer { journal.removeAll() }
        return journal
    }

    func isCaughtUp(_ device: String, at now: Double) -> Bool { daemons[device]?.isCaughtUp(at: now) ?? true }

    func rescan(at now: Double) {
        for device in order { daemons[device]?.noteMirrorChanged() }
    }

    func pendingWork() -> [String] {
        order.compactMap { device in
            guard let waiting = daemons[device]?.waiting, waiting.uploads + waiting.downloads > 0 else { return nil }
            return "\(device): \(waiting.uploads) up, \(waiting.downloads) down waiting"
        }
    }

    // MARK: Steps

    func canGoOffline(_ device: String) -> Bool { daemons[device] != nil }

    func isOffline(_ device: String, at now: Double) -> Bool { daemons[device]?.isOffline(at: now) ?? false }

    func setConnected(_ connected: Bool, _ device: String, at now: Double) {
        guard let daemon = daemons[device] else { return }
        if connected { daemon.online(at: now) } else { daemon.offline(at: now) }
        journal += daemon.journal
        daemon.journal.removeAll()
    }

    func setFaults(_ pairs: [(key: String, value: String?)], for device: String?, at now: Double) {
        for name in order where device == nil || device == name {
            guard let daemon = daemons[name] else { continue }
            for (key, value) in pairs { _ = daemon.plan.set(key, value) }
            journal.append(.faultPlan(daemon.plan, time: now, device: name))
        }
    }

    func setQuota(_ bytes: Int64?) {
        cloud.quotaBytes = bytes
        for device in order { daemons[device]?.quotaChanged() }
    }

    func uploadsWaiting(_ device: String, account: String?, logFolder: String) -> Int { daemons[device]?.waiting.uploads ?? 0 }

    func isStalled(_ device: String) -> Bool { daemons[device]?.isStalledByQuota ?? false }

    func carries(_ device: String) -> Bool { daemons[device] != nil }

    // MARK: What the checks read

    func cloudRoots(reachable: Bool) -> [String] { [cloud.path] }

    func tree(at root: String, of token: String) -> FileTree {
        root == cloud.path ? cloud.tree(of: token) : FileTree.list(root, under: token)
    }

    func localRoot(of device: String) -> String? {
        daemons[device] == nil ? nil : directories[device].map { $0 + "/Mobile Documents" }
    }

    func damageRoot(of device: String) -> String { cloud.path }

    // MARK: The report

    func statistics(of device: String) -> TransferStatistics { daemons[device]?.statistics ?? TransferStatistics() }

    var totalStatistics: TransferStatistics { order.reduce(TransferStatistics()) { $0 + statistics(of: $1) } }

    var machineSummaries: [MachineSummary] { [] }

    func machine(of device: String) -> Int? { nil }

    func finish(at now: Double) {
        for device in order {
            guard let daemon = daemons[device], let directory = directories[device] else { continue }
            try? daemon.status(now: now).save(device: directory)
        }
    }
}
