import Ubiquity

// Letting simulated time pass: the transport moves what is due, apps get time for their
// background imports and, with auto-sync, import what arrived.
extension ScenarioRunner {
    /// The most rounds at one instant before transfers are judged to never settle.
    static let roundsPerInstant = 10_000
    /// A running app imports what arrived at most this often (simulated seconds), as Core
    /// Data coalesced the daemon's notifications: a burst of files is one import.
    static let autoSyncInterval = 5.0

    /// When a device with news next imports.
    func syncWake(_ device: RunDevice) -> Double? {
        guard autoSync, device.running, device.hasNews else { return nil }
        return device.lastAutoSync + Self.autoSyncInterval
    }

    /// The next moment the transport or an app has something to do (`stalledToo`: counting
    /// transfers that wait only on a quota).
    func nextWake(after now: Double, stalledToo: Bool = true) -> Double? {
        // Asked at every moment: a plain loop (a debug build runs `map` and `compactMap` as generic code).
        var earliest = transport.nextWake(after: now, stalledToo: stalledToo)
        for name in names {
            guard let wake = syncWake(devices[name]!) else { continue }
            if earliest == nil || wake < earliest! { earliest = wake }
        }
        return earliest
    }

    /// Moves time to `target`, waking at every moment the transport has something to do.
    func advance(to target: Double) throws {
        var sameInstant = 0
        while violations.isEmpty {
            let now = clock.seconds
            let wake = nextWake(after: now)
            guard let wake, wake <= target else {
                clock.advance(to: target)
                try tick()
                return
            }
            sameInstant = wake <= now ? sameInstant + 1 : 0
            if sameInstant > Self.roundsPerInstant {
                return violate("transfers never settle at +\(SimulatedDuration.text(now)): the daemons keep finding changes")
            }
            clock.advance(to: wake)
            try tick()
        }
    }

    /// One instant: the transport does what is due, then every running app gets time.
    func tick() throws {
        let now = clock.seconds
        let news = transport.round(now: now)
        recordJournal()
        for name in names {
            let device = devices[name]!
            guard device.running, violations.isEmpty else { continue }
            // The system lets the initial import start once the container is downloaded.
            if transport.isCaughtUp(name, at: now) { try send(.runBackground, to: device) }
            if news.contains(name) { device.hasNews = true }
            if autoSync && device.hasNews && now >= device.lastAutoSync + Self.autoSyncInterval {
                device.lastAutoSync = now
                try syncApp(device)
            }
        }
    }

    /// The transport's news of the last moments, onto the timeline.
    func recordJournal() {
        for record in transport.takeJournal() {
            if let plan = record.plan {
                timeline.markFaultPlan(record.time, record.device, .faults(plan))
                continue
            }
            let what = record.path.isEmpty ? record.detail : "\(record.kind.rawValue) \(Self.shortPath(record.path)) \(record.detail)"
            timeline.mark(record.time, record.device, Self.kind(record.kind), what)
        }
    }

    /// The app imports (as a running app does when files arrive).
    func syncApp(_ device: RunDevice) throws {
        transport.deviceSynced(device.name)
        device.hasNews = false
        let reply = try send(.perform(.sync), to: device)
        if let error = reply.error { violate("\(device.name) could not sync: \(error)") }
    }

    /// Lets time pass, moment by moment, until `device` posts `event` (since its last
    /// `expect events`), or fails at `deadline`.
    func waitFor(_ event: String, on device: RunDevice, until deadline: Double) throws {
        let started = clock.seconds
        if hosts != nil { return try realWaitFor(event, on: device, within: deadline - started) }
        while violations.isEmpty && !device.transitionsSinceExpect.contains(event) {
            let now = clock.seconds
            guard now < deadline else {
                return violate("\(device.name) did not post \(event) within \(SimulatedDuration.text(deadline - started)); since its last expect events it posted [\(device.transitionsSinceExpect.joined(separator: ", "))]")
            }
            let wake = nextWake(after: now).map { max($0, now + 1) } ?? deadline
            try advance(to: min(wake, deadline))
        }
    }

