/// Validation of every name that comes from the cloud or the command line and becomes part of
/// a path (Docs/ContainerFormat.md): no separators, no `..`, bounded length, a known alphabet.
public enum CloudNames {
    /// Peer IDs: `<user>~<device UUID>[~<peer token>]`, lower-case letters, digits, `.`, `_`, `-`,
    /// `@`, `+`, `~`; at most 200 bytes; never `.` or `..` or starting with `.`.
    public static func isValidPeerID(_ name: String) -> Bool {
        // Every name of the ubiquity root and every journaled path asks: one plain pointer loop
        // over the bytes (a debug build runs `allSatisfy` and `contains` as generic code per byte).
        var name = name
        return name.withUTF8 { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0, bytes.count <= 200, base[0] != UInt8(ascii: ".") else { return false }
            var index = 0, tilde = false
            while index < bytes.count {
                let byte = base[index]
                index += 1
                if (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) { continue }
                switch byte {
                case UInt8(ascii: "~"): tilde = true
                case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "@"), UInt8(ascii: "+"): break
                default: return false
                }
            }
            return tilde
        }
    }

    /// Content names: letters, digits, `_`, `-`; no periods (Apple's rule); at most 100 bytes.
    public static func isValidContentName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 100 && name.utf8.allSatisfy(isWordByte)
    }

    /// Identity tokens, container identifiers and store names: letters, digits, `.`, `_`, `-`,
    /// `@`, `+`; at most 200 bytes; not starting with `.`.
    public static func isValidPathComponent(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 200 && !name.hasPrefix(".")
            && name.utf8.allSatisfy { isWordByte($0) || ".@+".utf8.contains($0) }
    }

    /// A relative content URL such as `CoreData` or `Data/Sync`: components that are valid path
    /// components, none `.nosync`.
    public static func isValidContentURL(_ path: String) -> Bool {
        !path.hasPrefix("/") && !path.contains(ContainerLocation.temporarySuffix)
            && path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { isValidPathComponent(String($0)) }
    }

    /// A name as an error message quotes it: whole when short, else its start and its length
    /// (an error stays one readable line whatever was typed).
    public static func quoted(_ name: String) -> String {
        name.utf8.count <= 80 ? "'\(name)'" : "'\(name.prefix(60))…' (\(name.utf8.count) bytes)"
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
