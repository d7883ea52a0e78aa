import CCallgrind
import Foundation

/// `ubiq-bench --instructions …`: runs the same command again under callgrind, which executes
/// it with `InstructionCounter.isCounting` set, and passes its output and exit status on.
enum InstructionRun {
    static func relaunch(_ arguments: [String]) throws -> Int32 {
        guard ubiq_callgrind_available() != 0 else {
            throw BenchmarkError("--instructions needs valgrind's headers at build time (apt-get install valgrind, then rebuild)")
        }
        guard let valgrind = executable(named: "valgrind") else {
            throw BenchmarkError("--instructions runs the benchmark under valgrind, which is not on PATH (apt-get install valgrind)")
        }
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let prefix = scratch.path + "/callgrind.out"
        // Valgrind 3.19 (Debian 12) gives up on the DWARF 5 debug info Swift writes; a copy
        // without it keeps the symbol names, which is all the counts need.
        let stripped = scratch.path + "/ubiq-bench"
        try run("objcopy", ["--strip-debug", try ownExecutable(), stripped], missing: "--instructions strips a copy of this program with objcopy, which is not on PATH (apt-get install binutils)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: valgrind)
        process.arguments = ["--tool=callgrind", "--callgrind-out-file=\(prefix)", "--log-file=\(scratch.path)/valgrind.log",
                             // Dumps name the functions only: no per-line or per-instruction detail to write.
                             "--dump-line=no", "--compress-strings=yes", "--compress-pos=yes",
                             stripped] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment[InstructionCounter.environmentKey] = prefix
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0, let log = try? String(contentsOfFile: "\(scratch.path)/valgrind.log", encoding: .utf8) {
            FileHandle.standardError.write(Data("ubiq-bench: valgrind's log:\n\(log.suffix(2_000))\n".utf8))
        }
        return process.terminationStatus
    }

    /// Runs a helper tool to its end; a failure is one line.
    private static func run(_ tool: String, _ arguments: [String], missing: String) throws {
        guard let path = executable(named: tool) else { throw BenchmarkError(missing) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError("\(tool) \(arguments.joined(separator: " ")) failed (status \(process.terminationStatus))") }
    }

    /// This binary's path, however it was started (`swift run`, a relative path, PATH).
    private static func ownExecutable() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { throw BenchmarkError("cannot find this program's own file (/proc/self/exe)") }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
