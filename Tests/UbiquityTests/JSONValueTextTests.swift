import Foundation
import Testing
import UbiquityBase

/// `JSONValue.text` escapes what JSON requires and nothing else, whether a string needs no
/// escape (appended whole) or does (written scalar by scalar).
@Suite("JSON text")
struct JSONValueTextTests {
    @Test func stringsReadBackAsWritten() throws {
        let strings = ["plain", "", "é and 日本 and 🧪", "quote \" inside", "back\\slash", "line\nbreak\r\ttab",
                       "bell \u{07} and nul \u{00}", "mixed é \" \u{1F} end"]
        for string in strings {
            let text = JSONValue.array([.string(string)]).text()
            let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String]
            #expect(parsed == [string], "\(text)")
        }
        #expect(JSONValue.string("a\"b\\c\n\u{01}").text() == #""a\"b\\c\n\u0001""#)
        #expect(JSONValue.object(["k é": .string("v")]).text() == #"{"k é":"v"}"#)
    }
}
