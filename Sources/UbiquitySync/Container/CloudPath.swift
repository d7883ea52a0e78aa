import Foundation

/// How a device remembers its cloud's path and compares another with it: absolute, without
/// `.`, `..` or repeated slashes; two spellings of one folder (a link to it) are the same cloud.
enum CloudPath {
    /// `path` made absolute (from the working folder) and cleaned lexically.
    static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var components: [Substring] = []
        for component in absolute.split(separator: "/") where component != "." {
            if component == ".." { _ = components.popLast() } else { components.append(component) }
        }
        return "/" + components.joined(separator: "/")
    }

    /// `path` (absolute, normalized) as seen from the folder `base` (absolute, normalized):
    /// `../../cloud` for `/x/cloud` from `/x/devices/phone`.
    static func relative(_ path: String, from base: String) -> String {
        let target = path.split(separator: "/"), origin = base.split(separator: "/")
        var shared = 0
        while shared < min(target.count, origin.count), target[shared] == origin[shared] { shared += 1 }
        let parts = Array(repeating: "..", count: origin.count - shared) + target[shared...].map(String.init)
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// Whether `a` and `b` name one folder: the same text, or both exist and resolve to it.
    static func same(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        guard let left = realpath(a, nil), let right = realpath(b, nil) else { return false }
        defer { free(left); free(right) }
        return strcmp(left, right) == 0
    }
}
