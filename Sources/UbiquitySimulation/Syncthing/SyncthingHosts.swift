import Foundation
import Synchronization
import Ubiquity
#if canImport(Glibc)
import Glibc
#endif

/// Emulated machines that share the cloud through Syncthing, made and removed by
/// `scripts/syncthing-hosts.sh` (Docs/MultiMachine.md): host I is a network namespace (or, without
/// root, a Syncthing instance on loopback ports) with its own copy of the cloud at
/// `<root>/hI/cloud`. The script stays the one place that knows how to set Syncthing up; this
/// type runs it, remembers which hosts are cut off, and makes sure the hosts go away — when
/// `stop()` is called, and through a watchdog process when this process dies without calling it
/// (a signal, a crash), since Syncthing runs in sessions of its own and would outlive it.
public final class SyncthingHosts: Sendable {
    /// How the hosts are separated.
    public enum Mode: String, Sendable {
        /// Network namespaces joined by a bridge; a host is cut off by taking its link down.
        case netns
        /// Instances on loopback ports; a host is cut off by pausing its Syncthing devices.
        case loopback
    }

    /// The hosts' folder (the script's `MM_ROOT`).
    public let root: String
    public let count: Int
    public var mode: Mode { state.withLock { $0.mode } }
    private let script: String
    private let environment: [String: String]

    private struct State {
        var mode = Mode.loopback
        var cutOff: Set<Int> = []
        /// The account each host carries (absent: every account, as the script set it up).
        var carried: [Int: String?] = [:]
        var watchdog: ChildProcess?
        var stopped = false
    }
    private let state = Mutex(State())

    /// The longest one call of the script may take; its own waits are shorter (60 s to connect,
    /// 90 s to reconnect, 10 s per process to stop), so this only catches a hung command.
    static let scriptLimit = 240.0

    /// Starts `count` hosts (2–9) under `root` and waits until every Syncthing is connected to
    /// every other. Throws `SyncthingUnavailable` when this machine cannot run them.
    public static func start(count: Int, root: String, script: String, loopback: Bool = false) throws -> SyncthingHosts {
        guard (2...9).contains(count) else { throw SimulationError("Syncthing hosts: between 2 and 9, not \(count)") }
        guard DirectoryEntry.at(script)?.isRegularFile == true else { throw SyncthingUnavailable("no hosts script at \(script)") }
        for tool in ["syncthing", "python3", "bash"] where findExecutable(tool) == nil {
            throw SyncthingUnavailable(tool == "syncthing"
                ? "syncthing is not installed (apt-get install syncthing); it carries the cloud between the hosts"
                : "\(tool) is not installed; scripts/syncthing-hosts.sh needs it")
        }
        try AtomicFile.makeDirectory(root)
        let hosts = SyncthingHosts(count: count, root: root, script: script, loopback: loopback)
        hosts.startWatchdog()
        do {
            try hosts.runScript(["up", String(count)])
            let recorded = (try? String(contentsOfFile: root + "/env", encoding: .utf8)) ?? ""
            hosts.state.withLock { $0.mode = recorded.contains("MM_MODE=netns") ? .netns : .loopback }
        } catch {
            hosts.stop()
            if let problem = hosts.logTail().first(where: { $0.hasPrefix("skip:") }) { throw SyncthingUnavailable(String(problem.dropFirst(5)).trimmingCharacters(in: .whitespaces)) }
            throw error
        }
        return hosts
    }

    private init(count: Int, root: String, script: String, loopback: Bool) {
        self.count = count
        self.root = root
        self.script = script
        // Names and ports of our own, so that these hosts never meet another set running at
        // the same time (another scenario, or scripts/multi-machine-test.sh).
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let prefix = "ubqs" + String((0..<6).map { _ in letters.randomElement()! })
        var environment = ProcessInfo.processInfo.environment
        environment["MM_ROOT"] = root
        environment["MM_PREFIX"] = prefix
        environment["MM_PORT_OFFSET"] = String(10 * Int.random(in: 1...199))
        // The work directory is removed after a run that passed and kept after one that failed.
        environment["MM_KEEP"] = "1"
        if loopback { environment["MM_LOOPBACK"] = "1" } else { environment.removeValue(forKey: "MM_LOOPBACK") }
        self.environment = environment
    }

    /// Host `host`'s copy of the cloud.
    public func cloud(of host: Int) -> String { root + "/h\(host)/cloud" }

