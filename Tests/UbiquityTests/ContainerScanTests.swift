import Foundation
import Testing
@testable import Ubiquity
#if canImport(Glibc)
import Glibc
#endif

/// The one scanner of the container (`ContainerScan`, `ContainerEntry`): every name is
/// classified once, by the rules each folder has, from its name and the type the listing told;
/// nothing below a link is listed; the kinds decide what import, doctor, status and GC read.
@Suite("Container scanner")
struct ContainerScanTests {
    let root = NSTemporaryDirectory() + "ubiquity-scan-" + UUID().uuidString
    var location: ContainerLocation {
        ContainerLocation(cloud: root, identityToken: "token", containerIdentifier: "iCloud.scan", contentURL: "CoreData",
                          contentName: "Notes", modelHash: "hashA")
    }

    func file(_ path: String) throws {
        try AtomicFile.makeDirectory((path as NSString).deletingLastPathComponent)
        try AtomicFile.write(Array("x".utf8), to: path)
    }

    func folder(_ path: String) throws { try AtomicFile.makeDirectory(path) }

    func link(_ path: String, to target: String) throws {
        guard symlink(target, path) == 0 else { throw FileError(path: path, operation: "symlink", errno: errno) }
    }

    func kinds(_ entries: [ContainerEntry]) -> [String: ContainerEntry.Kind] {
        Dictionary(entries.map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }

    @Test("every kind of the ubiquity root, a peer's folders and the shared folders")
    func everyKind() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let location = self.location, peer = "alice~device", logs = location.logDirectory(of: peer)
        let log3 = TransactionLog.fileName(number: 3), log4 = TransactionLog.fileName(number: 4)
        let log5 = TransactionLog.fileName(number: 5), log6 = TransactionLog.fileName(number: 6)
        try file(logs + "/" + log3)
        try file(logs + "/" + ContainerLocation.receiptName)
        try file(logs + "/.receipt.0.cdt.1234abcd.nosync")
        try file(logs + "/.syncthing.\(log3).tmp")
        let copy = String(log3.dropLast(6)) + ".sync-conflict-20240101-000000-ABCDEFG.1.cdt"
        try file(logs + "/" + copy)
        try file(logs + "/notes.txt")
        guard mkfifo(logs + "/" + log4, 0o644) == 0 else { throw FileError(path: log4, operation: "mkfifo", errno: errno) }
        try link(logs + "/" + log5, to: "/etc/passwd")
        try folder(logs + "/" + log6)
        try folder(location.contentDirectory(of: peer) + "/hashB")
        try file(location.contentDirectory(of: peer) + "/stray")
        for name in [ContainerLocation.baselineFolderName, ContainerLocation.externalDataFolderName, ContainerLocation.contentEpochFolderName, "Bad Name"] {
            try folder(location.ubiquityRoot + "/" + name)
        }
        try folder(root + "/elsewhere")
        try link(location.ubiquityRoot + "/bob~device", to: root + "/elsewhere")
        try file(location.ubiquityRoot + "/left.nosync")

        let scan = ContainerScan(location: location, modelVersions: true)
        let top = kinds(scan.root)
        #expect(top[peer] == .peerFolder)
        #expect(top[".baseline"] == .containerFolder && top[".externalData"] == .containerFolder && top[".content"] == .containerFolder)
        #expect(top["Bad Name"] == .foreign, "not a valid peer ID")
        #expect(top["bob~device"] == .foreign, "a valid peer ID, but a link: never followed")
        #expect(top["left.nosync"] == .temporary)
        #expect(scan.peers == [peer])
        #expect(scan.strangers.map(\.name) == ["Bad Name", "bob~device", "left.nosync"], "dot names are the container's own")
        #expect(scan.root.first { $0.name == "bob~device" }?.type == .symbolicLink)

        let folder = try #require(scan.peerFolders.first)
        #expect(kinds(folder.contentEntries ?? []) == ["hashA": .modelFolder, "hashB": .otherModel, "stray": .foreign])
        #expect(scan.otherModels(of: folder).map(\.name) == ["hashB"])
        let inLogs = kinds(folder.entries)
        #expect(inLogs[log3] == .log(3))
        #expect(inLogs[ContainerLocation.receiptName] == .receipt)
        #expect(inLogs[".receipt.0.cdt.1234abcd.nosync"] == .temporary)
        #expect(inLogs[".syncthing.\(log3).tmp"] == .transfer(engine: "Syncthing"))
        #expect(inLogs[copy] == .conflictCopy(of: log3, engine: "Syncthing"))
        #expect(inLogs["notes.txt"] == .foreign)
        // Named like logs, but not regular files: classified by name, told apart by type, never logs of the scan.
        #expect(inLogs[log4] == .log(4) && folder.entries.first { $0.name == log4 }?.type == .other)
        #expect(inLogs[log5] == .log(5) && folder.entries.first { $0.name == log5 }?.type == .symbolicLink)
        #expect(inLogs[log6] == .log(6) && folder.entries.first { $0.name == log6 }?.type == .directory)
        #expect(scan.logs.map(\.number) == [3])
        #expect(scan.excluded.map(\.name) == [".receipt.0.cdt.1234abcd.nosync"])
        #expect(scan.has(peer: peer, number: 3) && !scan.has(peer: peer, number: 4))

        try file(location.baselinePath)
        try file(location.baselineDirectory + "/baseline (alice's conflicted copy 2024-01-01).zip")
        try file(location.baselineDirectory + "/.baseline-1234.zip.nosync")
        #expect(kinds(ContainerScan.sharedFolder(.baselines, of: location)) == [
            "baseline.zip": .baseline, "baseline (alice's conflicted copy 2024-01-01).zip": .conflictCopy(of: "baseline.zip", engine: "Dropbox"),
            ".baseline-1234.zip.nosync": .temporary,
        ])
        let hash = String(repeating: "ab", count: 32)
        try file(location.externalDataDirectory + "/" + hash)
        try file(location.externalDataDirectory + "/." + hash + ".1234abcd.nosync")
        try file(location.externalDataDirectory + "/.syncthing." + hash + ".tmp")
        #expect(kinds(ContainerScan.sharedFolder(.externalData, of: location)) == [
            hash: .externalData, "." + hash + ".1234abcd.nosync": .temporary, ".syncthing." + hash + ".tmp": .transfer(engine: "Syncthing"),
        ])
        #expect(ContainerScan.externalDataFiles(of: location).map(\.name) == [hash])
        try file(location.contentEpochPath)
        try file(location.contentEpochDirectory + "/Other.plist")
        try file(location.contentEpochDirectory + "/Notes (iCloud conflict phone 20240101T000000).plist")
        #expect(kinds(ContainerScan.sharedFolder(.contentEpochs, of: location)) == [
            "Notes.plist": .contentEpoch, "Other.plist": .foreign,
            "Notes (iCloud conflict phone 20240101T000000).plist": .conflictCopy(of: "Notes.plist", engine: "iCloud"),
        ])
        #expect(ContainerScan.foldersToWatch(location).contains(logs))
        #expect(!ContainerScan.foldersToWatch(location).contains { $0.hasSuffix("/bob~device") || $0.hasSuffix("/Bad Name") })
    }

    @Test("nothing below a link is listed, and hostile names are foreign, never logs")
    func linksAndHostileNames() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let location = self.location
        // A peer whose content folder is a link to logs elsewhere: the scan sees the peer, none of its logs.
        let outside = root + "/outside/hashA"
        try file(outside + "/" + TransactionLog.fileName(number: 1))
        try folder(location.ubiquityRoot + "/mallory~device")
        try link(location.contentDirectory(of: "mallory~device"), to: root + "/outside")
        let hostile = ["log with spaces.1.cdt", "ünïcode-0000000001.1.cdt", "line\nbreak.1.cdt", String(repeating: "7", count: 200) + ".1.cdt",
                       "0000000001-NOT-A-UUID.1.cdt", "receipt.0.cdt.bak", "..", "RECEIPT.0.CDT"]
        for name in hostile where name != ".." { try file(location.logDirectory(of: "alice~device") + "/" + name) }

        let scan = ContainerScan(location: location)
        #expect(scan.peers == ["alice~device", "mallory~device"])
        #expect(scan.peerFolders.first { $0.peerID == "mallory~device" }?.entries.isEmpty == true, "a link is never followed")
        let alice = try #require(scan.peerFolders.first { $0.peerID == "alice~device" })
        #expect(alice.entries.count == hostile.count - 1, "'.' and '..' are never entries")
        #expect(alice.entries.allSatisfy { $0.kind == .foreign }, "\(alice.entries.map { ($0.name, $0.kind) })")
        #expect(scan.logs.isEmpty)
    }

    @Test("a peer's log folder listed again: what a new scan sees, the other folders as they were")
    func relistOneFolder() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let location = self.location, me = "alice~device", other = "bob~device"
        let names = Dictionary(uniqueKeysWithValues: (1...4).map { (Int64($0), TransactionLog.fileName(number: Int64($0))) })
        let log = { (number: Int64) in names[number]! }
        try file(location.logDirectory(of: me) + "/" + log(1))
        try file(location.logDirectory(of: me) + "/" + log(2))
        try file(location.logDirectory(of: other) + "/" + log(1))
        var scan = ContainerScan(location: location, modelVersions: true)
        #expect(scan.logs.map(\.number) == [1, 2, 1])

        // This peer exports log 3, collects log 1, a FIFO and a folder take log names, log 2 is
        // replaced by a folder; meanwhile another peer's folder changes too.
        try file(location.logDirectory(of: me) + "/" + log(3))
        #expect(unlink(location.logPath(of: me, log(1))) == 0)
        guard mkfifo(location.logPath(of: me, log(4)), 0o644) == 0 else { throw FileError(path: log(4), operation: "mkfifo", errno: errno) }
        #expect(unlink(location.logPath(of: me, log(2))) == 0)
        try folder(location.logPath(of: me, log(2)))
        try file(location.logDirectory(of: me) + "/.export.nosync")
        try file(location.logDirectory(of: other) + "/" + log(2))
        try folder(location.contentDirectory(of: me) + "/hashB")

        scan.relist(peer: me)
        let fresh = ContainerScan(location: location, modelVersions: true)
        let mine = try #require(scan.peerFolders.first { $0.peerID == me })
        #expect(mine.entries == fresh.peerFolders.first { $0.peerID == me }?.entries)
        #expect(mine.contentEntries == fresh.peerFolders.first { $0.peerID == me }?.contentEntries, "content folders are listed again when the scan lists them")
        #expect(mine.entries.first { $0.name == log(4) }?.type == .other && mine.entries.first { $0.name == log(2) }?.type == .directory)
        #expect(scan.logs.filter { $0.peerID == me }.map(\.number) == [3], "a FIFO or a folder named like a log is none")
        #expect(scan.has(peer: me, number: 3) && !scan.has(peer: me, number: 1) && !scan.has(peer: me, number: 2) && !scan.has(peer: me, number: 4))
        #expect(scan.excluded.map(\.name) == [".export.nosync"])
        #expect(scan.logs.filter { $0.peerID == other }.map(\.number) == [1], "only this peer's folder is listed again")
        #expect(scan.logs.map(\.peerID) == [me, other], "logs keep the root's order")
    }

    @Test("listing one peer's folder again keeps every peer's logs in the root's order")
    func relistKeepsOrder() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let location = self.location, peers = ["ann~a", "bob~b", "cat~c"]
        func paths(_ scan: ContainerScan) -> [String] { scan.logs.map { "\($0.peerID)/\($0.number)" } + scan.excluded.map { "\($0.peerID)/\($0.name)" } }
        for peer in peers { try folder(location.logDirectory(of: peer)) }
        try file(location.logPath(of: "ann~a", TransactionLog.fileName(number: 1)))
        try file(location.logPath(of: "cat~c", TransactionLog.fileName(number: 1)))
        try file(location.logPath(of: "cat~c", ".c.nosync"))
        var scan = ContainerScan(location: location)
        // Each peer in turn gains logs and a temporary file, then loses them all: the middle one
        // from none, the first and the last around the others.
        for peer in peers + peers {
            let directory = location.logDirectory(of: peer)
            if DirectoryEntry.names(directory).count < 3 {
                for number in Int64(2)...3 { try file(directory + "/" + TransactionLog.fileName(number: number)) }
                try file(directory + "/.x.nosync")
            } else {
                for name in DirectoryEntry.names(directory) { #expect(unlink(directory + "/" + name) == 0) }
            }
            scan.relist(peer: peer)
            #expect(paths(scan) == paths(ContainerScan(location: location)), "after listing \(peer) again")
            #expect(scan.has(peer: peer, number: 2) == ContainerScan(location: location).has(peer: peer, number: 2))
        }
    }

    @Test("a peer's folder that appeared since the scan is listed, with the root again")
    func relistNewPeerFolder() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let location = self.location, me = "alice~device", other = "bob~device"
        try file(location.logDirectory(of: other) + "/" + TransactionLog.fileName(number: 1))
        var scan = ContainerScan(location: location)
        scan.relist(peer: me)
        #expect(scan.peers == [other], "no folder yet: nothing changes")
        try file(location.receiptPath(of: me))
        try file(location.logDirectory(of: me) + "/" + TransactionLog.fileName(number: 1))
        scan.relist(peer: me)
        #expect(scan.peers == [me, other])
        #expect(scan.logs.map(\.peerID) == [me, other] && scan.has(peer: me, number: 1))
        #expect(scan.peerFolders.allSatisfy { $0.contentEntries == nil }, "a scan without model versions stays one")
    }

    @Test("listings are sorted as strings sort, ASCII or not")
    func listingOrder() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let ascii = ["b", "B", "a~", "a-", "a", "aa", "Z9", "_x", ".dot", "~t", "0000000010-x", "0000000009-x"]
        try folder(root + "/ascii")
        for name in ascii { try file(root + "/ascii/" + name) }
        #expect(DirectoryEntry.typedNames(root + "/ascii").map(\.name) == ascii.sorted())
        let mixed = ascii + ["é", "Ä", "zz\u{1F600}", "a\u{300}"]
        try folder(root + "/mixed")
        for name in mixed { try file(root + "/mixed/" + name) }
        let listed = DirectoryEntry.typedNames(root + "/mixed").map(\.name)
        #expect(listed == mixed.sorted() && listed.count == mixed.count)
        #expect(DirectoryEntry.typedNames(root + "/missing").isEmpty)
    }
}

