import Foundation
@testable import Ubiquity

/// Several machines' copies of one cloud, kept in step the way Syncthing does it: a machine's
/// changes are found by a scan; the others pull them one file at a time, in any order, through
/// a visible `.syncthing.<name>.tmp` that is renamed into place, making parent folders on
/// arrival; deletions travel like any other change (often late); when two machines wrote one
/// path, the newer write keeps the name and the other becomes a `.sync-conflict-…` copy; a
/// modification wins over a deletion. `*.nosync` names never travel (the engine's ignore list).
///
/// With `exposesPartialFiles`, a delivery may first show a truncated file under its final name
/// (a tool that breaks the atomic-rename rule), to prove readers verify what they read.
final class FileSyncEngine {
    struct Version {
        /// `nil`: the path was deleted.
        let bytes: [UInt8]?
        let modificationTime: Double
        let sequence: Int
    }

    private struct FileStamp: Equatable {
        let size: Int64
        let modificationTime: Double
    }

    private struct Delivery {
        let host: Int
        let path: String
        let version: Version
    }

    let clouds: [String]
    var online: [Bool]
    var exposesPartialFiles = false
    private(set) var global: [String: Version] = [:]
    /// Per machine: the sequence of the version it holds of each path.
    private var have: [[String: Int]]
    /// Per machine: each file as last scanned or delivered, to notice local changes.
    private var local: [[String: FileStamp]]
    private var inFlight: [Delivery] = []
    private var sequence = 0
    /// What happened, for the tests to check that each situation really occurred.
    private(set) var conflictCopiesMade = 0, deletionsDelivered = 0, temporariesShown = 0, partialsShown = 0

    init(clouds: [String]) {
        self.clouds = clouds
        online = Array(repeating: true, count: clouds.count)
        have = Array(repeating: [:], count: clouds.count)
        local = Array(repeating: [:], count: clouds.count)
    }

    // MARK: Scanning

    /// Publishes what changed on machine `host` since its last scan.
    func scan(_ host: Int) {
        guard online[host] else { return }
        var present: Set<String> = []
        for (path, stamp) in files(host) {
            present.insert(path)
            guard local[host][path] != stamp, let bytes = try? AtomicFile.read(clouds[host] + "/" + path, limit: 1 << 28) else { continue }
            if let current = global[path], have[host][path] != current.sequence {
                // Another machine changed this path too. A modification beats a deletion; between
                // two writes the newer keeps the name and the older becomes a conflict copy.
                if current.bytes != nil, stamp.modificationTime <= current.modificationTime {
                    rename(clouds[host] + "/" + path, clouds[host] + "/" + conflictName(path, host: host))
                    local[host][path] = nil
                    conflictCopiesMade += 1
                    continue
                }
                if let theirs = current.bytes {
                    try? AtomicFile.write(theirs, to: clouds[host] + "/" + conflictName(path, host: host))
                    conflictCopiesMade += 1
                }
            }
            publish(host, path, bytes: bytes, stamp: stamp)
        }
        for path in local[host].keys where !present.contains(path) {
            local[host][path] = nil
            guard have[host][path] == global[path]?.sequence else { continue }   // changed elsewhere: that change wins
            sequence += 1
            global[path] = Version(bytes: nil, modificationTime: Date().timeIntervalSince1970, sequence: sequence)
            have[host][path] = sequence
        }
    }

    private func publish(_ host: Int, _ path: String, bytes: [UInt8], stamp: FileStamp) {
        sequence += 1
        global[path] = Version(bytes: bytes, modificationTime: stamp.modificationTime, sequence: sequence)
        have[host][path] = sequence
        local[host][path] = stamp
    }

    // MARK: Delivering

    /// Paths machine `host` lacks the latest version of (and is not already receiving).
    func pending(_ host: Int) -> [String] {
        global.filter { have[host][$0.key] != $0.value.sequence }.map(\.key)
            .filter { path in !inFlight.contains { $0.host == host && $0.path == path } }.sorted()
    }

