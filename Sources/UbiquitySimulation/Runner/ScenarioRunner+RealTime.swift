import Foundation
import Ubiquity
#if canImport(Glibc)
import Glibc
#endif

/// What the runner knows of the Syncthing hosts while it gives them real time.
struct RealTimeState {
    /// Each host's files when last looked at, and a count that moves whenever they change: a
    /// running app whose host moved since its last sync has news to import.
    var listings: [Int: HostListing] = [:]
    var generations: [Int: Int] = [:]
    var started = ContinuousClock.now
    var waits = 0
    var waitsAtLimit = 0

    /// Real seconds since the hosts were up.
    var elapsed: Double { Self.seconds(since: started) }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let duration = ContinuousClock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

// Time on Syncthing hosts. Devices keep the scenario's simulated clock for their stamps, but
// files travel in real time, so `wait`, `wait-for` and `settle` give Syncthing real time: the
// runner looks at every host's files every poll interval, lets each running app import what
// its host received and start its background work once its host holds what the others hold,
// and stops as soon as the hosts are quiet. Simulated time runs along with real time meanwhile;
// a `wait` then jumps to its end. Real time is bounded everywhere (SyncthingOptions).
extension ScenarioRunner {
    enum RealTimeEnd { case done, quiet, limit }

    var syncthingOptions: SyncthingOptions { options.syncthing ?? SyncthingOptions() }

    /// `wait D`: up to min(D, the wait limit) of real time, less once the hosts are quiet; a
    /// wait that runs into its limit is marked on the timeline (later expectations say whether
    /// it mattered).
    func realWait(_ seconds: Double) throws {
        let target = clock.seconds + seconds
        let limit = min(seconds, syncthingOptions.waitLimit)
        let end = try giveRealTime(limit: limit, ceiling: target)
        realTime.waits += 1
        if end == .limit {
            realTime.waitsAtLimit += 1
            timeline.mark(clock.seconds, "cloud", .note, "the wait gave Syncthing \(SimulatedDuration.text(limit)) of real time and the hosts were still busy: \(hostsBusy())")
        }
        clock.advance(to: target)
    }

    /// `DEVICE wait-for EVENT within D`: real time until the device posts the event, at most
    /// min(D, the settle limit); hosts that go quiet without it end the wait at once.
    func realWaitFor(_ event: String, on device: RunDevice, within: Double) throws {
        let limit = min(within, syncthingOptions.settleLimit)
        let end = try giveRealTime(limit: limit, ceiling: clock.seconds + within) { device.transitionsSinceExpect.contains(event) }
        guard violations.isEmpty, end != .done else { return }
        let why = end == .quiet ? "the hosts went quiet without it" : "after \(SimulatedDuration.text(limit)) of real time: \(hostsBusy())"
        violate("\(device.name) did not post \(event) within \(SimulatedDuration.text(within)) (\(why)); since its last expect events it posted [\(device.transitionsSinceExpect.joined(separator: ", "))]")
    }

    /// `settle`: real time until the hosts are quiet and one more sync of every running app moves
    /// nothing, then the quiescent checks. Past the settle limit it is a violation saying what
    /// still moved.
    func realSettle() throws {
        let began = ContinuousClock.now
        let limit = syncthingOptions.settleLimit
        while violations.isEmpty {
            let end = try giveRealTime(limit: max(0, limit - RealTimeState.seconds(since: began)), ceiling: .infinity)
            guard violations.isEmpty else { return }
            guard end == .quiet else { return violate("did not settle within \(SimulatedDuration.text(limit)) of real time: \(hostsBusy())") }
            var moved = false
            for name in names where devices[name]!.running && violations.isEmpty {
                let device = devices[name]!
                let background = isCaughtUp(device) ? try send(.runBackground, to: device) : DeviceReply()
                let reply = try send(.perform(.sync), to: device)
                if let error = reply.error { violate("\(device.name) could not sync: \(error)") }
                moved = moved || !background.events.isEmpty || !background.saves.isEmpty || !reply.events.isEmpty || !reply.saves.isEmpty
            }
            look()
            if !moved && hostsAgree() { break }
        }
        if violations.isEmpty { try checkQuiescent() }
    }

