/// What the runner asks of whatever carries files between the devices' copies of the cloud on
/// simulated time — the emulated iCloud daemons (`ICloudTransport`) or a file-sync engine
/// between machines (`FileSyncTransport`) — so it never asks which one it has. Devices are
/// named as the scenario names them; times are simulated seconds since the start.
protocol Transport: AnyObject {
    /// `icloud` or `file-sync`, for the report and the replay command.
    var kind: ScenarioTransport { get }
    /// Timeline lanes of its own (machines), drawn after the devices'.
    var lanes: [String] { get }

    // MARK: Devices

    /// Where the `index`-th device reads and writes the cloud, and whether through a mirror of
    /// its own (`Device.create(…, mirrorsCloud:)`).
    func placement(of declaration: DeviceDeclaration, index: Int) -> (cloudRoot: String, mirrorsCloud: Bool)
    /// Takes in a device made at `directory` under `plan` (its daemon's generator is seeded from `seed`).
    func attach(_ device: String, directory: String, mirrorsCloud: Bool, plan: FaultPlan, seed: UInt64)
    /// The device wrote into its copy of the cloud (or its mirror).
    func deviceWrote(_ device: String, at now: Double)
    /// The device's app just imported: what had arrived for it is no longer news.
    func deviceSynced(_ device: String)
    /// The device switches to `account` (`nil`: signs out), before its app saves in will-change.
    func carry(_ account: String?, for device: String, at now: Double)
    /// Something other than a device changed the files under `root` (damage done on purpose).
    func filesChanged(under root: String, at now: Double)

    // MARK: Time

    /// When it next has something to do (`nil`: nothing until something changes); with
    /// `stalledToo`, work that waits only on a quota counts as well.
    func nextWake(after now: Double, stalledToo: Bool) -> Double?
    /// Does what is due at `now`; returns the devices that have news (files arrived or went).
    func round(now: Double) -> Set<String>
    /// What happened since the last call, oldest first, for the timeline.
    func takeJournal() -> [TransferRecord]
    /// Whether the device holds everything the others published (apps start their initial
    /// import only then, as iOS did once the container was downloaded).
    func isCaughtUp(_ device: String, at now: Double) -> Bool
    /// Looks at every copy again at the next round, for changes no device announced (a write
    /// the app's answer did not report), as Syncthing's periodic full scan does; `settle` asks
    /// for it before it judges the transport quiet.
    func rescan(at now: Double)
    /// Why it is not quiet yet, for a settle that never ends.
    func pendingWork() -> [String]

    // MARK: Steps

    /// Whether `DEVICE offline` means anything for the device.
    func canGoOffline(_ device: String) -> Bool
    func isOffline(_ device: String, at now: Double) -> Bool
    /// `DEVICE offline` / `online`.
    func setConnected(_ connected: Bool, _ device: String, at now: Double)
    /// A `faults` step for one device (`nil`: every device).
    func setFaults(_ pairs: [(key: String, value: String?)], for device: String?, at now: Double)
    func setQuota(_ bytes: Int64?)
    /// Uploads of the device still waiting (`expect uploads-waiting`); `logFolder` is its log
    /// folder in `account`, relative to the cloud's root.
    func uploadsWaiting(_ device: String, account: String?, logFolder: String) -> Int
    /// Only uploads refused over quota are left for the device.
    func isStalled(_ device: String) -> Bool
    /// Whether the device's files travel through this transport (false: it writes the shared
    /// cloud itself, so nothing of it can wait for upload).
    func carries(_ device: String) -> Bool

    // MARK: What the checks read

    /// Every copy of the cloud (`reachable`: only those whose files the running peers can get).
    func cloudRoots(reachable: Bool) -> [String]
    /// The files of account `token` in the copy at `root` (cached where the transport can tell
    /// that nothing changed).
    func tree(at root: String, of token: String) -> FileTree
    /// The device's own copy besides the cloud (its mirror), where saved logs may wait.
    func localRoot(of device: String) -> String?
    /// The copy of the cloud `corrupt-log` damages for the device.
    func damageRoot(of device: String) -> String

    // MARK: The report

    func statistics(of device: String) -> TransferStatistics
    var totalStatistics: TransferStatistics { get }
    /// Per machine (file-sync), for the report; empty for the iCloud daemons.
    var machineSummaries: [MachineSummary] { get }
    /// The machine a device is on (file-sync).
    func machine(of device: String) -> Int?
    /// Writes what a device's daemon reports for `ubiq status`, at the end of the run.
    func finish(at now: Double)
}
