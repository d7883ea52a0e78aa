import ArgumentParser
import Dispatch
import Foundation
import Ubiquity

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Run as a long-lived peer: import as soon as files land (inotify) and print what changed.",
        discussion: """
            Follows the device when it signs in to another account; stops cleanly on SIGINT or \
            SIGTERM. With --json, each line is one JSON object: {"event": "watching", …}, then \
            {"event": "sync", …} for every sync that changed something (the fields of 'sync --json', \
            plus "time": when the sync ended and "importedAt": when its last import committed, in \
            seconds since 1970), {"event": "account", …} on a switch, and {"event": "stopped"}.
            Example: ubiq watch --device ./laptop
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var resolver: ImportResolverOptions
    @Flag(help: "Print one JSON object per line, with timestamps (for tools and benchmarks).") var json = false

    func run() throws {
        let stop = StopFlag()
        let wake = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { stop.set(); wake.signal() }
            source.resume()
            sources.append(source)
        }
        // `ubiq account sign-in` rewrites device.plist: the peer of the new account takes over.
        let deviceWatcher = try DirectoryWatcher(directory: global.devicePath) { name in if name == Device.plistName { wake.signal() } }
        defer { deviceWatcher.stop() }
        while !stop.isSet {
            try global.withPeer(adjust: resolver.adjust) { peer in try watch(peer, wake: wake, stop: stop) }
        }
        _ = sources
        Console.out(json ? JSONValue.object(["event": .string("stopped"), "time": .double(Date().timeIntervalSince1970)]).text() : "stopped")
    }

    /// Syncs `peer` as files land until told to stop or the device changes account.
    private func watch(_ peer: UbiquityPeer, wake: DispatchSemaphore, stop: StopFlag) throws {
        guard let location = peer.location else { throw CLIError("the device is signed out: nothing to watch") }
        try AtomicFile.makeDirectory(location.ubiquityRoot)
        // Temporary `.nosync` files of atomic writes never matter: their rename into place does.
        let watcher = try DirectoryWatcher(directory: location.ubiquityRoot) { name in if !ContainerLocation.isTemporary(name) { wake.signal() } }
        defer { watcher.stop() }
        // Every pass adds the folders again: a file-sync tool creates them late, and a content
        // removal deletes and recreates them (a watch dies with its folder).
        func watchFolders() {
            for directory in ContainerScan.foldersToWatch(location) { watcher.add(directory) }
        }
        // When the last import committed: the moment its changes became visible in the store.
        let importedAt = Timestamp()
        peer.observe { event in if case .didImport = event { importedAt.set(Date().timeIntervalSince1970) } }
        if json {
            Console.out(JSONValue.object(["event": .string("watching"), "root": .string(location.ubiquityRoot), "peerID": .string(peer.peerID),
                                          "time": .double(Date().timeIntervalSince1970)]).text())
        } else {
            Console.out("watching \(location.ubiquityRoot) as \(peer.peerID)")
        }
        while !stop.isSet {
            if let device = try? Device.load(from: global.devicePath), device.identityToken != peer.device.identityToken {
                guard let account = device.identityToken else { throw CLIError("the device signed out: nothing to watch") }
                Console.out(json ? JSONValue.object(["event": .string("account"), "account": .string(account)]).text() : "account changed to '\(account)'")
                return
            }
            watchFolders()
            importedAt.clear()
            let summary = try peer.sync()
            if json { printJSON(summary, importedAt: importedAt.value) } else { print(summary, to: peer) }
            // Wait for a file event; a slow timer only as a safety net for missed events. Events
            // already queued are served by the sync that follows; one arriving during that sync
            // leaves a signal and so another round. (Waiting for 50 ms of quiet first put 50 ms
            // into every save's way to this peer.)
            _ = wake.wait(timeout: .now() + 30)
            while wake.wait(timeout: .now()) == .success {}
        }
    }

    private func printJSON(_ summary: SyncSummary, importedAt: Double?) {
        guard !summary.imported.changes.isEmpty || summary.exported > 0 || !summary.imported.quarantined.isEmpty || summary.contentRemoved
                || summary.adoptedBaseline != nil,
              case var .object(fields) = summary.jsonValue else { return }
        fields["event"] = .string("sync")
        fields["time"] = .double(Date().timeIntervalSince1970)
        fields["importedAt"] = importedAt.map(JSONValue.double) ?? .null
        Console.out(JSONValue.object(fields).text())
    }

    private func print(_ summary: SyncSummary, to peer: UbiquityPeer) {
        let changes = summary.imported.changes
        guard !changes.isEmpty || summary.exported > 0 || !summary.imported.quarantined.isEmpty || summary.contentRemoved
                || summary.adoptedBaseline != nil else { return }
        Console.out(summary.line)
        for id in changes.inserted.sorted() { Console.out("  inserted \(id)\(title(id, peer))") }
        for id in changes.updated.sorted() { Console.out("  updated  \(id)\(title(id, peer))") }
        for id in changes.deleted.sorted() { Console.out("  deleted  \(id)") }
    }

    private func title(_ id: GlobalID, _ peer: UbiquityPeer) -> String {
        guard let snapshot = try? peer.store.snapshot(of: id), let value = snapshot.values["title"] ?? snapshot.values["name"], let text = value else { return "" }
        return "  \"\(text)\""
    }
}
