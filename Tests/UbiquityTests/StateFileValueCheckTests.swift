import CSQLite
import Foundation
import Testing
@testable import UbiquityCore

/// The join's shortcut for a state file's values (`StateFileValueCheck`) held to the full
/// check it skips: every value it passes, `AttributeValue(sqlite:type:)` and `validateKind`
/// pass too, for every attribute type and storage class, edge values included.
@Suite("State file values: the join's shortcut passes only what the full check passes")
struct StateFileValueCheckTests {
    static let values: [SQLiteValue] = [
        .integer(0), .integer(1), .integer(-1), .integer(Int64(Int16.max) + 1), .integer(Int64(Int16.min) - 1),
        .integer(Int64(Int32.max) + 1), .integer(Int64(Int32.min) - 1), .integer(.max), .integer(.min), .integer(1 << 53 + 1),
        .real(0.5), .real(-0), .real(.infinity), .real(-.infinity), .real(.nan), .real(1e300), .real(3.5e38), .real(.leastNonzeroMagnitude),
        .text(""), .text("note"), .text("9F2D33A3-5A0B-4E9A-9D0F-4A0B2C3D4E5F"), .text("x-coredata://a/b/p1"), .text("1e5"),
        .blob([]), .blob([0, 1, 2]),
    ]

    /// The full check of a stored value, as the join makes it without the shortcut.
    static func fullCheckPasses(_ value: SQLiteValue, type: AttributeType) -> Bool {
        if case let .real(number) = value, !number.isFinite { return false }
        guard let typed = AttributeValue(sqlite: value, type: type) else { return false }
        return (try? AttributeDescription("a", type).validateKind(typed, entity: "E")) != nil
    }

    static func storageClass(_ value: SQLiteValue) -> Int32 {
        switch value {
        case .null: return SQLITE_NULL
        case .integer: return SQLITE_INTEGER
        case .real: return SQLITE_FLOAT
        case .text: return SQLITE_TEXT
        case .blob: return SQLITE_BLOB
        }
    }

    @Test("no value passes the shortcut that the full check refuses", arguments: AttributeType.allCases)
    func shortcutIsSound(type: AttributeType) {
        for value in Self.values {
            let integer: Int64 = if case let .integer(number) = value { number } else { 0 }
            let real: Double = if case let .real(number) = value { number } else { 0 }
            let shortcut = StateFileValueCheck.passes(storageClass: Self.storageClass(value), type: type, integer: { integer }, real: { real })
            if shortcut { #expect(Self.fullCheckPasses(value, type: type), "\(type) \(value)") }
        }
    }

    @Test("the common stored values take the shortcut")
    func commonValuesTakeIt() {
        let passes = { (value: SQLiteValue, type: AttributeType) -> Bool in
            let integer: Int64 = if case let .integer(number) = value { number } else { 0 }
            let real: Double = if case let .real(number) = value { number } else { 0 }
            return StateFileValueCheck.passes(storageClass: Self.storageClass(value), type: type, integer: { integer }, real: { real })
        }
        #expect(passes(.text("note"), .string))
        #expect(passes(.integer(1), .boolean))
        #expect(passes(.integer(-5), .integer16) && !passes(.integer(1 << 20), .integer16))
        #expect(passes(.real(12.5), .date) && !passes(.real(.nan), .date))
        #expect(passes(.real(0.25), .double) && passes(.integer(3), .double))
        #expect(!passes(.text("not a uuid"), .uuid) && !passes(.blob([1]), .string))
    }
}
