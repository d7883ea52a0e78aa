import Foundation

/// Encodes and decodes `PlistValue`s as binary (`bplist00`) or XML property lists,
/// compatible with CoreFoundation/Foundation and Python's `plistlib`.
public enum PropertyListCodec {
    /// Encodes `value`. Dictionary keys are written in UTF-8 byte order, so equal values
    /// always produce identical bytes.
    ///
    /// Binary plists hold every `PlistValue`. XML cannot hold a string with a character XML
    /// 1.0 forbids (U+0000–U+001F other than tab, line feed and carriage return; U+FFFE;
    /// U+FFFF) or `null`: for those this throws an error that names the value's path, rather
    /// than write something else.
    public static func encode(_ value: PlistValue, format: PlistFormat) throws(PlistError) -> [UInt8] {
        switch format {
        case .binary: return BinaryPlistWriter.encode(value)
        case .xml: return try XMLPlistWriter.encode(value)
        }
    }

    /// Encodes `value` as a binary plist, which holds every value and so cannot fail.
    public static func encodeBinary(_ value: PlistValue) -> [UInt8] {
        BinaryPlistWriter.encode(value)
    }

    /// Decodes a binary or XML property list (the format is sniffed), enforcing `limits`.
    public static func decode(_ bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError) -> PlistValue {
        try bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(PlistError) in try decode(buffer, limits: limits) }
        }.get()
    }

    /// Decodes a binary or XML property list held in `data`, without copying it.
    public static func decode(_ data: Data, limits: PlistLimits = .default) throws(PlistError) -> PlistValue {
        try data.withUnsafeBytes { raw in
            Result { () throws(PlistError) in try decode(raw.bindMemory(to: UInt8.self), limits: limits) }
        }.get()
    }

    /// `.binary` for a `bplist00` header, `.xml` when the first non-blank character (after an
    /// optional byte-order mark) is `<`, otherwise nil.
    public static func detectFormat(_ bytes: [UInt8]) -> PlistFormat? {
        bytes.withUnsafeBufferPointer { detectFormat($0) }
    }

    static func detectFormat(_ bytes: UnsafeBufferPointer<UInt8>) -> PlistFormat? {
        let magic: [UInt8] = Array("bplist00".utf8)
        if bytes.count >= magic.count, magic.elementsEqual(bytes[0 ..< magic.count]) { return .binary }
        var i = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }  // UTF-8 BOM
        else if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            return .xml  // UTF-16 with a byte-order mark; libxml2 transcodes it
        }
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        return i < bytes.count && bytes[i] == UInt8(ascii: "<") ? .xml : nil
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, limits: PlistLimits) throws(PlistError) -> PlistValue {
        switch detectFormat(bytes) {
        case .binary: return try BinaryPlistReader.decode(bytes, limits: limits)
        case .xml:
            // The scanner reads the usual files several times faster; whatever it declines
            // (other encodings, rare constructs, every malformed file) libxml2 reads and judges.
            if let value = XMLPlistScanner.decode(bytes, limits: limits) { return value }
            return try XMLPlistReader.decode(bytes, limits: limits)
        case nil:
            throw PlistError("not a property list: neither a \"bplist00\" header nor XML", location: .byteOffset(0))
        }
    }
}
