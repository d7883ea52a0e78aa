import ArgumentParser
import Ubiquity

/// A `--to`/`-convert` value: our names and plutil's.
struct PlistTargetFormat: ExpressibleByArgument {
    let format: PlistDocument.Format

    init?(argument: String) {
        switch argument {
        case "xml", "xml1": format = .xml
        case "binary", "binary1": format = .binary
        case "json": format = .json
        default: return nil
        }
    }

    static var allValueStrings: [String] { ["xml", "binary", "json", "xml1", "binary1"] }
}
