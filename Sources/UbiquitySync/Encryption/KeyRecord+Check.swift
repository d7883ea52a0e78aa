import Crypto
import Foundation

// A key record checked by a device that holds the content key, without the passphrase: the
// passphrase seal authenticates the key ID and the parameters, but only for whoever knows the
// passphrase; the check lets every holder of the key tell the record it wrote from one altered
// since, and put back a key ID that was changed.
extension KeyRecord {
    static let checkSize = 32

    /// HMAC-SHA256, under a key made from `key`, of what the passphrase seal authenticates
    /// (with `keyID` for the record's), the salt and the wrapped key.
    func check(under key: ContentKey, keyID: String) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: checkedBytes(keyID: keyID), using: Self.checkKey(key)))
    }

    /// Whether the record's check holds under `key` with `keyID` in place of the record's.
    func verifies(under key: ContentKey, keyID: String) -> Bool {
        guard let keyCheck else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(keyCheck, authenticating: checkedBytes(keyID: keyID), using: Self.checkKey(key))
    }

    /// The record as it was written for `key`, when only its key ID has changed since (its
    /// check holds with `key`'s ID put back); `nil` otherwise.
    package func restored(for key: ContentKey) -> KeyRecord? {
        guard keyID != key.idHex, verifies(under: key, keyID: key.idHex) else { return nil }
        var record = self
        record.keyID = key.idHex
        return record
    }

    /// Whether the record names `key` but its wrapped key, salt or parameters are no longer
    /// those written with it (a record without a check is never known to be so).
    package func isAlteredWrapping(of key: ContentKey) -> Bool {
        keyID == key.idHex && keyCheck != nil && !verifies(under: key, keyID: keyID)
    }

    /// This record with its key ID set to `key`'s and a check under it: for a record whose
    /// passphrase seal opened under that ID, so everything else in it is as written.
    package func confirmed(for key: ContentKey) -> KeyRecord {
        var record = self
        record.keyID = key.idHex
        record.keyCheck = record.check(under: key, keyID: key.idHex)
        return record
    }

    private func checkedBytes(keyID: String) -> Data {
        Data(authenticatedData(keyID: keyID) + Array("|".utf8) + salt + wrappedKey)
    }

    private static func checkKey(_ key: ContentKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key.key, info: Data("ubiquity key record check 1".utf8), outputByteCount: checkSize)
    }
}
