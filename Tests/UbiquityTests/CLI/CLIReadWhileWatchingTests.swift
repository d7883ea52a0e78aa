import Foundation
import Testing

/// While `ubiq watch` owns a device, the commands that only read it work (they open the store
/// read-only, without the device's lock), the commands that write are refused naming the
/// owner, and the watch goes on importing.
@Suite("CLI reads while watching")
struct CLIReadWhileWatchingTests {
    /// Polls `condition` until it holds or `seconds` pass; no fixed sleeps.
    func eventually(_ seconds: Double = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    @Test func readOnlyCommandsWorkWhileWatchOwnsTheDevice() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("writer")
        try sandbox.initDevice("watcher")
        _ = try sandbox.succeed(["insert", "Note", "--id", "first", "title=First"], device: "writer")
        _ = try sandbox.succeed(["sync"], device: "watcher")

        let watch = try sandbox.start(["watch"], device: "watcher")
        defer { if watch.isRunning { watch.kill(); _ = watch.wait(timeout: 10) } }
        #expect(eventually { watch.stdoutSoFar.contains("watching ") || !watch.isRunning }, "the watch started")
        try #require(watch.isRunning, "\(watch.stdoutSoFar)")

        // Each read-only command, against the device the watch owns.
        let fetch = try sandbox.succeed(["fetch", "Note"], device: "watcher")
        #expect(fetch.stdoutLines == [#"Note/first  title="First" body=nil created=nil pinned=false folder=nil tags=[]"#], "\(fetch)")
        let dump = try sandbox.succeed(["dump"], device: "watcher")
        #expect(dump.stdoutLines.contains("Note (1)"), "\(dump)")
        let status = try sandbox.succeed(["status"], device: "watcher")
        #expect(status.stdoutLines.contains { $0.hasPrefix("  store       account") }, "\(status)")
        let logs = try sandbox.succeed(["logs"], device: "watcher")
        #expect(logs.stdoutLines.count == 1 && logs.stdoutLines[0].hasPrefix("Current "), "\(logs)")
        let logPath = try #require(logs.stdoutLines.first?.split(separator: " ").last.map(String.init))
        let show = try sandbox.succeed(["logs", "show", logPath], device: "watcher")
        #expect(show.stdoutLines.first?.hasPrefix("transaction 1 of writer~") == true, "\(show)")
        let baseline = try sandbox.succeed(["baseline", "show"], device: "watcher")
        #expect(baseline.stdoutLines == ["no baseline"], "\(baseline)")
        let conflicts = try sandbox.succeed(["conflicts"], device: "watcher")
        #expect(conflicts.stdoutLines == ["no conflicts recorded"], "\(conflicts)")
        let doctor = try sandbox.succeed(["doctor"], device: "watcher")
        #expect(doctor.stdoutLines == ["no problems found"], "\(doctor)")
        let peers = try sandbox.succeed(["peers"], device: "watcher")
        #expect(peers.stdoutLines.count == 2, "\(peers)")
        let get = try sandbox.succeed(["get", "Note/first", "title"], device: "watcher")
        #expect(get.stdoutLines == [#""First""#], "\(get)")

        // Commands that write are refused with one line naming the holder's pid.
        for command in [["insert", "Note", "title=x"], ["update", "Note/first", "title=y"], ["sync"], ["doctor", "--fix"]] {
            let result = try sandbox.run(command, device: "watcher", timeout: 30)
            #expect(result.status != 0 && !result.signaled, "\(command): \(result)")
            #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("ubiq: error: the device at "), "\(command): \(result)")
            #expect(result.stderr.contains("is in use by another process (pid "), "\(command): \(result)")
        }

        // The watch keeps working: another peer's save is imported meanwhile, and a read through
        // the read-only path sees it.
        _ = try sandbox.succeed(["update", "Note/first", "title=Second"], device: "writer")
        #expect(eventually { watch.stdoutSoFar.contains(#"updated  Note/first  "Second""#) }, "\(watch.stdoutSoFar)")
        #expect(try eventually { try sandbox.succeed(["fetch", "Note", "--where", "title == 'Second'"], device: "watcher").stdoutLines.count == 1 })
        let json = try sandbox.succeed(["fetch", "Note", "--json"], device: "watcher")
        #expect(json.stdout.contains(#""title":"Second""#), "\(json)")

        // Many readers at once, while the watch imports another peer's stream of saves.
        let soak = try sandbox.start(["soak", "--count", "100"], device: "writer")
        let readers = try (0..<3).flatMap { _ in
            try [["fetch", "Note", "--json"], ["dump", "--json"], ["status"], ["doctor"]].map { try sandbox.start($0, device: "watcher") }
        }
        for reader in readers {
            let result = reader.wait(timeout: 60)
            #expect(result.succeeded && result.stderr.isEmpty, "\(result)")
        }
        #expect(soak.wait(timeout: 120).succeeded)
        #expect(eventually(60) { (try? sandbox.succeed(["fetch", "Note", "--json"], device: "watcher").stdout).map { (try? objectIDs(inJSON: $0).count) == 101 } == true })

        watch.send(SIGTERM)
        let stopped = watch.wait(timeout: 20)
        #expect(stopped.status == 0 && stopped.stdoutLines.last == "stopped", "\(stopped)")
        // Nothing the readers did got in the way: the device is free again and took every change.
        #expect(try sandbox.succeed(["sync"], device: "watcher").succeeded)
        #expect(try sandbox.dump("watcher") == sandbox.dump("writer"))
    }

    /// A device no process owns is read read-only all the same (a reader never takes the lock an
    /// owner may want next): a read of a fresh device makes no store, and says there is none.
    @Test func aFreeDeviceIsReadReadOnlyToo() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        for command in [["fetch", "Note"], ["status"]] {
            let read = try sandbox.run(command, device: "phone")
            #expect(!read.succeeded && read.stderrLines == ["ubiq: error: this device has no store of account 'default' yet (nothing was saved or synced there)"], "\(read)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.device("phone")) == ["device.plist"], "the readers made nothing")
        try sandbox.succeed(["insert", "Note", "title=x"], device: "phone")
        let status = try sandbox.succeed(["status"], device: "phone")
        #expect(status.stdoutLines.contains("  outbox      0 log(s) waiting"), "\(status)")
    }
}
