/// Standard base64 (RFC 4648 §4) for `<data>`: written in lines, read ignoring whitespace.
enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 255 marks bytes that are not base64 digits.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// Appends the encoding of `bytes` to `out`, `lineLength` characters per line, each line
    /// preceded by `indent` and followed by a newline.
    static func encode(_ bytes: [UInt8], lineLength: Int, indent: [UInt8], into out: inout [UInt8]) {
        var column = 0
        func emit(_ c: UInt8) {
            if column == 0 { out.append(contentsOf: indent) }
            out.append(c)
            column += 1
            if column == lineLength { out.append(0x0A); column = 0 }
        }
        var i = 0
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            emit(alphabet[Int(v >> 18)]); emit(alphabet[Int(v >> 12 & 63)])
            emit(alphabet[Int(v >> 6 & 63)]); emit(alphabet[Int(v & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let v = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            emit(alphabet[Int(v >> 18)]); emit(alphabet[Int(v >> 12 & 63)])
            emit(rest == 2 ? alphabet[Int(v >> 6 & 63)] : UInt8(ascii: "=")); emit(UInt8(ascii: "="))
        }
        if column != 0 { out.append(0x0A) }
    }

    /// Decodes, skipping ASCII whitespace; nil on any other non-base64 byte or bad padding.
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out = [UInt8]()
        out.reserveCapacity(text.count / 4 * 3)
        var accumulator: UInt32 = 0
        var digits = 0
        var padding = 0
        for c in text {
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { continue }
            if c == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            let v = values[Int(c)]
            guard v != 255, padding == 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(v)
            digits += 1
            if digits == 4 {
                out.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                out.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                out.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                digits = 0
            }
        }
        switch (digits, padding) {
        case (0, 0): break
        case (2, 0), (2, 2):
            out.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case (3, 0), (3, 1):
            out.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            out.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default: return nil
        }
        return out
    }
}
