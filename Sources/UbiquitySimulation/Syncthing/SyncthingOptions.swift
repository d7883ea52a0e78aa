/// How a scenario runs on Syncthing hosts (`ScenarioOptions.syncthing`, `--syncthing`).
///
/// Transfers take real time there, so the runner gives Syncthing real time at every `wait`,
/// `wait-for` and `settle`; these limits keep a run bounded.
public struct SyncthingOptions: Sendable {
    /// `scripts/syncthing-hosts.sh`, which makes and removes the hosts; `nil`: found from the
    /// package folder (`SyncthingHosts.script(executable:)`).
    public var script: String?
    /// The most real seconds a `wait` gives Syncthing; it ends sooner once the hosts are quiet
    /// (and never lasts longer than its own simulated duration).
    public var waitLimit = 30.0
    /// The most real seconds a `settle` or a `wait-for` may take; past it, the run fails with
    /// what was still moving.
    public var settleLimit = 120.0
    /// Hosts as Syncthing instances on loopback ports even where network namespaces work.
    public var loopback = false
    /// How often (real seconds) the runner looks at the hosts' files while it waits.
    public var pollInterval = 0.2

    public init() {}
}
