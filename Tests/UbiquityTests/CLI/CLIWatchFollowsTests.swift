import Foundation
import Testing
import UbiquityTestSupport

/// `ubiq watch` keeps running through what the cloud and the device go through: encryption
/// turned on by another device (it waits, and imports again once `encryption unlock` gave it
/// the key), sign-out and sign-in, and the cloud's folders deleted and recreated.
@Suite("CLI watch follows the device and the cloud")
struct CLIWatchFollowsTests {
    func waitFor(_ watch: UbiqProcess, _ text: String, after offset: Int = 0, seconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        func found() -> Bool { String(watch.stdoutSoFar.dropFirst(offset)).contains(text) }
        while Date() < deadline, watch.isRunning, !found() { usleep(20_000) }
        return found()
    }

    func stop(_ watch: UbiqProcess) {
        watch.send(SIGTERM)
        let result = watch.wait(timeout: 20)
        #expect(result.status == 0 && !result.signaled, "a clean stop: \(result)")
        #expect(result.stdoutLines.last == "stopped", "\(result)")
    }

    @Test func encryptionTurnedOnElsewhereThenUnlockedBesideTheWatch() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("writer")
        try sandbox.initDevice("watcher")
        let watch = try sandbox.start(["watch"], device: "watcher")
        defer { if watch.isRunning { watch.kill(); _ = watch.wait(timeout: 10) } }
        #expect(waitFor(watch, "watching "), "\(watch.stdoutSoFar)")

        let passphrase = sandbox.root + "/passphrase"
        try "correct horse battery\n".write(toFile: passphrase, atomically: true, encoding: .utf8)
        try sandbox.succeed(["encryption", "enable", "--passphrase-file", passphrase, "--scrypt-log-n", "10"], device: "writer")
        try sandbox.succeed(["insert", "Note", "--id", "sealed", "title=Sealed"], device: "writer")
        #expect(waitFor(watch, "waiting: "), "the watch says what it waits for: \(watch.stdoutSoFar)")
        #expect(watch.isRunning, "the watch goes on: \(watch.stdoutSoFar)")

        let unlock = try sandbox.succeed(["encryption", "unlock", "--passphrase-file", passphrase], device: "watcher")
        #expect(unlock.stdout.contains("holds the key"), "\(unlock)")
        #expect(waitFor(watch, "inserted Note/sealed"), "imported once unlocked: \(watch.stdoutSoFar)")
        #expect(waitFor(watch, "importing again"), "\(watch.stdoutSoFar)")
        stop(watch)
    }

    @Test func signOutAndSignInAgain() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("writer")
        try sandbox.initDevice("watcher")
        let watch = try sandbox.start(["watch"], device: "watcher")
        defer { if watch.isRunning { watch.kill(); _ = watch.wait(timeout: 10) } }
        #expect(waitFor(watch, "watching "), "\(watch.stdoutSoFar)")

        try sandbox.succeed(["account", "sign-out"], device: "watcher")
        #expect(waitFor(watch, "signed out"), "\(watch.stdoutSoFar)")
        #expect(watch.isRunning, "signed out, the watch waits: \(watch.stdoutSoFar)")
        try sandbox.succeed(["insert", "Note", "--id", "meanwhile", "title=Meanwhile"], device: "writer")
        try sandbox.succeed(["account", "sign-in", "default"], device: "watcher")
        #expect(waitFor(watch, "account changed to 'default'"), "\(watch.stdoutSoFar)")
        #expect(waitFor(watch, "inserted Note/meanwhile"), "\(watch.stdoutSoFar)")
        stop(watch)
    }

    @Test func theCloudsFoldersDeletedAndRecreated() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("writer")
        try sandbox.initDevice("watcher")
        let watch = try sandbox.start(["watch"], device: "watcher")
        defer { if watch.isRunning { watch.kill(); _ = watch.wait(timeout: 10) } }
        #expect(waitFor(watch, "watching "), "\(watch.stdoutSoFar)")
        try sandbox.succeed(["insert", "Note", "--id", "before", "title=Before"], device: "writer")
        #expect(waitFor(watch, "inserted Note/before"), "\(watch.stdoutSoFar)")

        let trash = sandbox.root + "/trash"
        try FileManager.default.moveItem(atPath: sandbox.cloud, toPath: trash)
        try FileManager.default.createDirectory(atPath: sandbox.cloud, withIntermediateDirectories: false)
        try FileManager.default.removeItem(atPath: trash)
        let mark = watch.stdoutSoFar.count
        try sandbox.succeed(["insert", "Note", "--id", "after", "title=After"], device: "writer")
        // Seen within the one-second pass that runs while a watch is lost (and the sync's own time).
        #expect(waitFor(watch, "inserted Note/after", after: mark, seconds: 5), "\(watch.stdoutSoFar)")
        stop(watch)
    }
}
