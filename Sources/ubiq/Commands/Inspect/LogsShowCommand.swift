import ArgumentParser
import Foundation
import Ubiquity

struct LogsShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Decode one log: author, number, knowledge, stamp and every change.",
        discussion: "FILE is a path, or a path relative to the ubiquity root as 'logs list' prints it.\nExample: ubiq logs show --json FILE --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The log file.") var file: String
    @Flag(help: "Print JSON.") var json = false
    @Option(help: "Print the log as a property list: 'xml'.") var plist: String?

    func run() throws {
        if let plist, plist != "xml" { throw CLIError("--plist takes 'xml'") }
        let log = try LogInspection.read(file, configuration: try global.unlockedConfiguration())
        if plist != nil {
            Console.outBytes(try PropertyListCodec.encode(log.plistValue, format: .xml))
        } else {
            Console.out(json ? log.jsonValue.text() : log.text)
        }
    }
}