    /// Lets time pass until nothing moves: no transfer waiting (but those of devices taken
    /// offline or refused over quota), no background import, and a sync on every running app
    /// imports nothing. Then checks the quiescent invariants.
    func settle() throws {
        if hosts != nil { return try realSettle() }
        let started = clock.seconds
        let limit = started + 30 * 86_400
        var rounds = 0
        while violations.isEmpty {
            rounds += 1
            guard rounds < 100_000, clock.seconds <= limit else {
                return violate("did not settle within \(SimulatedDuration.text(clock.seconds - started)) (\(rounds) rounds): \(pendingWork())")
            }
            let now = clock.seconds
            if let wake = nextWake(after: now, stalledToo: false) {
                try advance(to: max(wake, now))
                continue
            }
            // Nothing in flight: one more sync everywhere and a look at every copy for changes
            // nobody announced; if that moves nothing, it is settled.
            var moved = false
            for name in names where devices[name]!.running && violations.isEmpty {
                let device = devices[name]!
                let background = transport.isCaughtUp(name, at: clock.seconds) ? try send(.runBackground, to: device) : DeviceReply()
                transport.deviceSynced(name)
                let reply = try send(.perform(.sync), to: device)
                if let error = reply.error { violate("\(device.name) could not sync: \(error)") }
                moved = moved || !background.events.isEmpty || !reply.events.isEmpty || !reply.saves.isEmpty
            }
            transport.rescan(at: clock.seconds)
            try tick()
            if !moved && transport.nextWake(after: clock.seconds, stalledToo: false) == nil { break }
        }
        if violations.isEmpty { try checkQuiescent() }
    }

    /// What keeps a scenario from settling, for the message.
    func pendingWork() -> String {
        let busy = transport.pendingWork()
        return busy.isEmpty ? "devices keep importing" : busy.joined(separator: "; ")
    }

    static func kind(_ kind: TransferRecord.Kind) -> Timeline.Kind {
        switch kind {
        case .upload: return .upload
        case .download: return .download
        case .deleteInCloud, .deleteInMirror: return .deletion
        case .duplicate, .fault, .lost: return .fault
        case .faultPlan: return .faultPlan
        case .conflictCopy: return .note
        case .offline: return .offline
        case .online: return .online
        }
    }

    /// `<account>/…/<peer>/Notes/<hash>/0000000003-….1.cdt` → `<account>:<peer…>/3`, a receipt
    /// `<account>:<peer…>/receipt.0.cdt`, anything else `<account>:<last two components>`.
    static func shortPath(_ path: String) -> String {
        // Every transfer is journaled: an ASCII path is split on bytes (where bytes and characters
        // split alike), not on characters, in a plain pointer loop (a debug build runs `split`
        // and `allSatisfy` as generic code, per byte).
        let parts = asciiComponents(path) ?? path.split(separator: "/").map(String.init)
        guard let name = parts.last, let account = parts.first else { return path }
        if parts.count >= 4, CloudNames.isValidPeerID(String(parts[parts.count - 4])) {
            return "\(account):\(parts[parts.count - 4].prefix(14))…/\(TransactionLog.transactionNumber(inFileName: name).map(String.init) ?? name)"
        }
        return "\(account):" + parts.suffix(2).joined(separator: "/")
    }

    /// The non-empty `/`-separated components of an ASCII `path`; `nil` when it is not ASCII.
    private static func asciiComponents(_ path: String) -> [String]? {
        var path = path
        return path.withUTF8 { bytes -> [String]? in
            guard let base = bytes.baseAddress else { return [] }
            var parts: [String] = [], start = 0, index = 0
            while index <= bytes.count {
                if index == bytes.count || base[index] == UInt8(ascii: "/") {
                    if index > start { parts.append(String(decoding: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)) }
                    start = index + 1
                } else if base[index] >= 0x80 {
                    return nil
                }
                index += 1
            }
            return parts
        }
    }
}
