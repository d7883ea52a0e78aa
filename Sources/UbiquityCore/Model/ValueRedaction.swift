import Crypto
import Foundation

/// Deterministic stand-ins for stored values, made from a hash of each: the same value gets
/// the same stand-in everywhere (a store, a log, a baseline), and none can be read back.
/// Each keeps its type — a string becomes 16 hex digits, a number one below 10,000 (so it fits
/// any integer width), a date one between 2001 and 2033, bytes as many bytes, a UUID a UUID —
/// so what was valid stays valid in most models. Booleans are kept (a hash of one bit hides
/// nothing). An external value's reference becomes that of its stand-in bytes, of the same size.
package enum ValueRedaction {
    /// The stand-in of `value`.
    package static func redact(_ value: AttributeValue) -> AttributeValue {
        switch value {
        case .string(let text): return .string(hexDigits(tag: "string", Array(text.utf8)))
        case .integer(let integer): return .integer(Int64(number(tag: "integer", bytes(of: integer)) % 10_000))
        case .decimal(let decimal): return .decimal(DecimalNumber(Int64(number(tag: "decimal", Array(decimal.description.utf8)) % 10_000)))
        case .double(let double): return .double(Double(number(tag: "double", bytes(of: double.bitPattern)) % 1_000_000) / 100)
        case .float(let float): return .float(Float(number(tag: "float", bytes(of: float.bitPattern)) % 10_000) / 100)
        case .boolean: return value
        case .date(let seconds): return .date(secondsSince1970: Double(978_307_200 + number(tag: "date", bytes(of: seconds.bitPattern)) % 1_000_000_000))
        case .binary(let data): return .binary(standInBytes(seed: sha256(tag: "binary", data), count: data.count))
        case .externalBinary(let reference): return .externalBinary(externalStandIn(reference))
        case .uuid(let uuid): return .uuid(self.uuid(tag: "uuid", withUnsafeBytes(of: uuid.uuid) { Array($0) }))
        case .uri(let url): return .uri(URL(string: "x-redacted:" + hexDigits(tag: "uri", Array(url.absoluteString.utf8)))!)
        }
    }

    /// The stand-in of an object ID: its entity kept, a natural key replaced by `k` and 16 hex
    /// digits of its hash; a UUID key (one the library made) is no user data and stays.
    package static func redact(_ id: GlobalID) -> GlobalID {
        let key = id.key
        guard UUID(uuidString: key) == nil else { return id }
        return (try? GlobalID(entity: id.entity, key: "k" + hexDigits(tag: "key", Array(key.utf8)))) ?? id
    }

    /// `redact(_:)` of an object ID as text; text that is no object ID stays.
    package static func redactID(_ text: String) -> String {
        guard let id = try? GlobalID(text) else { return text }
        return redact(id).description
    }

    /// The stand-in of a value no declaration types, as SQLite holds it.
    package static func redact(_ value: SQLiteValue) -> SQLiteValue {
        switch value {
        case .null: return .null
        case .integer(let integer): return .integer(Int64(number(tag: "integer", bytes(of: integer)) % 10_000))
        case .real(let double): return .real(Double(number(tag: "double", bytes(of: double.bitPattern)) % 1_000_000) / 100)
        case .text(let text): return .text(hexDigits(tag: "string", Array(text.utf8)))
        case .blob(let data): return .blob(standInBytes(seed: sha256(tag: "binary", data), count: data.count))
        }
    }

    /// The reference of an external value's stand-in: `standInBytes` of its hash, as long.
    package static func externalStandIn(_ reference: ExternalDataReference) -> ExternalDataReference {
        var hash = SHA256()
        forEachDigest(seed: Array(reference.sha256.utf8), count: Int(reference.size)) { hash.update(data: $0) }
        return ExternalDataReference(sha256: hex(Array(hash.finalize())), size: reference.size)!
    }

    /// The stand-in bytes of an external data file named by `sha256` (its reference's hash).
    package static func externalStandInBytes(sha256: String, count: Int) -> [UInt8] {
        standInBytes(seed: Array(sha256.utf8), count: count)
    }

    /// `standInBytes(seed:count:)` handed to `body` a chunk of up to `chunkSize` bytes at a
    /// time, for files too large to hold in memory.
    package static func forEachStandInChunk(seed: [UInt8], count: Int, chunkSize: Int = 1 << 20,
                                            _ body: ([UInt8]) throws -> Void) throws {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(min(count, chunkSize))
        var failure: Error?
        forEachDigest(seed: seed, count: count) { digest in
            guard failure == nil else { return }
            chunk += digest
            if chunk.count >= chunkSize {
                do { try body(chunk) } catch { failure = error }
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if let failure { throw failure }
        if !chunk.isEmpty { try body(chunk) }
    }

    /// `count` bytes drawn from `seed`: SHA-256 of the seed and a block counter, block after block.
    package static func standInBytes(seed: [UInt8], count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        forEachDigest(seed: seed, count: count) { bytes += $0 }
        return bytes
    }

    /// Lower-case hex of SHA-256 of `bytes`.
    package static func sha256Hex(_ bytes: [UInt8]) -> String { hex(Array(SHA256.hash(data: bytes))) }

    private static func forEachDigest(seed: [UInt8], count: Int, _ body: (ArraySlice<UInt8>) -> Void) {
        var produced = 0, block: UInt64 = 0
        while produced < count {
            let digest = Array(SHA256.hash(data: seed + bytes(of: block)))
            let take = min(digest.count, count - produced)
            body(digest[0..<take])
            produced += take
            block += 1
        }
    }

    private static func sha256(tag: String, _ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: Array(tag.utf8) + [0] + bytes)) }
    private static func hexDigits(tag: String, _ bytes: [UInt8]) -> String { String(hex(sha256(tag: tag, bytes)).prefix(16)) }
    private static func number(tag: String, _ bytes: [UInt8]) -> UInt64 {
        sha256(tag: tag, bytes).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
    private static func uuid(tag: String, _ bytes: [UInt8]) -> UUID {
        var digest = sha256(tag: tag, bytes)
        digest[6] = digest[6] & 0x0F | 0x50   // a name-based UUID's version and variant bits
        digest[8] = digest[8] & 0x3F | 0x80
        return UUID(uuid: (digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                           digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]))
    }
    private static func bytes<T>(of value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text.append(digits[Int(byte >> 4)]); text.append(digits[Int(byte & 0x0F)]) }
        return String(decoding: text, as: UTF8.self)
    }
}