    /// Where host `host`'s devices go.
    public func devices(of host: Int) -> String { root + "/h\(host)/devices" }

    /// The command prefix that runs a program on host `host` (empty on loopback hosts).
    public func launcher(for host: Int) -> [String] {
        mode == .netns ? ["ip", "netns", "exec", environment["MM_PREFIX"]! + "-h\(host)"] : []
    }

    public func isCut(_ host: Int) -> Bool { state.withLock { $0.cutOff.contains(host) } }

    /// Takes host `host` off the network: Syncthing there neither sends nor receives.
    public func cut(_ host: Int) throws {
        guard !isCut(host) else { return }
        try runScript(["cut", String(host)])
        state.withLock { _ = $0.cutOff.insert(host) }
    }

    /// Puts host `host` back and waits until it is connected again.
    public func heal(_ host: Int) throws {
        guard isCut(host) else { return }
        try runScript(["heal", String(host)])
        state.withLock { _ = $0.cutOff.remove(host) }
    }

    /// Lets host `host` carry only the account `token` (none when `nil`), as iCloud synced only
    /// the container of the account a device was signed in to: Syncthing there ignores every
    /// other account's folder and leaves its files as they are until the device comes back.
    /// Syncthing reads the ignore file again before its next scan, so files written after this
    /// call follow the new rule.
    public func carry(only token: String?, on host: Int) throws {
        if let current = state.withLock({ $0.carried[host] }), current == token { return }
        // As the script: our temporary files never travel, and may go with a removed folder.
        var lines = ["(?d)*.nosync"]
        if let token { lines.append("!/" + token.map { "*?[]{}\\".contains($0) ? "\\\($0)" : String($0) }.joined()) }
        lines.append("/*")
        try AtomicFile.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: cloud(of: host) + "/.stignore")
        state.withLock { $0.carried[host] = .some(token) }
    }

    /// Whether host `host` carries the account `token`.
    public func carries(_ token: String, on host: Int) -> Bool {
        state.withLock { $0.carried[host].map { $0 == token } ?? true }
    }

    /// Stops every Syncthing and removes the namespaces (the files stay). Safe to call twice.
    public func stop() {
        let (first, watchdog) = state.withLock { state -> (Bool, ChildProcess?) in
            defer { state.stopped = true }
            return (!state.stopped, state.watchdog)
        }
        guard first else { return }
        try? runScript(["down"])
        watchdog?.kill()
    }

    // MARK: Running the script

    /// Runs the script with `arguments`, its output appended to `<root>/hosts.log`.
    private func runScript(_ arguments: [String]) throws {
        let command = "\(script) \(arguments.joined(separator: " "))"
        let child = try ChildProcess(["bash", script] + arguments, environment: environment, log: root + "/hosts.log")
        guard let status = child.wait(limit: Self.scriptLimit) else {
            child.kill()
            throw SimulationError("\(command) did not finish within \(Int(Self.scriptLimit)) s (see \(root)/hosts.log)")
        }
        guard status == 0 else {
            throw SimulationError("\(command) failed (status \(status)): \(logTail().last ?? "") (see \(root)/hosts.log)")
        }
    }

    private func logTail() -> [String] {
        let text = (try? String(contentsOfFile: root + "/hosts.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).map(String.init)
    }

    /// A small shell that outlives this process by at most a second: when this process is gone
    /// without having stopped the hosts, it stops them. It ignores the terminal's interrupt, so
    /// Ctrl-C ends the run and still removes the hosts; `stop()` ends it by its id.
    private func startWatchdog() {
        let watchdog = try? ChildProcess(["bash", "-c", #"trap "" INT HUP; while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec bash "$2" down"#,
                                      "ubiq-hosts-watchdog", String(getpid()), script],
                                     environment: environment, log: root + "/hosts.log")
        state.withLock { $0.watchdog = watchdog }
    }

    /// The path of `name` on `$PATH`, if it is there.
    static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    /// `scripts/syncthing-hosts.sh`: `$UBIQUITY_SYNCTHING_HOSTS`, else in the current directory
    /// or in a folder above `executable` (a `swift build` product inside the package).
    public static func script(executable: String? = nil) -> String? {
        PackageFile.find("scripts/syncthing-hosts.sh", named: "UBIQUITY_SYNCTHING_HOSTS", executable: executable, directory: false)
    }
}

/// This machine cannot run Syncthing hosts (no Syncthing, no script): one line saying why.
public struct SyncthingUnavailable: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
