import Foundation
import Ubiquity

/// Several machines' copies of one cloud, kept in step the way Syncthing does it: a machine's
/// changes are found by a scan; the others pull them one file at a time, in any order, through
/// a visible `.syncthing.<name>.tmp` that is renamed into place, making parent folders on
/// arrival; deletions travel like any other change (often late); when two machines wrote one
/// path, the newer write keeps the name and the other becomes a `.sync-conflict-…` copy; a
/// modification wins over a deletion. `*.nosync` names never travel (the engine's ignore list).
///
/// The engine does only what it is told: tests drive it move by move (`scan`, `begin`,
/// `finish`, `deliver`, `settle`), and `FileSyncTransport` drives it on a scenario's simulated
/// time. Every choice it makes itself depends only on the files and the order of the calls, so
/// a seeded caller replays exactly.
///
/// With `exposesPartialFiles`, a delivery may first show a truncated file under its final name
/// (a tool that breaks the atomic-rename rule), to prove readers verify what they read.
public final class FileSyncEngine {
    /// One version of a path, as the machines agree on it.
    public struct Version: Sendable {
        /// `nil`: the path was deleted.
        public let bytes: [UInt8]?
        public let modificationTime: Double
        public let sequence: Int
    }

    /// What one scan found and did.
    public struct ScanResult: Sendable {
        /// Paths whose new content it published.
        public var published: [String] = []
        /// Paths whose deletion it published.
        public var deleted: [String] = []
        /// Conflict copies it wrote into the machine's copy (they travel after its next scan).
        public var conflictCopies: [String] = []
        public var bytes: Int64 = 0
    }

    private struct Delivery {
        let host: Int
        let path: String
        let version: Version
    }

    /// Each machine's copy of the cloud.
    public let clouds: [String]
    /// Machines cut off scan nothing, receive nothing and finish nothing.
    public var online: [Bool]
    /// Per machine: the top-level folders (accounts) it carries; `nil`: all. Files elsewhere
    /// are its ignore list: never scanned, sent or received, left as they are.
    public var carried: [Set<String>?]
    public var exposesPartialFiles = false
    /// The time a deletion is stamped with (seconds since 1970); `nil`: the wall clock.
    public var clock: (() -> Double)?
    public private(set) var global: [String: Version] = [:]
    /// Moves on every version published: a caller knows when to look at `pending` again.
    public private(set) var sequence = 0
    /// Per machine: the sequence of the version it holds of each path.
    private var have: [[String: Int]]
    /// Per machine: the paths it lacks the latest version of (kept as versions move, so
    /// `pending` costs nothing on a large cloud).
    private var lacking: [Set<String>]
    /// Per machine: each file as last scanned or delivered, to notice local changes.
    private var local: [[String: FileTree.Signature]]
    private var inFlight: [Delivery] = []
    /// What happened, for the tests to check that each situation really occurred.
    public private(set) var conflictCopiesMade = 0, deletionsDelivered = 0, temporariesShown = 0, partialsShown = 0

    public init(clouds: [String]) {
        self.clouds = clouds
        online = Array(repeating: true, count: clouds.count)
        carried = Array(repeating: nil, count: clouds.count)
        have = Array(repeating: [:], count: clouds.count)
        lacking = Array(repeating: [], count: clouds.count)
        local = Array(repeating: [:], count: clouds.count)
    }

    // MARK: Scanning

    /// Publishes what changed on machine `host` since its last scan.
    @discardableResult
    public func scan(_ host: Int) -> ScanResult {
        var result = ScanResult()
        guard online[host] else { return result }
        var present: Set<String> = []
        for (path, stamp) in files(host) {
            present.insert(path)
            guard local[host][path] != stamp, let bytes = try? AtomicFile.read(clouds[host] + "/" + path, limit: 1 << 28) else { continue }
            if let current = global[path], have[host][path] != current.sequence {
                // Another machine changed this path too. A modification beats a deletion; between
                // two writes the newer keeps the name and the older becomes a conflict copy.
                if current.bytes != nil, stamp.modified <= current.modificationTime {
                    let copy = conflictName(path, host: host)
                    rename(clouds[host] + "/" + path, clouds[host] + "/" + copy)
                    local[host][path] = nil
                    conflictCopiesMade += 1
                    result.conflictCopies.append(copy)
                    continue
                }
                if let theirs = current.bytes {
                    let copy = conflictName(path, host: host)
                    try? AtomicFile.write(theirs, to: clouds[host] + "/" + copy)
                    conflictCopiesMade += 1
                    result.conflictCopies.append(copy)
                }
            }
            publish(host, path, bytes: bytes, stamp: stamp)
            result.published.append(path)
            result.bytes += Int64(bytes.count)
        }
        // Sorted: the order deletions are numbered in must not depend on hashing.
        for path in local[host].keys.sorted() where !present.contains(path) && isCarried(host, path) {
            local[host][path] = nil
            guard have[host][path] == global[path]?.sequence else { continue }   // changed elsewhere: that change wins
            record(host, path, Version(bytes: nil, modificationTime: clock?() ?? Date().timeIntervalSince1970, sequence: sequence + 1))
            result.deleted.append(path)
        }
        return result
    }

