import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquitySync
#if canImport(Glibc)
import Glibc
#endif

/// A 200 MB external value is saved, exported, imported and read through `ubiq` without the
/// process ever holding more than a few MB of it: each command's peak resident size (its own,
/// as GNU time measures it, so tests running beside it do not count) stays within 64 MB of a
/// small save's.
@Suite("ubiq streams external binary data")
struct CLIExternalDataTests {
    /// A finished child: its exit status and peak resident size in KiB.
    struct Finished {
        let status: Int32
        let peakKiB: Int
    }

    /// GNU time, which forks the command from its own small process and reports the command's
    /// peak resident size alone. The child's own `wait4` rusage is no measure: `posix_spawn`
    /// starts it sharing this process's memory, and `exec` carries this process's high-water
    /// mark into the child's — a test process grown by the tests beside it made a small save
    /// look 400 MB big.
    static let timeTool = "/usr/bin/time"

    struct TimeToolMissing: Error, CustomStringConvertible {
        var description: String { "\(CLIExternalDataTests.timeTool) is missing (apt-get install time): it measures each command's peak memory" }
    }

    /// Runs `ubiq` with `arguments` under GNU time, standard output into `output`; its peak resident size as time reports it.
    static func run(_ binary: String, _ arguments: [String], output: String) throws -> Finished {
        guard access(timeTool, X_OK) == 0 else { throw TimeToolMissing() }
        let report = output + ".rss"
        let finished = try spawn(timeTool, ["-f", "%M", "-o", report, binary] + arguments, output: output)
        let text = String(decoding: try AtomicFile.read(report, limit: 1 << 12), as: UTF8.self)
        // The last line is the figure; a line before it says the command failed, if it did.
        guard let kibibytes = text.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
            throw CLISandbox.CommandFailed(result: UbiqResult(arguments: arguments, status: finished.status, signaled: false, timedOut: false, stdout: "", stderr: "time said: \(text)"))
        }
        return Finished(status: finished.status, peakKiB: kibibytes)
    }

    /// Runs `program` with `arguments`, standard output into `output` and standard error into `output.err`.
    private static func spawn(_ program: String, _ arguments: [String], output: String) throws -> Finished {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, output + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard spawned == 0 else { throw CLISandbox.CommandFailed(result: UbiqResult(arguments: arguments, status: spawned, signaled: false, timedOut: false, stdout: "", stderr: "spawn failed")) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Finished(status: status, peakKiB: 0)
    }

    /// 200 MB: a seeded megabyte, each copy stamped with its index so no two are alike.
    static func makeFile(_ path: String, megabytes: Int) throws -> StreamingFile.Written {
        var generator = SeededGenerator(seed: 200)
        let block = (0..<(1 << 20)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return try StreamingFile.write(to: path) { write in
            for index in 0..<megabytes {
                var chunk = block
                withUnsafeBytes(of: UInt64(index).bigEndian) { chunk.replaceSubrange(0..<8, with: $0) }
                try write(chunk)
            }
        }
    }

    /// What one case holds on disk at its peak: the source, the saving device's copy, the
    /// cloud's, the importing device's and the bytes read back, 200 MB each, with room to spare.
    static let scratchBytesNeeded: UInt64 = 1_300 << 20

    /// A folder for the big files: memory-backed /dev/shm when it is writable and has room
    /// (quick to write and read), else the temporary folder when it has room. A machine whose
    /// /dev/shm is small (a container's 64 MB) or read-only must not fail the test for that;
    /// one with room nowhere fails it with a message that says so, not with a write error.
    static func scratchRoot() throws -> String {
        for root in ["/dev/shm/", NSTemporaryDirectory()] where access(root, W_OK | X_OK) == 0 {
            var info = statvfs()
            if statvfs(root, &info) == 0, UInt64(info.f_bavail) * UInt64(info.f_frsize) >= scratchBytesNeeded { return root }
        }
        throw ScratchTooSmall(needed: scratchBytesNeeded)
    }

    struct ScratchTooSmall: Error, CustomStringConvertible {
        let needed: UInt64
        var description: String { "neither /dev/shm nor \(NSTemporaryDirectory()) is writable with \(needed >> 20) MB free for the 200 MB value's copies" }
    }

    /// Plain, and with encryption on (the file sealed and opened as it streams). One case at a
    /// time, so that the run never holds both cases' gigabyte of copies at once.
    @Test(.serialized, arguments: [false, true])
    func twoHundredMegabytesStreamThroughEveryCommandUnderAMemoryBound(encrypted: Bool) throws {
        let sandbox = try CLISandbox()
        let scratch = try Self.scratchRoot() + "ubiq-external-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // containers/models/Photos.plist of this package (Tests/UbiquityTests/CLI/ is three folders down).
        let model = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("containers/models/Photos.plist").path
        let common = ["--model", model, "--cloud", scratch + "/cloud"]
        for device in ["a", "b"] {
            let result = try Self.run(sandbox.binary, ["device", "init", "--user", device, "--cloud", scratch + "/cloud", "--device", scratch + "/" + device], output: scratch + "/init")
            #expect(result.status == 0)
        }
        if encrypted {
            try AtomicFile.write(Array("correct horse".utf8), to: scratch + "/passphrase")
            for (device, command) in [("a", ["encryption", "enable", "--scrypt-log-n", "10"]), ("b", ["encryption", "unlock"])] {
                let result = try Self.run(sandbox.binary, command + ["--passphrase-file", scratch + "/passphrase"] + common + ["--device", scratch + "/" + device], output: scratch + "/out")
                #expect(result.status == 0, "\(String(decoding: (try? AtomicFile.read(scratch + "/out.err", limit: 1 << 16)) ?? [], as: UTF8.self))")
            }
        }
        let small = try Self.run(sandbox.binary, ["insert", "Photo", "--id", "small", "caption=hi"] + common + ["--device", scratch + "/a"], output: scratch + "/out")
        #expect(small.status == 0)
        let bound = small.peakKiB + 64 * 1024

        let source = scratch + "/photo.bin"
        let written = try Self.makeFile(source, megabytes: 200)
        let insert = try Self.run(sandbox.binary, ["insert", "Photo", "--id", "big", "image=@" + source] + common + ["--device", scratch + "/a"], output: scratch + "/out")
        #expect(insert.status == 0, "\(String(decoding: (try? AtomicFile.read(scratch + "/out.err", limit: 1 << 16)) ?? [], as: UTF8.self))")
        #expect(insert.peakKiB < bound, "insert (save and export) peaked at \(insert.peakKiB) KiB; a small save at \(small.peakKiB) KiB")
        try FileManager.default.removeItem(atPath: source)  // the store holds its own copy now

        let sync = try Self.run(sandbox.binary, ["sync"] + common + ["--device", scratch + "/b"], output: scratch + "/out")
        #expect(sync.status == 0)
        #expect(sync.peakKiB < bound, "sync (import) peaked at \(sync.peakKiB) KiB; a small save at \(small.peakKiB) KiB")

        let read = try Self.run(sandbox.binary, ["get", "Photo/big", "image", "--raw"] + common + ["--device", scratch + "/b"], output: scratch + "/read.bin")
        #expect(read.status == 0)
        #expect(read.peakKiB < bound, "get --raw peaked at \(read.peakKiB) KiB; a small save at \(small.peakKiB) KiB")
        #expect(try StreamingFile.sha256(of: scratch + "/read.bin") == written, "read back byte for byte")
        let folder = scratch + "/cloud/default/iCloud.ubiquity.default/CoreData/.externalData/Notes"
        let files = DirectoryEntry.list(folder)
        #expect(files.count == 1)
        if encrypted {
            #expect(files.first?.name != written.sha256, "a keyed name")
            #expect(SealedFile.isSealedFile(folder + "/" + (files.first?.name ?? "")))
        } else {
            #expect(files.map(\.name) == [written.sha256])
        }
    }
}
