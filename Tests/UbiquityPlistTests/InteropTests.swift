import Foundation
import Testing
@testable import UbiquityPlist

/// Values every implementation represents exactly. Dates are whole seconds because
/// Foundation's XML writer and plistlib's XML reader keep only whole seconds.
let interopSample: PlistValue = .dictionary([
    "string": .string("hello"), "unicode": .string("café 日本 😀"), "xml": .string("a < b & c > d"),
    "empty": .string(""), "zero": .integer(0), "minusOne": .integer(-1), "big": .integer(4_294_967_296),
    "min": .integer(.min), "max": .integer(.max), "real": .real(0.1), "negativeReal": .real(-2.5e-300),
    "huge": .real(1.7e308), "true": .boolean(true), "false": .boolean(false),
    "date": .date(1_700_000_000), "oldDate": .date(-1_000_000_000), "data": .data(Array(0 ... 200)),
    "emptyData": .data([]), "array": .array([.integer(1), .string("two"), .array([])]),
    "dict": .dictionary(["nested": .dictionary([:]), "list": .array([.boolean(false)])]),
    "shared": .array(Array(repeating: .string("again"), count: 5)),
])

@Suite struct FoundationInteropTests {
    /// Converts our value to the object graph Foundation serialises.
    static func foundationObject(_ value: PlistValue) -> Any {
        switch value {
        case let .string(s): return s
        case let .integer(i): return NSNumber(value: i)
        case let .unsignedInteger(u): return NSNumber(value: u)
        case let .real(d): return NSNumber(value: d)
        case let .boolean(b): return b
        case let .date(t): return Date(timeIntervalSince1970: t)
        case let .data(bytes): return Data(bytes)
        case .uid, .null: preconditionFailure("the interop samples hold no UIDs or nulls")
        case let .array(a): return a.map(foundationObject)
        case let .dictionary(d): return d.mapValues(foundationObject)
        }
    }

    /// Whether Foundation's decoded object graph matches `expected`.
    static func matches(_ expected: PlistValue, _ actual: Any, path: String = "") -> String? {
        switch expected {
        case let .string(s): return actual as? String == s ? nil : "\(path): \(actual) != \(s)"
        case let .integer(i):
            if type(of: actual) == Bool.self { return "\(path): boolean for integer" }
            return (actual as? NSNumber)?.int64Value == i ? nil : "\(path): \(actual) != \(i)"
        case let .unsignedInteger(u): return (actual as? NSNumber)?.uint64Value == u ? nil : "\(path): \(actual) != \(u)"
        case let .real(d):
            guard let a = (actual as? NSNumber)?.doubleValue else { return "\(path): not a number" }
            return a.bitPattern == d.bitPattern || (a.isNaN && d.isNaN) ? nil : "\(path): \(a) != \(d)"
        case let .boolean(b):
            // Foundation hands booleans back as Bool, integers as NSNumber/Int.
            return type(of: actual) == Bool.self && actual as? Bool == b ? nil : "\(path): \(actual) (\(type(of: actual))) != \(b)"
        case let .date(t):
            return (actual as? Date)?.timeIntervalSince1970 == t ? nil : "\(path): \(actual) != \(t)"
        case let .data(bytes): return actual as? Data == Data(bytes) ? nil : "\(path): data differs"
        case .uid, .null: return "\(path): the interop samples hold no UIDs or nulls"
        case let .array(a):
            guard let b = actual as? [Any], a.count == b.count else { return "\(path): array differs" }
            for i in a.indices { if let m = matches(a[i], b[i], path: "\(path)[\(i)]") { return m } }
            return nil
        case let .dictionary(d):
            guard let b = actual as? [String: Any], d.count == b.count else { return "\(path): dictionary differs" }
            for (k, v) in d {
                guard let other = b[k] else { return "\(path).\(k) missing" }
                if let m = matches(v, other, path: "\(path).\(k)") { return m }
            }
            return nil
        }
    }

    @Test(arguments: PlistFormat.allCases)
    func foundationReadsOurFiles(format: PlistFormat) throws {
        var sample = interopSample.dictionaryValue!
        sample["unsigned"] = .unsignedInteger(.max)
        if format == .binary { sample["fractionalDate"] = .date(1_700_000_000.123_456) }
        let bytes = try PropertyListCodec.encode(.dictionary(sample), format: format)
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        let mismatch = Self.matches(.dictionary(sample), object)
        #expect(mismatch == nil)
    }

    @Test(arguments: [(PlistFormat.binary, PropertyListSerialization.PropertyListFormat.binary),
                      (PlistFormat.xml, PropertyListSerialization.PropertyListFormat.xml)])
    func weReadFoundationFiles(format: PlistFormat, foundationFormat: PropertyListSerialization.PropertyListFormat) throws {
        var sample = interopSample.dictionaryValue!
        if format == .binary { sample["fractionalDate"] = .date(1_700_000_000.123_456) }
        let data = try PropertyListSerialization.data(fromPropertyList: Self.foundationObject(.dictionary(sample)),
                                                      format: foundationFormat, options: 0)
        #expect(PropertyListCodec.detectFormat(Array(data)) == format)
        #expect(try PropertyListCodec.decode(data) == .dictionary(sample))
    }