    /// Starts (or, for a deletion, does) the delivery of `path` to `host`: the file shows up as a
    /// temporary file first. Returns false when it cannot be done now.
    @discardableResult
    func begin(_ host: Int, _ path: String) -> Bool {
        guard online[host], let version = global[path] else { return false }
        let target = clouds[host] + "/" + path
        let onDisk = stamp(of: target)
        guard onDisk == local[host][path] else { return false }   // changed here and not scanned yet: the scan decides
        guard let bytes = version.bytes else {
            if onDisk != nil {
                unlink(target)
                removeEmptyParents(of: path, host: host)
                deletionsDelivered += 1
            }
            local[host][path] = nil
            have[host][path] = version.sequence
            return true
        }
        try? AtomicFile.makeDirectory((target as NSString).deletingLastPathComponent)
        if exposesPartialFiles && onDisk == nil && bytes.count > 8 && version.sequence % 3 == 0 {
            try? AtomicFile.write(Array(bytes.prefix(bytes.count / 2)), to: target)
            local[host][path] = stamp(of: target)
            partialsShown += 1
        } else {
            try? AtomicFile.write(Array(bytes.prefix(bytes.count / 2)), to: temporaryPath(target))
            temporariesShown += 1
        }
        inFlight.append(Delivery(host: host, path: path, version: version))
        return true
    }

    /// Finishes one delivery begun earlier (the `index`-th of those under way for online machines).
    func finish(_ index: Int) {
        let ready = inFlight.indices.filter { online[inFlight[$0].host] }
        guard !ready.isEmpty else { return }
        let delivery = inFlight.remove(at: ready[index % ready.count])
        let target = clouds[delivery.host] + "/" + delivery.path
        unlink(temporaryPath(target))
        // A newer version arrived meanwhile, or the file changed here: this delivery is void.
        guard global[delivery.path]?.sequence == delivery.version.sequence, stamp(of: target) == local[delivery.host][delivery.path],
              let bytes = delivery.version.bytes else { return }
        let temporary = temporaryPath(target)
        try? AtomicFile.write(bytes, to: temporary)
        _ = try? FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: delivery.version.modificationTime)], ofItemAtPath: temporary)
        guard rename(temporary, target) == 0 else { return }
        local[delivery.host][delivery.path] = stamp(of: target)
        have[delivery.host][delivery.path] = delivery.version.sequence
    }

    var deliveriesUnderWay: Int { inFlight.filter { online[$0.host] }.count }

    /// One random move: a scan, a delivery begun or a delivery finished.
    func step(using random: inout SeededGenerator) {
        let hosts = clouds.indices.filter { online[$0] }
        guard let host = hosts.randomElement(using: &random) else { return }
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<3: scan(host)
        case 3..<6: if let path = pending(host).randomElement(using: &random) { begin(host, path) }
        default: if deliveriesUnderWay > 0 { finish(Int.random(in: 0..<deliveriesUnderWay, using: &random)) }
        }
    }

    /// Delivers everything among online machines, in `random` order, until nothing moves.
    func settle(using random: inout SeededGenerator) {
        for _ in 0..<10_000 {
            for host in clouds.indices { scan(host) }
            let work = clouds.indices.filter { online[$0] }.flatMap { host in pending(host).map { (host, $0) } }
            if work.isEmpty && deliveriesUnderWay == 0 { return }
            for (host, path) in work.shuffled(using: &random) { begin(host, path) }
            while deliveriesUnderWay > 0 { finish(Int.random(in: 0..<deliveriesUnderWay, using: &random)) }
        }
    }

    /// Delivers the pending paths of `host` that `include` accepts, whole, in the order given by `order`.
    func deliver(to host: Int, order: ([String]) -> [String] = { $0 }, where include: (String) -> Bool) {
        for path in order(pending(host).filter(include)) where begin(host, path) {
            if let index = inFlight.filter({ online[$0.host] }).firstIndex(where: { $0.host == host && $0.path == path }) { finish(index) }
        }
    }

    // MARK: Files

    private func files(_ host: Int) -> [(String, FileStamp)] {
        var result: [(String, FileStamp)] = []
        func walk(_ relative: String) {
            for entry in DirectoryEntry.list(relative.isEmpty ? clouds[host] : clouds[host] + "/" + relative) {
                let path = relative.isEmpty ? entry.name : relative + "/" + entry.name
                if entry.isDirectory { walk(path); continue }
                guard entry.isRegularFile, !entry.name.hasSuffix(".nosync"), !entry.name.hasPrefix(".syncthing.") else { continue }
                result.append((path, FileStamp(size: entry.size, modificationTime: entry.modificationTime)))
            }
        }
        walk("")
        return result
    }

    private func stamp(of path: String) -> FileStamp? {
        let directory = (path as NSString).deletingLastPathComponent, name = (path as NSString).lastPathComponent
        return DirectoryEntry.list(directory).first { $0.name == name && $0.isRegularFile }.map { FileStamp(size: $0.size, modificationTime: $0.modificationTime) }
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