    private func publish(_ host: Int, _ path: String, bytes: [UInt8], stamp: FileTree.Signature) {
        record(host, path, Version(bytes: bytes, modificationTime: stamp.modified, sequence: sequence + 1))
        local[host][path] = stamp
    }

    /// Makes `version` the latest of `path`, held by `host` and lacked by every other machine.
    private func record(_ host: Int, _ path: String, _ version: Version) {
        sequence = version.sequence
        global[path] = version
        have[host][path] = version.sequence
        for other in clouds.indices { if other == host { lacking[other].remove(path) } else { lacking[other].insert(path) } }
    }

    private func holds(_ host: Int, _ path: String, sequence: Int) {
        have[host][path] = sequence
        if global[path]?.sequence == sequence { lacking[host].remove(path) }
    }

    // MARK: Delivering

    /// Paths machine `host` lacks the latest version of (and is not already receiving), sorted.
    public func pending(_ host: Int) -> [String] {
        let receiving = Set(inFlight.lazy.filter { $0.host == host }.map(\.path))
        return lacking[host].subtracting(receiving).filter { isCarried(host, $0) }.sorted()
    }

    /// Whether machine `host` lacks the latest version of `path` (and carries it).
    public func needs(_ host: Int, _ path: String) -> Bool { lacking[host].contains(path) && isCarried(host, path) }

    private func isCarried(_ host: Int, _ path: String) -> Bool {
        guard let folders = carried[host] else { return true }
        return folders.contains(String(path.prefix { $0 != "/" }))
    }

    /// Starts (or, for a deletion, does) the delivery of `path` to `host`: the file shows up as a
    /// temporary file first, or with `showingPart` (default: `exposesPartialFiles` and the
    /// version's number) as a truncated file under its final name. Returns false when it cannot
    /// be done now.
    @discardableResult
    public func begin(_ host: Int, _ path: String, showingPart: Bool? = nil) -> Bool {
        guard online[host], isCarried(host, path), let version = global[path] else { return false }
        let target = clouds[host] + "/" + path
        let onDisk = FileTree.signature(target)
        guard onDisk == local[host][path] else { return false }   // changed here and not scanned yet: the scan decides
        guard let bytes = version.bytes else {
            if onDisk != nil {
                unlink(target)
                removeEmptyParents(of: path, host: host)
                deletionsDelivered += 1
            }
            local[host][path] = nil
            holds(host, path, sequence: version.sequence)
            return true
        }
        try? AtomicFile.makeDirectory((target as NSString).deletingLastPathComponent)
        let part = showingPart ?? (exposesPartialFiles && version.sequence % 3 == 0)
        if part && onDisk == nil && bytes.count > 8 {
            try? AtomicFile.write(Array(bytes.prefix(bytes.count / 2)), to: target)
            local[host][path] = FileTree.signature(target)
            partialsShown += 1
        } else {
            try? AtomicFile.write(Array(bytes.prefix(bytes.count / 2)), to: temporaryPath(target))
            temporariesShown += 1
        }
        inFlight.removeAll { $0.host == host && $0.path == path }
        inFlight.append(Delivery(host: host, path: path, version: version))
        return true
    }

    /// Finishes one delivery begun earlier (the `index`-th of those under way for online machines).
    public func finish(_ index: Int) {
        let ready = inFlight.indices.filter { online[inFlight[$0].host] }
        guard !ready.isEmpty else { return }
        complete(inFlight.remove(at: ready[index % ready.count]))
    }

    /// Finishes the delivery of `path` to `host`; true when the file landed (false: none under
    /// way, the machine is cut off, or the delivery was void because a newer version came or the
    /// file changed there).
    @discardableResult
    public func finish(_ host: Int, _ path: String) -> Bool {
        guard online[host], let index = inFlight.firstIndex(where: { $0.host == host && $0.path == path }) else { return false }
        return complete(inFlight.remove(at: index))
    }

