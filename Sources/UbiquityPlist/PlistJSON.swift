/// JSON forms of a property list, for tools (`ubiq plist convert --to json`).
///
/// **Typed** JSON is lossless and reads back (`decode`): strings, booleans, arrays and
/// dictionaries are plain JSON; an integer is a JSON number without fraction or exponent
/// and a real always has one (`1.0`, `1e-07`), so the two stay apart; the other kinds are
/// one-entry objects: `{"$date": "2004-10-26T10:33:33Z"}` (the XML date text, fraction
/// exact), `{"$data": "<base64>"}`, `{"$uid": 1}`, `{"$real": "nan"}` (also `"inf"`,
/// `"-inf"`); null is `null`. A date no text holds exactly (NaN, infinite, beyond ±10^14 s,
/// -0) is `{"$date": <seconds since 1970>}`, a number or `"nan"`, `"inf"`, `"-inf"`. A dictionary whose only key starts with `$` is wrapped as
/// `{"$dict": {…}}` so it cannot be mistaken for one of those.
///
/// **Plain** JSON drops the tags for tools that want bare values: dates are their text,
/// data its base64, a UID its number; NaN and infinite reals and dates cannot be written
/// (an error).
/// It does not read back as the same plist.
///
/// Both are pretty-printed (two spaces), keys in UTF-8 byte order, ending in a newline.
public enum PlistJSON {
    public enum Style: String, Sendable, CaseIterable {
        case typed
        case plain
    }

    /// Encodes `value` as JSON; throws only for a NaN or infinite real in plain style.
    public static func encode(_ value: PlistValue, style: Style = .typed) throws(PlistError) -> [UInt8] {
        try PlistJSONWriter.encode(value, style: style)
    }

    /// Decodes typed JSON (plain JSON reads too, with its dates and data as strings).
    /// Errors carry the line and column.
    public static func decode(_ bytes: [UInt8], limits: PlistLimits = .default) throws(PlistError) -> PlistValue {
        try bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(PlistError) in try PlistJSONReader.decode(buffer, limits: limits) }
        }.get()
    }
}
