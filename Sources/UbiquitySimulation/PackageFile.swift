import Foundation
import Ubiquity

/// Files that ship in the package folder rather than in the binary (the built-in scenarios, the
/// Syncthing hosts script): named by an environment variable, else found in the current
/// directory or in a folder above the executable (a `swift build` product lives inside the
/// package).
enum PackageFile {
    static func find(_ relativePath: String, named variable: String, executable: String?, directory: Bool) -> String? {
        if let named = ProcessInfo.processInfo.environment[variable], !named.isEmpty { return named }
        var candidates = [FileManager.default.currentDirectoryPath]
        if var folder = executable.map({ ($0 as NSString).deletingLastPathComponent }) {
            while folder.count > 1 {
                candidates.append(folder)
                folder = (folder as NSString).deletingLastPathComponent
            }
        }
        return candidates.map { $0 + "/" + relativePath }.first { path in
            guard let entry = DirectoryEntry.at(path) else { return false }
            return directory ? entry.isDirectory : entry.isRegularFile
        }
    }
}
