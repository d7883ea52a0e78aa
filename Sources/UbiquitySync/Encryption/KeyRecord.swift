import _CryptoExtras
import Crypto
import Foundation
import UbiquityBase
import UbiquityPlist

/// The cost of deriving a key from a passphrase with scrypt: `2^logN` rounds, block size `r`,
/// parallelism `p` (memory ≈ 128 · r · 2^logN bytes). Stored in the key record, so every device
/// derives alike; the bounds keep a hostile record from making a device work or allocate without end.
public struct ScryptParameters: Sendable, Equatable {
    public var logN: Int
    public var r: Int
    public var p: Int

    public init(logN: Int, r: Int = 8, p: Int = 1) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// 2^15 rounds, r = 8, p = 1: 32 MiB and about a tenth of a second here, the usual interactive setting.
    public static let standard = ScryptParameters(logN: 15)
    /// 2^10 rounds: for tests and scenarios only (a passphrase guessed a thousand times faster).
    public static let fast = ScryptParameters(logN: 10)

    public static let logNRange = 10...20, rRange = 1...16, pRange = 1...4
    /// The most memory a derivation may take (128 · r · 2^logN bytes).
    public static let maximumMemory = 256 << 20

    /// Why these parameters are refused, or `nil`.
    public var problem: String? {
        guard Self.logNRange.contains(logN) else { return "scrypt log2(N) must be \(Self.logNRange.lowerBound) to \(Self.logNRange.upperBound), not \(logN)" }
        guard Self.rRange.contains(r) else { return "scrypt r must be \(Self.rRange.lowerBound) to \(Self.rRange.upperBound), not \(r)" }
        guard Self.pRange.contains(p) else { return "scrypt p must be \(Self.pRange.lowerBound) to \(Self.pRange.upperBound), not \(p)" }
        guard 128 * r << logN <= Self.maximumMemory else {
            return "scrypt with log2(N) \(logN) and r \(r) needs \((128 * r << logN) >> 20) MiB; at most \(Self.maximumMemory >> 20) MiB is allowed"
        }
        return nil
    }
}

