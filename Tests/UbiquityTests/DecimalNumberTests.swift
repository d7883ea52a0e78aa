import Foundation
import Testing
@testable import Ubiquity

/// The exact decimal of Core Data's Decimal attributes: one canonical form, text that reads
/// back exactly, a sort key whose byte order is the numbers' order.
@Suite("DecimalNumber: exact, canonical, ordered")
struct DecimalNumberTests {
    @Test(arguments: [
        ("0", "0"), ("-0", "0"), ("000.000", "0"), ("1.50", "1.5"), ("+12", "12"), (".5", "0.5"), ("5.", "5"),
        ("-12.340", "-12.34"), ("1e3", "1000"), ("1.5E-3", "0.0015"), ("12E+38", "1200000000000000000000000000000000000000"),
        ("1E+40", "1E+40"), ("123E+37", "1230000000000000000000000000000000000000"),
        ("0.00000000000000000000000000000000000001", "0.00000000000000000000000000000000000001"),
        ("1E-40", "0.0000000000000000000000000000000000000001"), ("1E-41", "1E-41"), ("-9.9999999999999999999999999999999999999E+164", "-9.9999999999999999999999999999999999999E+164"),
        ("1E-128", "1E-128"), ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
        ("0.000000000000000000000000000000000000000000000000012345678901234567890123456789012345678", "1.2345678901234567890123456789012345678E-50"),
    ])
    func textIsCanonicalAndReadsBack(_ input: String, _ canonical: String) throws {
        let number = try #require(DecimalNumber(input))
        #expect(number.description == canonical)
        #expect(DecimalNumber(canonical) == number)
        #expect(DecimalNumber(sortKey: number.sortKey) == number)
    }

    @Test(arguments: ["", "-", ".", "1..2", "1e", "1e+", "abc", "1,5", "0x10", "1E1234567", "nan", "inf",
                      "123456789012345678901234567890123456789", "1E-129", "1E+165", "9.99999999999999999999999999999999999999E+164"])
    func inexactOrMalformedTextIsRefused(_ input: String) {
        #expect(DecimalNumber(input) == nil)
    }

    @Test func foundationDecimalsConvertExactly() throws {
        for text in ["0", "3.14159", "-0.001", "12345678901234567890123456789012345678", "1E-100", "-7.25E+80"] {
            let number = try #require(DecimalNumber(text))
            #expect(DecimalNumber(number.decimalValue) == number, "\(text)")
        }
        #expect(DecimalNumber(Decimal.nan) == nil)
        #expect(DecimalNumber(Int64.min).description == "-9223372036854775808")
    }

    /// Random decimals: the order of values, of sort keys (bytes) and of Foundation's Decimal
    /// agree. Fixed seed; UBIQUITY_SEED adds one.
    @Test(arguments: [UInt64(20_241_124)] + (ProcessInfo.processInfo.environment["UBIQUITY_SEED"].flatMap(UInt64.init).map { [$0] } ?? []))
    func sortKeysOrderLikeTheNumbers(_ seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var numbers: [DecimalNumber] = []
        for _ in 0..<600 {
            let digits = String((0..<Int.random(in: 1...38, using: &random)).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
            let text = (Bool.random(using: &random) ? "-" : "") + digits + "E" + String(Int.random(in: -128...(127 - 37), using: &random))
            guard let number = DecimalNumber(text) else { Issue.record("seed \(seed): \(text) was refused"); continue }
            numbers.append(number)
        }
        numbers += [.zero, DecimalNumber("1")!, DecimalNumber("-1")!, DecimalNumber("1.0000000001")!, DecimalNumber("-1.0000000001")!]
        let byValue = numbers.sorted()
        let byKey = numbers.sorted { Array($0.sortKey.utf8).lexicographicallyPrecedes(Array($1.sortKey.utf8)) }
        #expect(byValue == byKey, "seed \(seed)")
        let byFoundation = numbers.sorted { $0.decimalValue < $1.decimalValue }
        #expect(byValue == byFoundation, "seed \(seed)")
    }
}
