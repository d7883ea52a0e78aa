import ArgumentParser
import Dispatch
import Foundation
import Ubiquity

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Run as a long-lived peer: import as soon as files land (inotify) and print what changed.",
        discussion: """
            The library's live import (UbiquitousStoreCoordinator, LiveImport) with printing: \
            each object as its import commits, then the round's summary. Follows the device \
            through sign-out, sign-in and account switches; waits, and says so, while the \
            content is encrypted and this device lacks the key (it imports again once \
            'ubiq encryption unlock' gives it the key); watches folders anew when the cloud's \
            folders are deleted and recreated. Stops cleanly on SIGINT or SIGTERM. With --json, \
            each line is one JSON object: {"event": "watching", …}, then {"event": "sync", …} \
            for every round that changed something (the fields of 'sync --json', plus "time": \
            when the round ended and "importedAt": when its last import committed, in seconds \
            since 1970), {"event": "account", …} on a switch or sign-out, {"event": "waiting", \
            "reason": …} and {"event": "resumed"}, and {"event": "stopped"}.
            Example: ubiq watch --device ./laptop
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var resolver: ImportResolverOptions
    @Flag(help: "Print one JSON object per line, with timestamps (for tools and benchmarks).") var json = false
    @Option(name: .customLong("poll"), help: ArgumentHelp("Look every SECONDS seconds instead of asking inotify (a cloud folder on NFS or FUSE).",
                                                          valueName: "SECONDS"))
    var pollSeconds: Double?

    func validate() throws {
        if let pollSeconds, !(pollSeconds > 0 && pollSeconds <= 3600) {
            throw ValidationError("--poll takes a number of seconds from above 0 to 3600, not \(pollSeconds)")
        }
    }

    func run() throws {
        let stop = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            sources.append(source)
        }
        var configuration = try global.configuration()
        resolver.adjust(&configuration)
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration, liveImport: pollSeconds.map { .polling(every: $0) } ?? .automatic)
        let printer = WatchPrinter(json: json, coordinator: coordinator)
        coordinator.observe { printer.print($0) }
        coordinator.observeLiveImport { printer.print($0) }
        do { try coordinator.addStore() } catch {
            coordinator.close()
            throw error
        }
        stop.wait()
        coordinator.close()
        _ = sources
        printer.printStopped()
    }
}
