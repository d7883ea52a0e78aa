import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore

@Suite("Global IDs, stamps and knowledge vectors")
struct GlobalIDTests {
    @Test func naturalKeysAreValidated() throws {
        #expect(try GlobalID("Note/a/b").key == "a/b", "a key may hold slashes")
        #expect(try GlobalID("Note/ünïcødé 日本").entity == "Note")
        let refused: [(text: String, reason: GlobalIDError.Reason)] = [
            ("Note/", .keyLength), ("Note", .missingSlash), ("/key", .invalidEntityName), ("No te/key", .invalidEntityName),
            ("Note/line\nbreak", .controlCharacter), ("Note/tab\tkey", .controlCharacter), ("Note/del\u{7f}", .controlCharacter),
            ("Note/c1\u{85}", .controlCharacter), ("Note/" + String(repeating: "x", count: 201), .keyLength),
        ]
        for (bad, reason) in refused {
            let error = #expect(throws: GlobalIDError.self, "\(bad.debugDescription) is refused") { try GlobalID(bad) }
            #expect(error?.reason == reason, "\(bad.debugDescription): \(error.map(String.init(describing:)) ?? "no error")")
        }
        #expect(GlobalIDError(text: "Note", reason: .missingSlash).description == "invalid object ID 'Note': expected <Entity>/<key>")
    }

    /// The log reader checks an ASCII key eight bytes at a time; it must judge every key as the
    /// plain byte loop does (random ASCII keys around every length that matters, fixed seeds).
    @Test(arguments: SeededGenerator.testSeeds([1, 2]))
    func asciiKeysAreJudgedAsTheByteLoopJudgesThem(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...205, using: &random)
            let bytes: [UInt8] = (0..<length).map { _ in
                Int.random(in: 0..<8, using: &random) == 0 ? [0x00, 0x1f, 0x20, 0x7e, 0x7f, 0x01].randomElement(using: &random)!
                    : UInt8.random(in: 0x20...0x7e, using: &random)
            }
            let expected = !bytes.isEmpty && bytes.count <= 200 && !bytes.contains { $0 < 0x20 || $0 == 0x7f }
            #expect(bytes.withUnsafeBufferPointer(GlobalID.isValidASCIIKey) == expected, "seed \(seed): \(bytes)")
            #expect(((try? GlobalID("Note/" + String(decoding: bytes, as: UTF8.self))) != nil) == expected, "seed \(seed): \(bytes)")
        }
    }

    @Test func stampsSortLikeTheirTextAndRoundTrip() throws {
        let stamps = [Stamp(wallMilliseconds: 9, counter: 0, peerID: "b"), Stamp(wallMilliseconds: 10, counter: 0, peerID: "a"),
                      Stamp(wallMilliseconds: 10, counter: 2, peerID: "a"), Stamp(wallMilliseconds: 10, counter: 2, peerID: "b")]
        #expect(stamps.sorted() == stamps)
        #expect(stamps.map(\.description).sorted() == stamps.map(\.description))
        for stamp in stamps { #expect(Stamp(stamp.description) == stamp) }
        #expect(Stamp("garbage") == nil && Stamp("1.2.x") == nil)
        var clock = HybridLogicalClock(peerID: "me", last: nil)
        let first = clock.tick(now: Date(timeIntervalSince1970: 100))
        clock.observe(Stamp(wallMilliseconds: 500_000, counter: 7, peerID: "other"))
        let second = clock.tick(now: Date(timeIntervalSince1970: 100))
        #expect(second > first && second > Stamp(wallMilliseconds: 500_000, counter: 7, peerID: "other"), "causally later is larger, whatever the wall clock says")
    }

    @Test func theClockNeverMakesAStampItsParserRejects() throws {
        // A wall clock before 1970, past what a stamp holds, or not a number at all.
        for seconds in [-5.0, 1e13, 1e300, .infinity, -.infinity, .nan] {
            var clock = HybridLogicalClock(peerID: "me", last: nil)
            let stamp = clock.tick(now: Date(timeIntervalSince1970: seconds))
            #expect(Stamp(stamp.description) == stamp, "now = \(seconds): \(stamp)")
        }
        // Observing the largest stamp that parses, then ticking on and on: every stamp reads back.
        var clock = HybridLogicalClock(peerID: "me", last: nil)
        clock.observe(try #require(Stamp("9999999999999999.99999998.other")))
        for _ in 0..<5 {
            let stamp = clock.tick(now: Date(timeIntervalSince1970: 100))
            #expect(Stamp(stamp.description) == stamp, "\(stamp)")
        }
        // What the importer and a baseline's validation refuse: more than a day ahead.
        let now = 1_700_000_000.0
        #expect(Stamp(wallMilliseconds: Int64((now + Stamp.maximumLead + 1) * 1000), counter: 0, peerID: "x").isTooFarAhead(of: now))
        #expect(!Stamp(wallMilliseconds: Int64((now + Stamp.maximumLead - 1) * 1000), counter: 0, peerID: "x").isTooFarAhead(of: now))
    }

    @Test func knowledgeVectorsUseApplesStringForm() throws {
        let vector = KnowledgeVector(["b~2": 3, "a~1": 5, "zero": 0])
        #expect(vector.description == "a~1:5:b~2:3")
        #expect(KnowledgeVector(string: vector.description) == vector)
        #expect(KnowledgeVector(string: "a:1:b") == nil && KnowledgeVector(string: "a:x") == nil)
        #expect(KnowledgeVector(string: "a:9999999999")?["a"] == 9_999_999_999, "the largest number a log's file name holds")
        #expect(KnowledgeVector(string: "a:10000000000") == nil && KnowledgeVector(string: "a:\(Int64.max)") == nil, "beyond it: damaged")
        #expect(vector.dominates(KnowledgeVector(["a~1": 5])) && !KnowledgeVector(["a~1": 5]).dominates(vector))
    }

    /// The parser splits ASCII text on bytes; it must read every string as splitting by
    /// Character does (random strings of the characters that matter, fixed seeds).
    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3]))
    func knowledgeVectorsParseAsSplittingByCharacterDoes(seed: UInt64) {
        func byCharacter(_ string: String) -> [String: Int64]? {
            guard !string.isEmpty else { return [:] }
            let parts = string.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count % 2 == 0 else { return nil }
            var entries: [String: Int64] = [:]
            for index in stride(from: 0, to: parts.count, by: 2) {
                guard !parts[index].isEmpty, let number = Int64(parts[index + 1]), number >= 0, number <= KnowledgeVector.largestNumber else { return nil }
                entries[String(parts[index])] = number
            }
            return entries
        }
        var random = SeededGenerator(seed: seed)
        let alphabet: [String] = ["a", "b~1", ":", ":", "0", "7", "12", "+", "-", " ", "é", "\u{301}", "9999999999", "10000000000"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...8, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
            let expected = byCharacter(text)
            let parsed = KnowledgeVector(string: text)
            #expect(parsed?.entries == expected.map { $0.filter { $0.value > 0 } },
                    "seed \(seed): \(text.debugDescription)")
        }
    }

    @Test func logFileNamesGiveTheirTransactionNumber() {
        let uuid = "819E83D7-4F9C-4F90-A858-295D46647C27"
        #expect(TransactionLog.transactionNumber(inFileName: "0000000042-\(uuid).1.cdt") == 42)
        #expect(TransactionLog.transactionNumber(inFileName: "9999999999-\(uuid.lowercased()).1.cdt") == 9_999_999_999)
        #expect(TransactionLog.transactionNumber(inFileName: TransactionLog.fileName(number: 7)) == 7)
        for bad in ["0000000042-\(uuid).1.cdx", "000000042-\(uuid).1.cdt", "00000000x2-\(uuid).1.cdt", "0000000042_\(uuid).1.cdt",
                    "0000000042-\(uuid.replacingOccurrences(of: "A", with: "G")).1.cdt", "0000000042-0x9E83D7-4F9C-4F90-A858-295D46647C27.1.cdt",
                    "0000000042-819E83D74-F9C-4F90-A858-295D46647C27.1.cdt", "receipt.0.cdt", ""] {
            #expect(TransactionLog.transactionNumber(inFileName: bad) == nil, "\(bad)")
        }
    }
}