    @discardableResult
    private func complete(_ delivery: Delivery) -> Bool {
        let target = clouds[delivery.host] + "/" + delivery.path
        let temporary = temporaryPath(target)
        unlink(temporary)
        // A newer version arrived meanwhile, or the file changed here: this delivery is void.
        guard global[delivery.path]?.sequence == delivery.version.sequence, FileTree.signature(target) == local[delivery.host][delivery.path],
              let bytes = delivery.version.bytes else { return false }
        guard (try? AtomicFile.write(bytes, to: temporary, modificationTime: delivery.version.modificationTime)) != nil,
              rename(temporary, target) == 0 else { return false }
        local[delivery.host][delivery.path] = FileTree.signature(target)
        holds(delivery.host, delivery.path, sequence: delivery.version.sequence)
        return true
    }

    /// The connection broke during the delivery of `path` to `host`: it stops, its temporary
    /// file (or part) stays where it is, and the path is pending again.
    public func abandon(_ host: Int, _ path: String) {
        inFlight.removeAll { $0.host == host && $0.path == path }
    }

    /// Removes a temporary file an abandoned delivery left, once nothing will reuse it.
    public func removeTemporary(_ host: Int, _ path: String) {
        unlink(temporaryPath(clouds[host] + "/" + path))
    }

    /// Sabotage, for proving checks can fail: `host` records the latest version of `path` as
    /// held without ever writing it.
    public func lose(_ host: Int, _ path: String) {
        guard let version = global[path] else { return }
        inFlight.removeAll { $0.host == host && $0.path == path }
        holds(host, path, sequence: version.sequence)
    }

    public var deliveriesUnderWay: Int { inFlight.filter { online[$0.host] }.count }

    /// Deliveries begun and not finished to machine `host`.
    public func deliveriesUnderWay(to host: Int) -> Int { inFlight.filter { $0.host == host }.count }

    /// One random move: a scan, a delivery begun or a delivery finished.
    public func step(using random: inout SeededGenerator) {
        let hosts = clouds.indices.filter { online[$0] }
        guard let host = hosts.randomElement(using: &random) else { return }
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<3: scan(host)
        case 3..<6: if let path = pending(host).randomElement(using: &random) { begin(host, path) }
        default: if deliveriesUnderWay > 0 { finish(Int.random(in: 0..<deliveriesUnderWay, using: &random)) }
        }
    }

    /// Delivers everything among online machines, in `random` order, until nothing moves.
    public func settle(using random: inout SeededGenerator) {
        for _ in 0..<10_000 {
            for host in clouds.indices { scan(host) }
            let work = clouds.indices.filter { online[$0] }.flatMap { host in pending(host).map { (host, $0) } }
            if work.isEmpty && deliveriesUnderWay == 0 { return }
            for (host, path) in work.shuffled(using: &random) { begin(host, path) }
            while deliveriesUnderWay > 0 { finish(Int.random(in: 0..<deliveriesUnderWay, using: &random)) }
        }
    }

    /// Delivers the pending paths of `host` that `include` accepts, whole, in the order given by `order`.
    public func deliver(to host: Int, order: ([String]) -> [String] = { $0 }, where include: (String) -> Bool) {
        for path in order(pending(host).filter(include)) where begin(host, path) { finish(host, path) }
    }

    // MARK: Files

    /// The files of machine `host` that travel, sorted by path.
    private func files(_ host: Int) -> [(String, FileTree.Signature)] {
        var result: [(String, FileTree.Signature)] = []
        func walk(_ relative: String) {
            for entry in DirectoryEntry.list(relative.isEmpty ? clouds[host] : clouds[host] + "/" + relative) {
                let path = relative.isEmpty ? entry.name : relative + "/" + entry.name
                if relative.isEmpty && !isCarried(host, path) { continue }
                if entry.isDirectory { walk(path); continue }
                guard entry.isRegularFile, !entry.name.hasSuffix(".nosync"), !entry.name.hasPrefix(".syncthing.") else { continue }
                result.append((path, FileTree.Signature(entry)))
            }
        }
        walk("")
        return result
    }

    private func temporaryPath(_ target: String) -> String {
        (target as NSString).deletingLastPathComponent + "/.syncthing." + (target as NSString).lastPathComponent + ".tmp"
    }

    /// Syncthing's name: `<base>.sync-conflict-<date>-<time>-<device>.<ext>`.
    private func conflictName(_ path: String, host: Int) -> String {
        let name = path as NSString
        let ext = name.pathExtension.isEmpty ? "" : "." + name.pathExtension
        return name.deletingPathExtension + ".sync-conflict-20260101-\(String(format: "%06d", conflictCopiesMade % 1_000_000))-HOST\(host)AB" + ext
    }

    private func removeEmptyParents(of path: String, host: Int) {
        var directory = (path as NSString).deletingLastPathComponent
        while !directory.isEmpty, DirectoryEntry.list(clouds[host] + "/" + directory).isEmpty {
            rmdir(clouds[host] + "/" + directory)
            directory = (directory as NSString).deletingLastPathComponent
        }
    }
}
