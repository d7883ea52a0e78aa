import Foundation

/// How to run a scenario.
public struct ScenarioOptions: Sendable {
    /// The seed; `nil`: the scenario's own.
    public var seed: UInt64?
    /// For scenarios declared with `peers N`: how many devices instead.
    public var peers: Int?
    /// The count of every `random` block instead of the scenario's.
    public var steps: Int?
    /// Run each device as its own OS process, started as `<executable> scenario device`
    /// (the `ubiq` binary); `nil`: every device in this process.
    public var deviceExecutable: String?
    /// Where the cloud and the devices go; `nil`: a new temporary directory.
    public var workDirectory: String?
    /// Keep the work directory after a run that passed (one that failed is always kept).
    public var keepWorkDirectory = false
    /// Apple's log level for the devices' own lines (0–3), on stderr or in each device's log
    /// file; `nil`: the devices log nothing (faults injected on purpose make many lines).
    public var logLevel: Int?
    /// Faults added on top of the scenario's, for every device (`--faults`, property tests).
    public var extraFaults: [(key: String, value: String?)] = []
    /// Called with each step's line as it starts (the CLI prints them when asked).
    public var onStep: (@Sendable (String) -> Void)?
    /// Called with a line saying how far the run is, every 10 s of wall time of a long run
    /// (`ubiq scenario run` prints it on stderr when that is a terminal).
    public var onProgress: (@Sendable (String) -> Void)?
    /// Run every device on a Syncthing host of its own, reading and writing that host's copy
    /// of the cloud, instead of through a mirror and the emulated daemon (Docs/Scenarios.md).
    public var syncthing: SyncthingOptions?
    /// How files travel between the devices' copies of the cloud: the emulated iCloud daemons
    /// (the default) or a file-sync engine between machines (Docs/Scenarios.md).
    public var transport = ScenarioTransport.icloud
    /// Under the file-sync transport: how many machines the devices are spread over, instead
    /// of the scenario's `machines` (default: 3, or fewer when there are fewer devices).
    public var machines: Int?
    /// Run with the content of every account encrypted: one content key for the run, kept on
    /// every device for every account before it launches or signs in (`--encrypted`).
    public var encrypted = false
    /// Whether each emulated iCloud daemon keeps its mirror's listing with inotify (the
    /// default) or walks the mirror at every scan (`UBIQUITY_DAEMON_WALK=1` in the
    /// environment): the same transfers either way, the walk is the reference.
    public var watchMirrors = ProcessInfo.processInfo.environment["UBIQUITY_DAEMON_WALK"] != "1"

    public init() {}
}
