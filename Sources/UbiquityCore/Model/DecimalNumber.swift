import Foundation

/// An exact decimal number: the value of a Core Data `Decimal` attribute (an `NSDecimalNumber`),
/// with its range — up to 38 significant digits times a power of ten from -128 to 127.
///
/// It is kept in one canonical form (no leading or trailing zeros, no negative zero), so equal
/// numbers are equal values with equal text and bytes on every peer: `1.50` and `1.5` are the
/// same number. Nothing goes through a `Double`; arithmetic belongs to `Foundation.Decimal`
/// (`decimalValue`, `init(_:)`).
public struct DecimalNumber: Sendable, Hashable, Comparable, CustomStringConvertible, LosslessStringConvertible {
    /// The most significant digits a value holds, as `NSDecimal`.
    public static let maxDigits = 38
    /// The range of the exponent of a value whose significand is an integer of at most 38 digits.
    public static let exponentRange = -128...127

    /// Whether the number is below zero (never for zero).
    public let isNegative: Bool
    /// The significant digits as ASCII, without leading or trailing zeros; empty for zero.
    private let digits: [UInt8]
    /// The value is `digits × 10^exponent` (0 for zero).
    private let exponent: Int

    public static let zero = DecimalNumber(negative: false, digits: [], exponent: 0)

    private init(negative: Bool, digits: [UInt8], exponent: Int) {
        isNegative = negative
        self.digits = digits
        self.exponent = exponent
    }

    /// Makes the canonical form of `±digits × 10^exponent`; `nil` when it has more than 38
    /// significant digits or lies outside `NSDecimal`'s range (it would not be exact).
    private static func make(negative: Bool, digits rawDigits: ArraySlice<UInt8>, exponent rawExponent: Int) -> DecimalNumber? {
        var digits = rawDigits.drop { $0 == UInt8(ascii: "0") }
        var exponent = rawExponent
        while digits.last == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { return .zero }
        guard digits.count <= maxDigits else { return nil }
        // Representable when some integer significand of at most 38 digits reaches it.
        guard exponent >= exponentRange.lowerBound, exponent - (maxDigits - digits.count) <= exponentRange.upperBound else { return nil }
        return DecimalNumber(negative: negative, digits: Array(digits), exponent: exponent)
    }

