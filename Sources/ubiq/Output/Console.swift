import Foundation
import Ubiquity

/// Output of the tool. Everything goes through unbuffered `write(2)` calls so that a line is
/// out of the process the moment it is written: `soak` promises that a printed ID was saved,
/// and a process killed right after must not lose lines still sitting in a stdio buffer.
enum Console {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func outBytes(_ bytes: [UInt8]) {
        FileHandle.standardOutput.write(Data(bytes))
    }

    /// A line on standard error that is not an error (progress of a long run).
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// The one-line error every failure ends in: `ubiq: error: …`.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data(("ubiq: error: " + oneLine(message) + "\n").utf8))
    }

    /// Library messages may hold line breaks (e.g. a list of conflicts); an error stays one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// The text people see for any error: the library's own message, its remedies worded as
    /// commands of this tool.
    static func describe(_ error: any Error) -> String {
        (error as? any AdvisingError)?.advice.commandText ?? String(describing: error)
    }
}
