import UbiquityPlist

/// The one place the library turns property-list values into bytes and back: logs, receipts,
/// baseline metadata, models, device and token files all go through here, on UbiquityPlist's
/// own codec (Docs/PlistCodec.md).
package enum PlistSeam {
    package static func encode(_ value: PlistValue, format: PlistFormat) -> [UInt8] {
        PropertyListCodec.encode(value, format: format)
    }

    /// Decodes a binary or XML plist within `limits`.
    package static func decode(_ bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError) -> PlistValue {
        try PropertyListCodec.decode(bytes, limits: limits)
    }
}