/// `.encryption/<ContentName>.plist` in the ubiquity root: the content key wrapped under a key
/// derived from the passphrase. Plaintext itself (a device needs it before it has any key); it
/// holds no user data: the key's ID, the scrypt salt and parameters, the wrapped key, two dates.
package struct KeyRecord: Sendable, Equatable {
    package var keyID: String
    package var salt: [UInt8]
    package var parameters: ScryptParameters
    /// Nonce (12 bytes), the sealed content key (32) and the tag (16): AES-256-GCM under the
    /// passphrase's key, authenticating the key ID and the parameters.
    package var wrappedKey: [UInt8]
    package var created: Double
    /// When the passphrase last changed (the creation date until then).
    package var changed: Double
    /// HMAC-SHA256 of the record under a key made from the content key (`KeyRecord+Check.swift`),
    /// so a device holding the key checks the record without the passphrase; `nil` in records
    /// written before it was kept.
    package var keyCheck: [UInt8]?

    /// Wraps `key` under `passphrase` with a new salt.
    package static func wrap(_ key: ContentKey, passphrase: String, parameters: ScryptParameters, date: Double, created: Double? = nil) throws -> KeyRecord {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        var record = KeyRecord(keyID: key.idHex, salt: salt, parameters: parameters, wrappedKey: [], created: created ?? date, changed: date)
        let box = try AES.GCM.seal(key.bytes, using: try record.passphraseKey(passphrase), authenticating: record.authenticatedData)
        guard let combined = box.combined else { throw EncryptionError.damagedRecord("the key could not be wrapped") }
        record.wrappedKey = Array(combined)
        record.keyCheck = record.check(under: key, keyID: record.keyID)
        return record
    }

    /// The content key, when `passphrase` is the one it was wrapped under. The seal
    /// authenticates the key ID: a record whose ID was changed opens only under the ID it was
    /// written with, so each of `keyIDs` (those the content's files are sealed under) is tried
    /// after the record's own, and the key returned carries the ID it opened under.
    package func unwrap(passphrase: String, alsoUnder keyIDs: [String] = []) throws(EncryptionError) -> ContentKey {
        let kek: SymmetricKey
        do { kek = try passphraseKey(passphrase) } catch { throw .damagedRecord("scrypt refused its parameters: \(error)") }
        guard let box = try? AES.GCM.SealedBox(combined: wrappedKey) else { throw .wrongPassphrase }
        for candidate in [keyID] + keyIDs.filter({ $0 != keyID }) {
            guard let bytes = try? AES.GCM.open(box, using: kek, authenticating: authenticatedData(keyID: candidate)) else { continue }
            guard let id = ContentKey.bytes(hex: candidate), let key = ContentKey(id: id, bytes: Array(bytes)) else {
                throw .damagedRecord("the key ID or the key has the wrong length")
            }
            return key
        }
        throw .wrongPassphrase
    }

    private func passphraseKey(_ passphrase: String) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(from: Array(passphrase.utf8), salt: salt, outputByteCount: ContentKey.keySize,
                                 rounds: 1 << parameters.logN, blockSize: parameters.r, parallelism: parameters.p)
    }

    private var authenticatedData: [UInt8] { authenticatedData(keyID: keyID) }

    /// What the passphrase seal authenticates besides the key: the key ID and the parameters.
    func authenticatedData(keyID: String) -> [UInt8] {
        Array("ubiquity content key 1|\(keyID)|scrypt|\(parameters.logN)|\(parameters.r)|\(parameters.p)".utf8)
    }

    // MARK: The file

    var plistValue: PlistValue {
        var fields: [String: PlistValue] = [
            "format": .integer(1), "keyID": .string(keyID), "cipher": .string("AES-256-GCM"), "kdf": .string("scrypt"),
            "salt": .data(salt), "logN": .integer(Int64(parameters.logN)), "r": .integer(Int64(parameters.r)),
            "p": .integer(Int64(parameters.p)), "wrappedKey": .data(wrappedKey), "created": .real(created), "changed": .real(changed),
        ]
        if let keyCheck { fields["keyCheck"] = .data(keyCheck) }
        return .dictionary(fields)
    }

    init(keyID: String, salt: [UInt8], parameters: ScryptParameters, wrappedKey: [UInt8], created: Double, changed: Double, keyCheck: [UInt8]? = nil) {
        self.keyID = keyID
        self.salt = salt
        self.parameters = parameters
        self.wrappedKey = wrappedKey
        self.created = created
        self.changed = changed
        self.keyCheck = keyCheck
    }

    init(decoding bytes: [UInt8]) throws(EncryptionError) {
        guard let plist = try? PlistSeam.decode(bytes) else { throw .damagedRecord("not a readable property list") }
        guard plist["format"]?.int64Value == 1, plist["cipher"]?.stringValue == "AES-256-GCM", plist["kdf"]?.stringValue == "scrypt" else {
            throw .damagedRecord("an unknown format, cipher or key derivation")
        }
        guard let keyID = plist["keyID"]?.stringValue, ContentKey.bytes(hex: keyID)?.count == ContentKey.idSize,
              let salt = plist["salt"]?.dataValue, (16...64).contains(salt.count),
              let logN = plist["logN"]?.int64Value, let r = plist["r"]?.int64Value, let p = plist["p"]?.int64Value,
              let wrapped = plist["wrappedKey"]?.dataValue, wrapped.count == 12 + ContentKey.keySize + 16 else {
            throw .damagedRecord("a missing or malformed field")
        }
        let parameters = ScryptParameters(logN: Int(clamping: logN), r: Int(clamping: r), p: Int(clamping: p))
        if let problem = parameters.problem { throw .damagedRecord(problem) }
        let created = plist["created"]?.doubleValue ?? 0, changed = plist["changed"]?.doubleValue ?? 0
        // A check of another length is none: the record is then checked as one written before checks were kept.
        let keyCheck = plist["keyCheck"]?.dataValue.map(Array.init).flatMap { $0.count == Self.checkSize ? $0 : nil }
        self.init(keyID: keyID, salt: Array(salt), parameters: parameters, wrappedKey: Array(wrapped),
                  created: created.isFinite ? created : 0, changed: changed.isFinite ? changed : 0, keyCheck: keyCheck)
    }

    package var encoded: [UInt8] { PlistSeam.encode(plistValue, format: .xml) }
}
