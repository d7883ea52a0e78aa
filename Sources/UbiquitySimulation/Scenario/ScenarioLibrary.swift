import Foundation
import Ubiquity

/// Where scenario files are found: the built-ins in `containers/scenarios/` (or the folder
/// `$UBIQUITY_SCENARIOS` names), or any file path.
public enum ScenarioLibrary {
    /// The folder of built-in scenarios: `$UBIQUITY_SCENARIOS`, else `containers/scenarios`
    /// in the current directory or in a folder above `executable` (a `swift run` build).
    public static func directory(executable: String? = nil) -> String? {
        PackageFile.find("containers/scenarios", named: "UBIQUITY_SCENARIOS", executable: executable, directory: true)
    }

    /// The built-in scenarios, by name, each with its path.
    public static func builtIns(executable: String? = nil) -> [(name: String, path: String)] {
        guard let directory = directory(executable: executable) else { return [] }
        return DirectoryEntry.list(directory).filter { $0.isRegularFile && $0.name.hasSuffix(".scenario") }
            .map { (($0.name as NSString).deletingPathExtension, directory + "/" + $0.name) }
    }

    /// A built-in scenario by name, or a scenario file by path.
    public static func load(_ nameOrPath: String, executable: String? = nil) throws(ScenarioError) -> Scenario {
        if let builtIn = builtIns(executable: executable).first(where: { $0.name == nameOrPath }) {
            var scenario = try ScenarioParser.load(path: builtIn.path)
            scenario.reference = builtIn.name
            return scenario
        }
        guard DirectoryEntry.at(nameOrPath)?.isRegularFile == true else {
            let known = builtIns(executable: executable).map(\.name)
            throw ScenarioError(source: nameOrPath, line: 0, known.isEmpty
                ? "no such scenario file, and no built-in scenarios were found (run from the package folder, or set UBIQUITY_SCENARIOS)"
                : "no such scenario file or built-in scenario (built-in: \(known.joined(separator: ", ")))")
        }
        return try ScenarioParser.load(path: nameOrPath)
    }
}
