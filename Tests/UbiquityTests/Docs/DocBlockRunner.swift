import Foundation

/// Runs the commands of doc blocks in a sandbox folder, one shell per command, carrying the
/// working directory and exported variables from one command to the next as a terminal would.
///
/// The docs write `/tmp/…` and `swift run ubiq …`; here `/tmp/` is a folder of the sandbox (so
/// every run starts empty and runs do not meet), shown back as `/tmp/` in the output, and
/// `swift run ubiq` is the built binary, which is first on PATH as `ubiq`.
final class DocBlockRunner {
    let root: String
    private let binaryFolder: String
    private var environmentFile: String { root + "/.doc-env" }
    private var directoryFile: String { root + "/.doc-cwd" }

    init(repository: String) throws {
        binaryFolder = URL(fileURLWithPath: try UbiqBinary.path()).deletingLastPathComponent().path
        root = NSTemporaryDirectory() + "ubiq-doc-" + UUID().uuidString
        let files = FileManager.default
        try files.createDirectory(atPath: root + "/tmp", withIntermediateDirectories: true)
        for folder in ["containers", "Tests", "scripts"] {
            try files.createSymbolicLink(atPath: root + "/" + folder, withDestinationPath: repository + "/" + folder)
        }
        try root.write(toFile: directoryFile, atomically: true, encoding: .utf8)
        try "".write(toFile: environmentFile, atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    struct Outcome {
        let status: Int32
        let timedOut: Bool
        /// Standard output and error as they interleaved, with the sandbox's paths as the doc writes them.
        let output: String
    }

    func run(_ command: String, timeout: Double = 120) throws -> Outcome {
        let written = command.replacingOccurrences(of: "swift run ubiq ", with: "ubiq ")
            .replacingOccurrences(of: "/tmp/", with: root + "/tmp/")
        let script = """
            exec 2>&1
            . '\(environmentFile)' 2>/dev/null
            cd "$(cat '\(directoryFile)')"
            export PATH='\(binaryFolder)':"$PATH"
            \(written)
            status=$?
            export -p > '\(environmentFile)'
            pwd > '\(directoryFile)'
            exit $status
            """
        // timeout(1) signals the whole process group, so a hanging `ubiq` under the shell stops too.
        let result = try UbiqProcess(binary: "/usr/bin/timeout", arguments: ["--kill-after=5", String(Int(timeout)), "/bin/bash", "-c", script],
                                     directory: root).wait(timeout: timeout + 30)
        let output = result.stdout.replacingOccurrences(of: root + "/tmp/", with: "/tmp/")
        return Outcome(status: result.status, timedOut: result.timedOut || result.status == 124 || result.status == 137, output: output)
    }

    /// The source line in an Apple-style log prefix (`-[PFUbiquityBaseline rollBaseline](204):`)
    /// left out of every comparison: it moves with any edit of the file that logs, which says
    /// nothing about whether the doc is right.
    static func withoutSourceLines(_ line: String) -> String {
        line.replacingOccurrences(of: "^(-\\[[A-Za-z]+ [A-Za-z:]+\\])\\([0-9]+\\):", with: "$1(…):", options: .regularExpression)
    }

    /// Peer IDs and UUIDs, dates, long numbers (stamps), durations and byte counts as
    /// placeholders, for blocks marked `masked`: what differs between two runs of one command.
    static func mask(_ text: String) -> String {
        var masked = text
        for (pattern, replacement) in [("[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", "<UUID>"),
                                       ("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z", "<DATE>"),
                                       ("[0-9]{10,}", "<N>"),
                                       ("[0-9]+(\\.[0-9]+)? (s|ms|bytes)\\b", "<N> $2")] {
            masked = masked.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return masked
    }
}
