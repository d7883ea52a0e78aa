import ArgumentParser
import Ubiquity

struct PlistConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Rewrite each FILE as an XML, binary or JSON property list (in place unless -o).",
        discussion: """
            JSON is typed and lossless: dates, data, UIDs and non-finite reals become \
            {"$date": …}, {"$data": …}, {"$uid": …}, {"$real": …}, and converting it back gives \
            the same plist; --plain writes bare values instead (see Docs/PlistCodec.md). XML \
            cannot hold null or a string with a control character such as U+0001: such a file \
            fails and is left as it was. plutil's spelling: ubiq plist -convert xml1|binary1|json FILE

            Examples:
              ubiq plist convert --to json Info.plist -o Info.json
              ubiq plist convert --to binary Info.json -o -    (to standard output)
            """)

    @Option(help: ArgumentHelp("The format to write: xml, binary or json (also xml1, binary1).", valueName: "format"))
    var to: PlistTargetFormat

    @Option(name: [.customShort("o"), .long],
            help: ArgumentHelp("Write here instead of over FILE ('-' for standard output); one FILE only.", valueName: "out"))
    var output: String?

    @Flag(help: "With --to json: bare JSON values (dates and data as strings), not read back as a plist.")
    var plain = false

    @Argument(help: ArgumentHelp("The files ('-' for standard input, written to standard output).", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        try Self.check(files: files, output: output)
        if plain && to.format != .json { throw ValidationError("--plain applies to --to json only") }
    }

    func run() throws { try Self.convert(files, to: to.format, style: plain ? .plain : .typed, output: output) }

    static func check(files: [String], output: String?) throws {
        if files.isEmpty { throw ValidationError("give at least one FILE to convert") }
        if output != nil && files.count > 1 { throw ValidationError("-o takes one FILE, not \(files.count)") }
    }

    static func convert(_ files: [String], to format: PlistDocument.Format, style: PlistJSON.Style, output: String?) throws {
        var io = PlistFiles()
        for file in files {
            guard let document = io.read(file) else { continue }
            let bytes: [UInt8]
            do { bytes = try document.encoded(as: format, jsonStyle: style) } catch {
                io.report(file, error.description)
                continue
            }
            io.write(bytes, to: output ?? file, for: file)
        }
        try io.finish()
    }
}