    /// Reads `-12.50`, `3`, `.5`, `1.2E+40`, `7e-3`: an optional sign, digits with at most one
    /// point, an optional exponent. `nil` for anything else, or a value that is not exact.
    public init?(_ text: String) {
        var bytes = Array(text.utf8)[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var digits: [UInt8] = []
        var fractionDigits = 0
        var sawPoint = false, sawDigit = false
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") {
                guard !sawPoint else { return nil }
                sawPoint = true
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                sawDigit = true
                // Leading zeros carry nothing; skipping them keeps long zero runs cheap.
                if !(digits.isEmpty && byte == UInt8(ascii: "0")) { digits.append(byte) }
                if sawPoint { fractionDigits += 1 }
            } else {
                return nil
            }
        }
        guard sawDigit else { return nil }
        var exponent = 0
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            guard !bytes.isEmpty, bytes.count <= 6 else { return nil }
            for byte in bytes {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                exponent = exponent * 10 + Int(byte - UInt8(ascii: "0"))
            }
            if exponentNegative { exponent = -exponent }
        }
        // Trailing zeros of a long fraction shrink before the digit count is judged.
        guard let value = Self.make(negative: negative, digits: digits[...], exponent: exponent - fractionDigits) else { return nil }
        self = value
    }

    /// The exact value of an integer.
    public init(_ value: Int64) {
        let magnitude = String(value.magnitude)
        self = Self.make(negative: value < 0, digits: Array(magnitude.utf8)[...], exponent: 0)!
    }

    /// The exact value of a `Foundation.Decimal`; `nil` for NaN.
    public init?(_ value: Decimal) {
        guard !value.isNaN else { return nil }
        var copy = value
        self.init(NSDecimalString(&copy, Locale(identifier: "en_US_POSIX")))
    }

    /// The number as a `Foundation.Decimal` (exact: both hold 38 digits and the same exponents).
    public var decimalValue: Decimal {
        Decimal(string: description, locale: Locale(identifier: "en_US_POSIX")) ?? 0
    }

    /// The nearest `Double` (for display and JSON readers that want a number; never stored).
    public var doubleValue: Double { Double(description) ?? .nan }

    // MARK: Text

    /// The canonical text: plain notation (`-12.5`, `0.001`, `1200`) unless that takes more than
    /// 40 characters of zeros, then scientific (`1.5E+60`, `2E-45`). `init(_:)` reads it back
    /// exactly, and equal numbers have equal text.
    public var description: String {
        if digits.isEmpty { return "0" }
        let sign = isNegative ? "-" : ""
        let text = String(decoding: digits, as: UTF8.self)
        let pointAt = digits.count + exponent  // digits before the decimal point
        if exponent >= 0, pointAt <= 40 {
            return sign + text + String(repeating: "0", count: exponent)
        }
        if exponent < 0, pointAt > 0 {
            let split = text.index(text.startIndex, offsetBy: pointAt)
            return sign + text[..<split] + "." + text[split...]
        }
        if exponent < 0, pointAt > -40 {
            return sign + "0." + String(repeating: "0", count: -pointAt) + text
        }
        let scientific = pointAt - 1
        let mantissa = digits.count == 1 ? text : String(text.prefix(1)) + "." + text.dropFirst()
        return sign + mantissa + "E" + (scientific < 0 ? "-" : "+") + String(scientific.magnitude)
    }

    // MARK: Order

    public static func < (lhs: DecimalNumber, rhs: DecimalNumber) -> Bool {
        if lhs.isNegative != rhs.isNegative { return lhs.isNegative }
        let magnitudeLess = lhs.magnitudeCompare(rhs) < 0
        let magnitudeGreater = rhs.magnitudeCompare(lhs) < 0
        return lhs.isNegative ? magnitudeGreater : magnitudeLess
    }

    /// -1, 0 or 1 as |self| is below, equal to or above |other|.
    private func magnitudeCompare(_ other: DecimalNumber) -> Int {
        if digits.isEmpty || other.digits.isEmpty { return digits.isEmpty ? (other.digits.isEmpty ? 0 : -1) : 1 }
        let mine = digits.count + exponent, theirs = other.digits.count + other.exponent
        if mine != theirs { return mine < theirs ? -1 : 1 }
        // Same position of the point: the digits compare as fractions (no trailing zeros).
        for (a, b) in zip(digits, other.digits) where a != b { return a < b ? -1 : 1 }
        return digits.count == other.digits.count ? 0 : (digits.count < other.digits.count ? -1 : 1)
    }

    // MARK: Sort key

    /// A text whose byte order is the numbers' order: how a store keeps decimals so that SQL
    /// compares and sorts them exactly. Zero is `2`; a positive number is `3`, its point position
    /// plus 200 in three digits, then its digits; a negative number is `1`, 999 minus that
    /// position, its digits each subtracted from 9, and `~` (which sorts after every digit).
    public var sortKey: String {
        if digits.isEmpty { return "2" }
        let position = digits.count + exponent + 200  // 73…365 for every representable value
        if !isNegative {
            return "3" + Self.threeDigits(position) + String(decoding: digits, as: UTF8.self)
        }
        let flipped = digits.map { UInt8(ascii: "9") - ($0 - UInt8(ascii: "0")) }
        return "1" + Self.threeDigits(999 - position) + String(decoding: flipped, as: UTF8.self) + "~"
    }

    /// Reads a `sortKey` back; `nil` for text that is not one.
    public init?(sortKey: String) {
        let bytes = Array(sortKey.utf8)
        guard let kind = bytes.first else { return nil }
        if kind == UInt8(ascii: "2") {
            guard bytes.count == 1 else { return nil }
            self = .zero
            return
        }
        guard kind == UInt8(ascii: "1") || kind == UInt8(ascii: "3"), bytes.count >= 5,
              let field = Int(String(decoding: bytes[1..<4], as: UTF8.self)) else { return nil }
        let negative = kind == UInt8(ascii: "1")
        var body = bytes[4...]
        if negative {
            guard body.last == UInt8(ascii: "~") else { return nil }
            body = body.dropLast()
        }
        guard !body.isEmpty, body.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let digits = negative ? body.map { UInt8(ascii: "9") - ($0 - UInt8(ascii: "0")) } : Array(body)
        let position = (negative ? 999 - field : field) - 200
        guard let value = Self.make(negative: negative, digits: digits[...], exponent: position - digits.count),
              value.digits.count == digits.count else { return nil }
        self = value
    }

    private static func threeDigits(_ value: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 3 - text.count)) + text
    }
}
