import Foundation
import Testing
import UbiquityCore

/// A bug report's stand-ins: of each value's type, the same for the same value (so stores, logs
/// and baselines still agree), and an external value's reference the one its stand-in file gets.
@Suite("Value redaction")
struct ValueRedactionTests {
    static let values: [AttributeValue] = [
        .string("Dentist on Tuesday"), .integer(4711), .decimal(DecimalNumber(12)), .double(3.25), .float(1.5),
        .date(secondsSince1970: 1_700_000_000), .binary(Array("secret bytes".utf8)),
        .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), .uri(URL(string: "https://example.com/private")!),
    ]

    @Test func eachStandInKeepsItsTypeAndNothingOfItsValue() {
        for value in Self.values {
            let standIn = ValueRedaction.redact(value)
            #expect(standIn.type == value.type, "\(value) → \(standIn)")
            #expect(standIn != value, "\(value) is replaced")
            #expect(ValueRedaction.redact(value) == standIn, "\(value): the same stand-in every time")
        }
        if case .binary(let bytes) = ValueRedaction.redact(.binary(Array("secret bytes".utf8))) {
            #expect(bytes.count == "secret bytes".utf8.count, "as many bytes")
        }
        #expect(ValueRedaction.redact(.boolean(true)) == .boolean(true), "a bit hides nothing")
        #expect(ValueRedaction.redact(.string("a")) != ValueRedaction.redact(.string("b")), "values stay apart")
    }

    @Test func anExternalValuesReferenceIsThatOfItsStandInFile() throws {
        let bytes = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let reference = try #require(ExternalDataReference(sha256: ValueRedaction.sha256Hex(bytes), size: Int64(bytes.count)))
        let standIn = ValueRedaction.externalStandIn(reference)
        let file = ValueRedaction.externalStandInBytes(sha256: reference.sha256, count: bytes.count)
        #expect(standIn.size == reference.size && file.count == bytes.count)
        #expect(standIn.sha256 == ValueRedaction.sha256Hex(file) && standIn.sha256 != reference.sha256)
        #expect(ValueRedaction.redact(.externalBinary(reference)) == .externalBinary(standIn))
        var streamed: [UInt8] = []
        try ValueRedaction.forEachStandInChunk(seed: Array(reference.sha256.utf8), count: bytes.count, chunkSize: 1000) { streamed += $0 }
        #expect(streamed == file, "the file written a chunk at a time holds the same bytes")
    }

    @Test func naturalKeysAreHashedAndUUIDKeysKept() throws {
        let natural = try GlobalID(entity: "Tag", key: "food")
        let redacted = ValueRedaction.redact(natural)
        #expect(redacted.entity == "Tag" && !redacted.key.contains("food") && redacted.key.hasPrefix("k"))
        #expect(ValueRedaction.redactID("Tag/food") == redacted.description, "as text, alike")
        let made = GlobalID(entity: "Note")
        #expect(ValueRedaction.redact(made) == made, "a UUID key the library made is no user data")
        #expect(ValueRedaction.redactID("not an ID") == "not an ID")
    }
}
