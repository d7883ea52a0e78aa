import Foundation
import Testing

/// One process owns a device at a time; a second one that writes is told so (one that only
/// reads goes ahead), and a killed owner does not leave the device stuck.
@Suite("CLI device lock")
struct CLIDeviceLockTests {
    @Test func secondProcessIsToldTheDeviceIsInUse() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        let holder = try sandbox.start(["soak", "--count", "100000"], device: "phone")
        defer { holder.kill(); _ = holder.wait(timeout: 10) }

        // The first printed ID proves the soak has opened the peer and so holds the lock.
        let deadline = Date().addingTimeInterval(30)
        while holder.stdoutSoFar.isEmpty && holder.isRunning && Date() < deadline { usleep(10_000) }
        try #require(holder.isRunning && !holder.stdoutSoFar.isEmpty, "the soak should be running and saving")

        for command in [["insert", "Note", "title=x"], ["sync"]] {
            let result = try sandbox.run(command, device: "phone", timeout: 30)
            #expect(result.status != 0 && !result.signaled, "\(result)")
            #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("ubiq: error: "), "\(result)")
            #expect(result.stderr.contains("in use by another process"), "\(result)")
        }

        // Reading needs no lock: it reads the store the holder keeps writing (CLIReadWhileWatchingTests).
        let reading = try sandbox.run(["fetch", "Note", "--limit", "1"], device: "phone", timeout: 30)
        #expect(reading.succeeded && reading.stdoutLines.count == 1, "\(reading)")

        holder.kill()
        let killed = holder.wait(timeout: 10)
        #expect(killed.signaled, "the holder died of SIGKILL")
        let after = try sandbox.run(["fetch", "Note", "--limit", "1"], device: "phone")
        #expect(after.succeeded, "a dead owner's lock is released: \(after)")
    }
}
