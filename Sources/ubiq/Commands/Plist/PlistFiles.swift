import ArgumentParser
import Foundation
import Ubiquity

/// File handling shared by the `ubiq plist` commands: `-` is standard input or output, a
/// failure is reported as `FILE: reason` on stderr (as plutil does) and counted, so a
/// command goes on with its other files and exits 1 at the end.
struct PlistFiles {
    private(set) var failed = false

    /// The document in `path`, or nil after reporting why it could not be read.
    mutating func read(_ path: String) -> PlistDocument? {
        let bytes: [UInt8]
        if path == "-" {
            bytes = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        } else {
            do { bytes = try AtomicFile.read(path, limit: PlistDocument.toolLimits.maxBytes, followingLinks: true) } catch {
                report(path, error.message)
                return nil
            }
        }
        do { return try PlistDocument(decoding: bytes) } catch {
            report(path, error.description)
            return nil
        }
    }

    /// Writes `bytes` to `path` atomically, or to standard output for `-`.
    mutating func write(_ bytes: [UInt8], to path: String, for file: String) {
        if path == "-" { return Console.outBytes(bytes) }
        do { try AtomicFile.write(bytes, to: GlobalOptions.absolute(path)) } catch { report(file, "\(error)") }
    }

    mutating func report(_ file: String, _ reason: String) {
        failed = true
        FileHandle.standardError.write(Data("\(file): \(Console.oneLine(reason))\n".utf8))
    }

    /// Exit 1 when any file failed, as plutil.
    func finish() throws {
        if failed { throw ExitCode(1) }
    }
}
