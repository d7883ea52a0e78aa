import UbiquityPlist

/// The one place the library turns property-list values into bytes and back: logs, receipts,
/// baseline metadata, models, device and token files all go through here, on UbiquityPlist's
/// own codec (Docs/PlistCodec.md).
package enum PlistSeam {
    /// `value` in `format`; a value XML cannot hold (a string with a control character such
    /// as U+0001, or null) is written as a binary plist instead, never changed: every reader
    /// here sniffs the format (`decode`), so a container that chose XML logs reads it alike.
    package static func encode(_ value: PlistValue, format: PlistFormat) -> [UInt8] {
        if format == .xml, let xml = try? PropertyListCodec.encode(value, format: .xml) { return xml }
        return PropertyListCodec.encodeBinary(value)
    }

    /// Decodes a binary or XML plist within `limits`.
    package static func decode(_ bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError) -> PlistValue {
        try PropertyListCodec.decode(bytes, limits: limits)
    }
}
