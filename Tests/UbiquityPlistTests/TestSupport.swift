import Foundation
@testable import UbiquityPlist
@_exported import UbiquityBase

enum Samples {
    /// One value of every kind with the edges the codec must preserve exactly.
    static let everything: PlistValue = .dictionary([
        "emptyString": .string(""),
        "emptyArray": .array([]),
        "emptyDict": .dictionary([:]),
        "emptyData": .data([]),
        "integers": .array([
            .integer(0), .integer(-1), .integer(1), .integer(255), .integer(256), .integer(65_535),
            .integer(65_536), .integer(4_294_967_295), .integer(4_294_967_296), .integer(Int64.min),
            .integer(Int64.max), .unsignedInteger(UInt64(Int64.max) + 1), .unsignedInteger(UInt64.max),
        ]),
        "reals": .array([
            .real(0), .real(-0.0), .real(.nan), .real(.infinity), .real(-.infinity), .real(0.1),
            .real(-1.5), .real(.leastNonzeroMagnitude), .real(.leastNormalMagnitude),
            .real(.greatestFiniteMagnitude), .real(1e16), .real(123_456_789.123_456_78), .real(1e-7),
        ]),
        "booleans": .array([.boolean(true), .boolean(false)]),
        "dates": .array([
            .date(0), .date(1_700_000_000), .date(1_700_000_000.123_456), .date(1_700_000_000.5),
            .date(-1_000_000_000.25), .date(-86_400.25), .date(978_307_200), .date(978_307_199.999),
            .date(500_000_000.000_001), .date(-0.5), .date(-12_000_000_000), .date(253_402_300_799.75),
        ]),
        "strings": .array([
            .string("plain ASCII"), .string("café naïve"), .string("日本語テキスト"), .string("emoji 😀👍🏽 𝄞"),
            .string("<tag> & \"quotes\" 'apostrophes' ]]> &amp;"), .string("tab\tnewline\nreturn\rend"),
            .string("  leading and trailing spaces  "), .string(String(repeating: "long string ", count: 100)),
        ]),
        "data": .data(Array(0 ... 255)),
        "nested": .array([.dictionary(["a": .array([.dictionary(["b": .integer(1)])])])]),
        "non-ASCII key é": .string("value"),
        "shared": .array(Array(repeating: .string("same"), count: 20)),
    ])

    static func nested(depth: Int) -> PlistValue {
        var value = PlistValue.string("bottom")
        for i in 0 ..< depth { value = i % 2 == 0 ? .array([value]) : .dictionary(["k": value]) }
        return value
    }

    /// Change records shaped like transaction-log entries.
    static func records(_ count: Int, seed: UInt64 = 1) -> PlistValue {
        var rng = SeededGenerator(seed: seed)
        var list = [PlistValue]()
        for i in 0 ..< count {
            list.append(.dictionary([
                "gid": .string("Note/\(UUID())"),
                "entity": .string("Note"),
                "values": .dictionary([
                    "title": .string("Title \(i) ✓"),
                    "count": .integer(Int64(rng.next() % 100_000) - 50_000),
                    "score": .real(Double(rng.next() % 1_000_000) / 1000),
                    "done": .boolean(rng.next() % 2 == 0),
                    "modified": .date(1_700_000_000 + Double(rng.next() % 10_000_000) / 1000),
                ]),
            ]))
        }
        return .dictionary(["format": .integer(1), "inserted": .array(list)])
    }
}

/// A binary plist assembled by hand so tests can corrupt any part of it.
struct HandmadeBinaryPlist {
    var objects: [[UInt8]]
    var offsetSize: UInt8 = 1
    var refSize: UInt8 = 1
    var top: UInt64 = 0
    var objectCount: UInt64?
    var tableOffset: UInt64?
    var offsets: [UInt64]?

    var bytes: [UInt8] {
        var out = Array("bplist00".utf8)
        var computed = [UInt64]()
        for object in objects {
            computed.append(UInt64(out.count))
            out += object
        }
        let table = UInt64(out.count)
        for offset in offsets ?? computed { out += bigEndian(offset, Int(offsetSize)) }
        out += [0, 0, 0, 0, 0, 0, offsetSize, refSize]
        out += bigEndian(objectCount ?? UInt64(objects.count), 8)
        out += bigEndian(top, 8)
        out += bigEndian(tableOffset ?? table, 8)
        return out
    }

    private func bigEndian(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0 ..< width).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - $0))) }
    }
}

/// Runs `python3 -c script args…`; returns (exit status, stdout, stderr), or nil when
/// python3 cannot be started.
func runPython(_ script: String, _ arguments: [String]) -> (status: Int32, out: String, err: String)? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    do { try process.run() } catch { return nil }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ubiquity-plist-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
