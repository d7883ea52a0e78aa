import Foundation
import UbiquityBase
import UbiquityPlist

/// The content key kept on a device (`content.key` in the account's folder of the device,
/// mode 0600), so daily commands need no passphrase: `{format: 1, keyID, key}`.
package enum DeviceKey {
    package static func read(_ path: String) throws(EncryptionError) -> ContentKey? {
        guard DirectoryEntry.at(path) != nil else { return nil }
        guard let bytes = try? AtomicFile.read(path, limit: 1 << 12), let plist = try? PlistSeam.decode(bytes),
              plist["format"]?.int64Value == 1, let id = plist["keyID"]?.stringValue.flatMap(ContentKey.bytes(hex:)),
              let key = plist["key"]?.dataValue.flatMap({ ContentKey(id: id, bytes: $0) }) else {
            throw .damagedRecord("the key kept on this device (\(path)) is unreadable")
        }
        return key
    }

    /// Writes `key` to `path`, readable and writable by its owner only.
    package static func write(_ key: ContentKey, to path: String) throws {
        try AtomicFile.makeDirectory((path as NSString).deletingLastPathComponent)
        let value = PlistValue.dictionary(["format": .integer(1), "keyID": .string(key.idHex), "key": .data(key.bytes)])
        try AtomicFile.write(PlistSeam.encode(value, format: .xml), to: path, mode: 0o600)
    }
}