    /// Gives Syncthing real time, at most `limit` seconds, with simulated time running along
    /// (never past `ceiling`). Ends when `done` holds, or when the hosts are quiet: every host
    /// not cut off holds the same files and a whole round found nothing to import and no
    /// background work that did anything.
    func giveRealTime(limit: Double, ceiling: Double, until done: () -> Bool = { false }) throws -> RealTimeEnd {
        let began = ContinuousClock.now
        let simulatedStart = clock.seconds
        while violations.isEmpty {
            if done() { return .done }
            let elapsed = RealTimeState.seconds(since: began)
            clock.advance(to: min(ceiling, simulatedStart + elapsed))
            look()
            var moved = false
            for name in names where violations.isEmpty {
                let device = devices[name]!
                guard device.running, let host = device.syncthingHost else { continue }
                // As iOS started the initial import once the container was downloaded.
                if isCaughtUp(device) {
                    let reply = try send(.runBackground, to: device)
                    moved = moved || !reply.events.isEmpty || !reply.saves.isEmpty
                }
                let generation = realTime.generations[host] ?? 0
                if autoSync && device.syncedGeneration != generation {
                    // Its host's files changed (arrivals, or its own writes): a running app imports.
                    device.syncedGeneration = generation
                    let reply = try send(.perform(.sync), to: device)
                    if let error = reply.error { violate("\(device.name) could not sync: \(error)") }
                    moved = true
                }
            }
            if done() { return .done }
            if !moved && hostsAgree() { return .quiet }
            if elapsed >= limit { return .limit }
            usleep(UInt32(max(0.01, syncthingOptions.pollInterval) * 1_000_000))
        }
        return .done
    }

    /// Lists every host's cloud; a host whose files changed gets a new generation.
    func look() {
        guard let hosts else { return }
        for host in 1...hosts.count {
            let listing = HostListing.of(hosts.cloud(of: host))
            if realTime.listings[host] != listing {
                realTime.listings[host] = listing
                realTime.generations[host, default: 0] += 1
            }
        }
    }

    /// Hosts not cut off, by number.
    func reachableHosts() -> [Int] {
        guard let hosts else { return [] }
        return (1...hosts.count).filter { !hosts.isCut($0) }
    }

    /// The accounts whose files some host not cut off held at the last look.
    func accountsOnHosts() -> [String] {
        Set(reachableHosts().flatMap { host in
            (realTime.listings[host]?.files.keys ?? [:].keys).compactMap { $0.split(separator: "/").first.map(String.init) }
        }).sorted()
    }

    /// Every host not cut off that carries an account held the same files of it at the last
    /// look (a host carries only the account its device is signed in to, as iCloud did).
    func hostsAgree() -> Bool {
        accountsOnHosts().allSatisfy { disagreement(on: $0) == nil }
    }

    /// Two hosts that carry `account` and held its files differently at the last look, with the
    /// paths they differ on.
    func disagreement(on account: String) -> (Int, Int, [String])? {
        let carrying = hostsCarrying(account)
        guard let first = carrying.first else { return nil }
        let reference = HostListing(files: realTime.listings[first]?.account(account) ?? [:])
        for other in carrying.dropFirst() {
            let differ = reference.differences(from: HostListing(files: realTime.listings[other]?.account(account) ?? [:]))
            if !differ.isEmpty { return (first, other, differ) }
        }
        return nil
    }

    /// Whether `device`'s host holds every file of its account that the other hosts carrying it
    /// hold (a host cut off is never caught up: it cannot know what it lacks).
    func isCaughtUp(_ device: RunDevice) -> Bool {
        guard let hosts, let host = device.syncthingHost, !hosts.isCut(host) else { return false }
        guard let account = device.account else { return true }
        let mine = realTime.listings[host]?.account(account) ?? [:]
        return hostsCarrying(account).allSatisfy { $0 == host || (realTime.listings[$0]?.account(account) ?? [:]) == mine }
    }

    /// What kept the hosts busy at the last look, for messages.
    func hostsBusy() -> String {
        let parts = accountsOnHosts().compactMap { account in
            disagreement(on: account).map { first, other, differ in
                "\(hostLabel(first)) and \(hostLabel(other)) hold \(differ.count) file(s) of '\(account)' differently (\(differ.prefix(3).map(Self.shortPath).joined(separator: ", ")))"
            }
        }
        return parts.isEmpty ? "the hosts hold the same files, but the apps kept importing or saving" : parts.joined(separator: "; ")
    }

    /// `host 2 (ipad)`.
    func hostLabel(_ host: Int) -> String {
        let device = names.first { devices[$0]?.syncthingHost == host }
        return "host \(host)" + (device.map { " (\($0))" } ?? "")
    }
}
