import Foundation

/// A path's folder and last component as `NSString.deletingLastPathComponent` and
/// `lastPathComponent` give them, which cost ~100,000 instructions a call on Linux
/// (`_stringByFixingSlashes`): an ASCII path with a `/` after its start and none doubled or
/// trailing is cut at its last `/` byte; any other path goes to Foundation.
public enum PlainPath {
    /// `path`'s folder (`NSString.deletingLastPathComponent`).
    public static func folder(of path: String) -> String {
        guard let slash = lastSlash(path) else { return (path as NSString).deletingLastPathComponent }
        return String(decoding: path.utf8.prefix(slash), as: UTF8.self)
    }

    /// `path`'s last component (`NSString.lastPathComponent`).
    public static func lastComponent(of path: String) -> String {
        guard let slash = lastSlash(path) else { return (path as NSString).lastPathComponent }
        return String(decoding: path.utf8.dropFirst(slash + 1), as: UTF8.self)
    }

    /// The byte offset of the last `/` of a plain ASCII path, `nil` for any other path.
    private static func lastSlash(_ path: String) -> Int? {
        var path = path
        return path.withUTF8 { utf8 -> Int? in
            // A pointer loop: a debug build runs `enumerated()` in generic code (every atomic write comes here).
            guard let bytes = utf8.baseAddress else { return nil }
            let slash = UInt8(ascii: "/")
            let count = utf8.count
            var previous: UInt8 = 0, last: Int?, offset = 0
            while offset < count {
                let byte = bytes[offset]
                if byte >= 0x80 || (byte == slash && previous == slash) { return nil }
                if byte == slash { last = offset }
                previous = byte
                offset += 1
            }
            guard let last, last > 0, previous != slash else { return nil }
            return last
        }
    }
}
