import Foundation
import UbiquityPlist

/// A binary value kept outside logs and SQLite rows (Core Data's external storage): named by
/// the SHA-256 of its bytes, stored once per store and once in the cloud under
/// `.externalData/<ContentName>/` (Docs/ContainerFormat.md, "External binary data").
public struct ExternalDataReference: Hashable, Sendable, CustomStringConvertible {
    /// Lower-case hex SHA-256 of the value's bytes (64 characters).
    public let sha256: String
    /// The value's length in bytes.
    public let size: Int64

    /// Values of an attribute that allows external storage this large or larger are stored
    /// externally when saved (Core Data's threshold is about 100 KB too); smaller ones stay
    /// in the row and the log, so a small value costs no file.
    public static let threshold = 100 * 1024

    /// `nil` unless `sha256` is 64 lower-case hex digits and `size` is not negative.
    public init?(sha256: String, size: Int64) {
        guard size >= 0, sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        self.sha256 = sha256
        self.size = size
    }

    public var description: String { "<\(size) bytes, external \(sha256.prefix(12))…>" }

    // MARK: Forms

    /// The log form: `{externalData: <sha256>, size: <bytes>}` (a dictionary with keys, so
    /// never taken for the empty dictionary of an absent value).
    public var plistValue: PlistValue { .dictionary(["externalData": .string(sha256), "size": .integer(size)]) }

    /// Reads the log form; `nil` for anything else.
    public init?(plist: PlistValue) {
        guard case let .dictionary(fields) = plist, fields.count == 2, case let .string(hash)? = fields["externalData"],
              let size = fields["size"]?.int64Value else { return nil }
        self.init(sha256: hash, size: size)
    }

    /// The SQLite form, text in the binary column: `sha256:<hex>:<size>` (inline values are blobs).
    var sqliteText: String { "sha256:\(sha256):\(size)" }

    init?(sqliteText text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 3, parts[0] == "sha256", let size = Int64(parts[2]) else { return nil }
        self.init(sha256: String(parts[1]), size: size)
    }
}
