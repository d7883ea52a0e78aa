import Foundation

/// Finds the `ubiq` executable the tests drive. The test target depends on `ubiq`, so SwiftPM
/// builds it into the products directory next to the test bundle; `UBIQ_BINARY` overrides.
enum UbiqBinary {
    struct NotFound: Error, CustomStringConvertible {
        let searched: [String]
        var description: String {
            "the ubiq executable was not found (looked at \(searched.joined(separator: ", "))); "
                + "build it with 'swift build --product ubiq' or set UBIQ_BINARY to its path"
        }
    }

    static func path(filePath: String = #filePath) throws -> String {
        var candidates: [String] = []
        if let override = ProcessInfo.processInfo.environment["UBIQ_BINARY"], !override.isEmpty {
            // An explicit choice is never second-guessed: if it is wrong, say so.
            guard isExecutable(override) else { throw NotFound(searched: [override]) }
            return override
        }
        for start in [CommandLine.arguments.first ?? "", Bundle.main.bundlePath, Bundle.main.executablePath ?? ""] where !start.isEmpty {
            var directory = URL(fileURLWithPath: start).standardizedFileURL
            for _ in 0..<4 {
                directory.deleteLastPathComponent()
                candidates.append(directory.appendingPathComponent("ubiq").path)
            }
        }
        // Last resort: the package's own build folders, found from this source file.
        var package = URL(fileURLWithPath: filePath)
        while package.path != "/" && !FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path) {
            package.deleteLastPathComponent()
        }
        for folder in [".build-cli", ".build"] {
            candidates.append(package.appendingPathComponent("\(folder)/debug/ubiq").path)
        }
        if let found = candidates.first(where: isExecutable) { return found }
        throw NotFound(searched: candidates)
    }

    private static func isExecutable(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}