    /// Over 65,536 objects and a file above 64 KiB: 3-byte references and offsets.
    static let wide = PlistValue.array((0 ..< 70_000).map { .integer(Int64($0) * 1_000_003) })

    @Test func foundationReadsThreeByteReferencesAndOffsets() throws {
        let bytes = PropertyListCodec.encodeBinary(Self.wide)
        #expect(bytes[bytes.count - 26] == 3 && bytes[bytes.count - 25] == 3, "offset and reference widths")
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        #expect(Self.matches(Self.wide, object) == nil)
    }

    @Test func binaryOutputIsNoLargerThanFoundations() throws {
        let value = Samples.records(500)
        let ours = PropertyListCodec.encodeBinary(value)
        let theirs = try PropertyListSerialization.data(fromPropertyList: Self.foundationObject(value), format: .binary, options: 0)
        #expect(ours.count <= theirs.count, "ours \(ours.count) vs Foundation \(theirs.count)")
    }
}

/// Python's plistlib reads our files and writes them back; both directions are compared
/// through a canonical text dump (type-tagged, hex for strings, bytes and real bit patterns).
@Suite struct PythonInteropTests {
    static let script = #"""
    import plistlib, struct, sys, datetime
    def c(v):
        if isinstance(v, dict):
            return "{" + ",".join(k.encode().hex() + ":" + c(v[k]) for k in sorted(v, key=lambda k: k.encode())) + "}"
        if isinstance(v, list): return "[" + ",".join(c(x) for x in v) + "]"
        if isinstance(v, bool): return "T" if v else "F"
        if isinstance(v, int): return "i" + str(v)
        if isinstance(v, float): return "r" + struct.pack(">d", v).hex()
        if isinstance(v, str): return "s" + v.encode().hex()
        if isinstance(v, bytes): return "b" + v.hex()
        if isinstance(v, datetime.datetime):
            return "d" + str((v - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1))
        raise TypeError(type(v))
    src, outdir = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f: value = plistlib.load(f)
    print(c(value))
    with open(outdir + "/py.bplist", "wb") as f: plistlib.dump(value, f, fmt=plistlib.FMT_BINARY)
    with open(outdir + "/py.xml", "wb") as f: plistlib.dump(value, f, fmt=plistlib.FMT_XML)
    """#

    static func canonical(_ value: PlistValue) -> String {
        func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
            bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        }
        switch value {
        case let .dictionary(d):
            return "{" + d.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                .map { hex($0.utf8) + ":" + canonical(d[$0]!) }.joined(separator: ",") + "}"
        case let .array(a): return "[" + a.map(canonical).joined(separator: ",") + "]"
        case let .boolean(b): return b ? "T" : "F"
        case let .integer(i): return "i\(i)"
        case let .unsignedInteger(u): return "i\(u)"
        case let .real(d):
            let bits = String(d.bitPattern, radix: 16)
            return "r" + String(repeating: "0", count: 16 - bits.count) + bits
        case let .string(s): return "s" + hex(s.utf8)
        case let .data(bytes): return "b" + hex(bytes)
        case let .date(t): return "d\(Int64((t * 1_000_000).rounded()))"
        case let .uid(u): return "u\(u)"
        case .null: return "n"
        }
    }

    @Test(arguments: [false, true].flatMap { wide in PlistFormat.allCases.map { (wide, $0) } })
    func plistlibRoundTrip(wide: Bool, format: PlistFormat) throws {
        var sample = interopSample.dictionaryValue!
        if wide { sample["wide"] = FoundationInteropTests.wide }
        sample["unsigned"] = .unsignedInteger(.max)
        sample["nan"] = .real(.nan)
        sample["infinity"] = .real(-.infinity)
        let value = PlistValue.dictionary(sample)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ours.plist")
        try Data(PropertyListCodec.encode(value, format: format)).write(to: file)

        // Missing python3 is a failure, not a skip: CI installs it.
        guard let result = runPython(Self.script, [file.path, directory.path]), result.status != 127 else {
            Issue.record("python3 was not found on PATH: the plistlib interoperability tests need it")
            return
        }
        #expect(result.status == 0, "plistlib failed: \(result.err)")
        guard result.status == 0 else { return }
        #expect(result.out.trimmingCharacters(in: .whitespacesAndNewlines) == Self.canonical(value))
        for name in ["py.bplist", "py.xml"] {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
            #expect(try PropertyListCodec.decode(bytes) == value, "\(name)")
        }
    }
}
