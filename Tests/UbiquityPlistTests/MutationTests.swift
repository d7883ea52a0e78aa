import Foundation
import Testing
@testable import UbiquityPlist

/// Thousands of seeded random corruptions of valid files. Each must decode without a crash,
/// trap or hang, to either a value or a PlistError with a message. A decoded value must
/// survive its own round trip, and an unchanged file must decode to the original value.
/// (A flipped bit inside, say, an integer legitimately yields a different valid plist, so
/// "equal to the original" can only be required of mutations that change nothing.)
@Suite struct MutationTests {
    static let original: PlistValue = {
        guard case var .dictionary(d) = Samples.everything else { fatalError() }
        d["records"] = Samples.records(8)
        d["data"] = .data(Array(0 ..< 40))
        d["strings"] = .array([.string("x & y"), .string("日本"), .string("😀")])
        return .dictionary(d)
    }()

    @Test(arguments: PlistFormat.allCases)
    func randomCorruptions(format: PlistFormat) throws {
        for seed in SeededGenerator.testSeeds([format == .binary ? 0xB1_0001 : 0x0C_0001]) { try corrupt(format: format, seed: seed) }
    }

    /// 3,000 corruptions of one valid file drawn from `seed`: each decodes to a value that
    /// round-trips or fails with a message.
    func corrupt(format: PlistFormat, seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let valid = try PropertyListCodec.encode(Self.original, format: format)
        var outcomes = (errors: 0, values: 0)
        for iteration in 0 ..< 3000 {
            var bytes = valid
            let kind = Int(rng.next() % 5)
            switch kind {
            case 0:  // truncation
                bytes.removeLast(Int(rng.next() % UInt64(bytes.count)) + 1)
            case 1:  // bit flips
                for _ in 0 ... rng.next() % 4 {
                    bytes[Int(rng.next() % UInt64(bytes.count))] ^= 1 << UInt8(rng.next() % 8)
                }
            case 2:  // splice: copy a run of the file over another place
                let length = Int(rng.next() % 64) + 1
                let from = Int(rng.next() % UInt64(bytes.count - length))
                let to = Int(rng.next() % UInt64(bytes.count - length))
                bytes.replaceSubrange(to ..< to + length, with: valid[from ..< from + length])
            case 3:  // insert or delete a run
                let at = Int(rng.next() % UInt64(bytes.count))
                if rng.next() % 2 == 0 {
                    bytes.insert(contentsOf: (0 ..< rng.next() % 16 + 1).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, at: at)
                } else {
                    bytes.removeSubrange(at ..< min(bytes.count, at + Int(rng.next() % 16) + 1))
                }
            default:  // the tail: offset table and trailer (binary), closing tags (XML)
                let tail = min(bytes.count, format == .binary ? 32 + 2 * 400 : 200)
                for _ in 0 ... rng.next() % 3 {
                    let position = bytes.count - 1 - Int(rng.next() % UInt64(tail))
                    bytes[position] = rng.next() % 3 == 0 ? 0xFF : UInt8(truncatingIfNeeded: rng.next())
                }
            }
            do {
                let value = try PropertyListCodec.decode(bytes)
                outcomes.values += 1
                if bytes == valid { #expect(value == Self.original, "seed \(seed) iteration \(iteration)") }
                let again = try? PropertyListCodec.decode(PropertyListCodec.encode(value, format: format))
                #expect(again == value, "seed \(seed) iteration \(iteration): decoded value does not round-trip")
            } catch {
                outcomes.errors += 1
                #expect(!error.message.isEmpty, "seed \(seed) iteration \(iteration)")
            }
        }
        // The corruption must actually exercise the error paths.
        #expect(outcomes.errors > 1000, "seed \(seed): only \(outcomes.errors) errors")
    }
}