@Suite("Log file names")
struct LogFileNameTests {
    @Test func aLogsNameGivesItsNumber() {
        let name = TransactionLog.fileName(number: 42)
        #expect(TransactionLog.transactionNumber(inFileName: name) == 42)
        #expect(TransactionLog.transactionNumber(inFileName: "0000000007-6f9619ff-8b86-d011-b42d-00c04fc964ff.1.cdt") == 7)
        #expect(TransactionLog.transactionNumber(inFileName: TransactionLog.fileName(number: 9_999_999_999)) == 9_999_999_999)
    }

    @Test(arguments: [
        "receipt.0.cdt", "0000000001-6F9619FF-8B86-D011-B42D-00C04FC964FF.1.cdt.nosync",
        "000000000a-6F9619FF-8B86-D011-B42D-00C04FC964FF.1.cdt", "0000000001_6F9619FF-8B86-D011-B42D-00C04FC964FF.1.cdt",
        "0000000001-6F9619FF-8B86-D011-B42D-00C04FC964FG.1.cdt", "0000000001-6F9619FF+8B86-D011-B42D-00C04FC964FF.1.cdt",
        "0000000001-6F9619FF-8B86-D011-B42D-00C04FC964FF 2.1.cdt", "0000000001-6F9619FF-8B86-D011-B42D-00C04FC964FF.2.cdt",
        "0000000001-6F9619FF-8B86-D011-B42D-00C04FC964F.1.cdt", "0000000001-6F9619FF-8B86-D011-B42D-00C04FC964FF.1.cdt.sync-conflict-1",
        "", "..", "0000000001-6F9619FF-8B86-D011-B42D-00C04FC964FÉ.1.cdt",
    ])
    func otherNamesAreNotLogs(name: String) {
        #expect(TransactionLog.transactionNumber(inFileName: name) == nil, "\(name)")
    }
}
