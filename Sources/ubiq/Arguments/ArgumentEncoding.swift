import Foundation

/// Arguments must be UTF-8. `CommandLine.arguments` repairs what is not (every invalid byte
/// and every encoded surrogate becomes U+FFFD), so `title=caf$'\xff'` would store a character
/// nobody typed and `key$'\xff'` would name another key than the one given: the raw bytes
/// are checked before anything reads them, and such an argument is refused by its position
/// and its bytes.
enum ArgumentEncoding {
    /// The problem with the first argument (after the program's name) that is not valid UTF-8,
    /// or `nil` when all are.
    static func invalidArgument() -> String? {
        let argv = CommandLine.unsafeArgv
        for index in 1 ..< Int(CommandLine.argc) {
            guard let pointer = argv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            if String(validating: bytes, as: UTF8.self) == nil {
                return "argument \(index) is not valid UTF-8: '\(escaped(bytes))' (a key or value must be UTF-8 text)"
            }
        }
        return nil
    }

    /// The bytes as text, each byte that is not printable ASCII as `\xHH` (so that the error
    /// shows exactly what was given).
    static func escaped(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF")
        var text = ""
        for byte in bytes {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") {
                text.append(Character(Unicode.Scalar(byte)))
            } else {
                text += "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
            }
        }
        return text
    }
}
