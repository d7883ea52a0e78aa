import Foundation
import Testing
@testable import Ubiquity

/// What the bug-report tests compare: a device's block as `status` shows it, and every value a
/// store holds, searched for in a redacted archive.
extension CLIBugReportTests {
    /// The parts of `ubiq status --json` that say why a sync stalls: the files set aside (with
    /// their reasons unless `reasons` is false), the external data waited for, the saves of
    /// other model versions waited for.
    struct StatusBlock: Equatable, CustomStringConvertible {
        var quarantined: [String]
        var externalDataWaits: [String]
        var modelVersions: String

        init(_ status: [String: Any], reasons: Bool = true) throws {
            let container = try #require(status["container"] as? [String: Any], "a status with a container: \(status)")
            let set = (container["quarantined"] as? [[String: Any]]) ?? []
            quarantined = set.map { "\($0["path"] ?? "")" + (reasons ? ": \($0["reason"] ?? "")" : "") }.sorted()
            externalDataWaits = (((container["externalData"] as? [String: Any])?["waiting"] as? [String]) ?? []).sorted()
            // Each version's saves this store waits for, and which peers are on it now (read from
            // file modification times, which the archive keeps).
            let versions = ((container["modelVersions"] as? [String: Any])?["versions"] as? [[String: Any]]) ?? []
            modelVersions = versions.map {
                "\($0["modelHash"] ?? ""): peers \(($0["peers"] as? [String]) ?? []), waiting \(($0["waiting"] as? [String: Any] ?? [:]).sorted { $0.key < $1.key })"
            }
                .sorted().joined(separator: "; ")
        }

        var description: String { "quarantined \(quarantined), external data \(externalDataWaits), versions \(modelVersions)" }
    }

    /// `ubiq status --json` of the device a replay rebuilt in `work`, on the cloud it rebuilt there.
    func replayedStatus(_ sandbox: CLISandbox, work: String, _ arguments: [String] = []) throws -> [String: Any] {
        let run = try UbiqProcess(binary: sandbox.binary, arguments: ["status", "--json", "--cloud", work + "/cloud", "--device", work + "/device"] + arguments,
                                  directory: sandbox.root).wait()
        #expect(run.succeeded, "\(run)")
        return try json(run.stdout)
    }

    /// Byte patterns of every value a device's store holds (`ubiq dump --json`): each string in
    /// UTF-8 and UTF-16, each natural key, each number as text and as an 8-byte double either
    /// way round, dates from 1970 and from 2001 (SQLite's and a binary plist's forms). Booleans
    /// are kept by redaction; UUID keys too.
    static func storedValuePatterns(dump text: String) throws -> [(what: String, bytes: Data)] {
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        var patterns: [(String, Data)] = []
        func add(string: String) {
            guard string.count >= 4 else { return }
            patterns.append((string, Data(string.utf8)))
            patterns.append((string + " (UTF-16)", Data(string.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })))
        }
        func add(number: Double) {
            for value in [number, number - 978_307_200] {
                let bits = value.bitPattern
                patterns.append(("\(value)", withUnsafeBytes(of: bits.bigEndian) { Data($0) }))
                patterns.append(("\(value) (little-endian)", withUnsafeBytes(of: bits.littleEndian) { Data($0) }))
                if abs(value) >= 100_000 { patterns.append(("\(Int64(value))", Data(String(Int64(value)).utf8))) }
            }
        }
        for object in objects {
            if let id = object["id"] as? String, let key = id.split(separator: "/", maxSplits: 1).last, UUID(uuidString: String(key)) == nil {
                add(string: String(key))
            }
            for (_, value) in (object["values"] as? [String: Any]) ?? [:] {
                if let string = value as? String { add(string: string) }
                else if let number = value as? NSNumber, String(cString: number.objCType) != "c" { add(number: number.doubleValue) }   // "c": a boolean
            }
        }
        return patterns
    }
}
