import Testing
import UbiquityBase
import UbiquitySync

/// `CloudNames.isValidPeerID` walks a name's bytes once; it says what the rule says (the
/// reference below spells the rule out with the standard library's checks).
@Suite("Cloud names")
struct CloudNamesTests {
    static func reference(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 200, !name.hasPrefix("."), name.contains("~") else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || "._-@+~".utf8.contains(byte)
        }
    }

    @Test func peerIDsFollowTheRule() {
        let names = ["", "~", ".~", "a~b", "peer1~403329c9-5c6c-4c67-b2ca-52da2dfc5536", "Peer~x", "a b~c", "a~b~c", "..", "a.~",
                     "é~x", "a~\u{301}", String(repeating: "a", count: 199) + "~", String(repeating: "a", count: 200) + "~", "a/~", "a~\0"]
        for name in names { #expect(CloudNames.isValidPeerID(name) == Self.reference(name), "\(name.debugDescription)") }
    }

    @Test(arguments: SeededGenerator.testSeeds([1, 2]))
    func randomNamesAgreeWithTheRule(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let alphabet = Array("ab09._-@+~ZA/ é".unicodeScalars)
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...12, using: &random)
            let name = String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }))
            #expect(CloudNames.isValidPeerID(name) == Self.reference(name), "seed \(seed): \(name.debugDescription)")
        }
    }
}
