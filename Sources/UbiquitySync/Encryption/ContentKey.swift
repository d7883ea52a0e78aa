import Crypto
import Foundation

/// The random key every sealed file of one encrypted content is sealed under, with its ID (16
/// random bytes, in every sealed file's header and in the key records, so a file sealed under
/// another key is told apart from a damaged one).
package struct ContentKey: Sendable {
    static let idSize = 16
    static let keySize = 32

    package let id: [UInt8]
    /// The key's 32 bytes (kept as bytes: `SymmetricKey` is not `Sendable`).
    let bytes: [UInt8]
    var key: SymmetricKey { SymmetricKey(data: bytes) }

    package var idHex: String { Self.hex(id) }

    /// A new random key and ID.
    package static func generate() -> ContentKey {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<idSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return ContentKey(id: id, bytes: SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })!
    }

    /// A key read back from its bytes; `nil` when they have the wrong lengths.
    init?(id: [UInt8], bytes: [UInt8]) {
        guard id.count == Self.idSize, bytes.count == Self.keySize else { return nil }
        self.id = id
        self.bytes = bytes
    }

    /// The key one sealed file is sealed under: HKDF-SHA256 of the content key and the file's salt.
    func fileKey(salt: [UInt8]) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: Data(salt), info: Data("ubiquity sealed file 1".utf8), outputByteCount: Self.keySize)
    }

    /// The cloud name of an external value of encrypted content: HMAC-SHA256 of its plaintext
    /// SHA-256 under a key derived from the content key, so the cloud shows no content hash.
    package func externalDataName(sha256: String) -> String {
        let nameKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data("ubiquity external data name 1".utf8), outputByteCount: Self.keySize)
        return Self.hex(Array(HMAC<SHA256>.authenticationCode(for: Data(sha256.utf8), using: nameKey)))
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func bytes(hex: String) -> [UInt8]? {
        let characters = Array(hex.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        for index in stride(from: 0, to: characters.count, by: 2) {
            guard let byte = UInt8(String(decoding: characters[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            result.append(byte)
        }
        return result
    }
}
