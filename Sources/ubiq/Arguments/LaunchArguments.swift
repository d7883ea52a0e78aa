import Foundation

/// Apple's launch argument `-com.apple.coredata.ubiquity.logLevel N` (Docs/CLI.md).
///
/// ArgumentParser would reject it, and it may stand anywhere on the line, so it is taken out
/// before parsing and handed on through `UBIQUITY_LOG_LEVEL`, which `--log-level` overrides.
enum LaunchArguments {
    static let appleLogLevel = "-com.apple.coredata.ubiquity.logLevel"

    static func extractingAppleLogLevel(from arguments: [String]) -> [String] {
        var remaining: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                remaining += arguments[index...]
                break
            }
            if argument == appleLogLevel, index + 1 < arguments.endIndex {
                setenv("UBIQUITY_LOG_LEVEL", arguments[index + 1], 1)
                index += 2
                continue
            }
            remaining.append(argument)
            index += 1
        }
        return remaining
    }
}
