/// A fast reader for the XML property lists that Ubiquity, Apple's tools and plistlib write:
/// UTF-8, an optional XML declaration and DOCTYPE without an internal subset, comments, the
/// predefined and character references.
///
/// It is strict and partial on purpose: on anything outside that subset (another encoding,
/// CDATA, processing instructions, entity declarations) and on anything malformed, it
/// *declines* by returning nil, and `XMLPlistReader` (libxml2) reads the file instead. So a
/// value is only ever produced for a well-formed document, every error message comes from one
/// place, and the two readers agree on every value (a differential test holds them to it).
/// libxml2's pull reader spends most of its time building and freeing a node per token; this
/// scanner reads the bytes once and builds the values directly.
struct XMLPlistScanner {
    private typealias Leaf = XMLLeafText.Kind

    private enum Element {
        case plist, key, dict, array, leaf(Leaf)
    }

    private typealias Container = XMLPlistContainer

    private static let libxml2NestingLimit = 256

    /// What each byte value is to the scanner, one table load per byte in the hot loops.
    private struct ByteClass: OptionSet {
        let rawValue: UInt8
        /// Ends a plain run of leaf text: `<`, `&`, carriage return, `]`.
        static let textStop = ByteClass(rawValue: 1)
        static let nameStart = ByteClass(rawValue: 2)
        static let nameCharacter = ByteClass(rawValue: 4)
        static let blank = ByteClass(rawValue: 8)
        /// Needs a closer look for XML's character rules: a control character or non-ASCII.
        static let unusual = ByteClass(rawValue: 16)

        static let table: [UInt8] = (0 ... 255).map { (value: Int) -> UInt8 in
            let c = UInt8(value)
            var kind: ByteClass = []
            if c == UInt8(ascii: "<") || c == UInt8(ascii: "&") || c == 0x0D || c == UInt8(ascii: "]") { kind.insert(.textStop) }
            let letter = c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z")
            if letter || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") { kind.formUnion([.nameStart, .nameCharacter]) }
            if (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") { kind.insert(.nameCharacter) }
            if XMLLeafText.isBlank(c) { kind.insert(.blank) }
            if c >= 0x80 || (c < 0x20 && !XMLLeafText.isBlank(c)) { kind.insert(.unusual) }
            return kind.rawValue
        }
    }

    private let classes: UnsafeBufferPointer<UInt8>

    private let bytes: UnsafeBufferPointer<UInt8>
    private let limits: PlistLimits
    private var i = 0
    private var stack: [Container] = []
    private var depth = 0
    private var produced = 0
    private var root: PlistValue?
    private var text: [UInt8] = []

    /// The document's value, or nil when the scanner leaves the document to libxml2.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, limits: PlistLimits) -> PlistValue? {
        ByteClass.table.withUnsafeBufferPointer { classes in
            guard bytes.count <= limits.maxBytes, isXMLText(bytes, classes) else { return nil }
            var scanner = XMLPlistScanner(bytes: bytes, classes: classes, limits: limits)
            return scanner.document()
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, classes: UnsafeBufferPointer<UInt8>, limits: PlistLimits) {
        self.bytes = bytes
        self.classes = classes
        self.limits = limits
    }

    private func `is`(_ c: UInt8, _ kind: ByteClass) -> Bool { classes[Int(c)] & kind.rawValue != 0 }

    // MARK: Characters

    /// Whether every byte sequence is valid UTF-8 and every character one XML 1.0 allows
    /// (no C0 control but tab, line feed and carriage return; no U+FFFE or U+FFFF). Checked
    /// once for the whole document, so the rest can read bytes and make strings unchecked.
    static func isXMLText(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteClass.table.withUnsafeBufferPointer { isXMLText(b, $0) }
    }

    private static func isXMLText(_ b: UnsafeBufferPointer<UInt8>, _ classes: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 0
        let n = b.count
        while k < n {
            let c = b[k]
            if classes[Int(c)] & ByteClass.unusual.rawValue == 0 { k += 1; continue }
            if c < 0x80 { return false }  // a control character XML forbids
            func continuation(_ at: Int) -> Bool { at < n && b[at] & 0xC0 == 0x80 }
            switch c {
            case 0xC2 ... 0xDF:
                guard continuation(k + 1) else { return false }
                k += 2
            case 0xE0 ... 0xEF:
                guard continuation(k + 1), continuation(k + 2) else { return false }
                let second = b[k + 1]
                if c == 0xE0 && second < 0xA0 { return false }  // overlong
                if c == 0xED && second >= 0xA0 { return false }  // surrogate
                if c == 0xEF && second == 0xBF && b[k + 2] >= 0xBE { return false }  // U+FFFE, U+FFFF
                k += 3
            case 0xF0 ... 0xF4:
                guard continuation(k + 1), continuation(k + 2), continuation(k + 3) else { return false }
                let second = b[k + 1]
                if c == 0xF0 && second < 0x90 { return false }  // overlong
                if c == 0xF4 && second >= 0x90 { return false }  // above U+10FFFF
                k += 4
            default:
                return false
            }
        }
        return true
    }

    private func at(_ offset: Int) -> UInt8 { i + offset < bytes.count ? bytes[i + offset] : 0 }

    private func isBlank(_ c: UInt8) -> Bool { `is`(c, .blank) }

    private mutating func skipBlanks() -> Int {
        let start = i
        while i < bytes.count, isBlank(bytes[i]) { i += 1 }
        return i - start
    }

    private func hasPrefix(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard i + count <= bytes.count else { return false }
        let start = word.utf8Start
        for k in 0 ..< count where bytes[i + k] != start[k] { return false }  // words are short: no memcmp call
        return true
    }

    private mutating func consume(_ word: StaticString) -> Bool {
        guard hasPrefix(word) else { return false }
        i += word.utf8CodeUnitCount
        return true
    }

    /// An ASCII XML name; a name with other characters declines (libxml2 reads those).
    private mutating func name() -> UnsafeBufferPointer<UInt8>? {
        let start = i
        guard i < bytes.count, `is`(bytes[i], .nameStart) else { return nil }
        i += 1
        while i < bytes.count, `is`(bytes[i], .nameCharacter) { i += 1 }
        guard i == bytes.count || bytes[i] < 0x80 else { return nil }
        return UnsafeBufferPointer(rebasing: bytes[start ..< i])
    }

    // MARK: Prolog and epilog

    private mutating func document() -> PlistValue? {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        if hasPrefix("<?xml"), isBlank(at(5)) {
            guard declaration() else { return nil }
        }
        guard miscellany() else { return nil }
        if hasPrefix("<!DOCTYPE") {
            guard doctype(), miscellany() else { return nil }
        }
        guard at(0) == UInt8(ascii: "<"), let value = body(), miscellany(), i == bytes.count else { return nil }
        return value
    }

    /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`, each part as XML allows it;
    /// another version or encoding declines.
    private mutating func declaration() -> Bool {
        i += 5
        var seen = 0
        let names: [StaticString] = ["version", "encoding", "standalone"]
        while true {
            let blanks = skipBlanks()
            if consume("?>") { return seen > 0 }
            guard blanks > 0, let attribute = name(), seen < names.count else { return false }
            // Each pseudo-attribute may appear once, in this order; version is required.
            guard let index = names.indices.first(where: { Self.equals(attribute, names[$0]) }), index >= seen,
                  index == 0 || seen > 0 else { return false }
            seen = index + 1
            _ = skipBlanks()
            guard consume("=") else { return false }
            _ = skipBlanks()
            guard let value = quoted() else { return false }
            switch index {
            case 0: guard Self.equals(value, "1.0") else { return false }
            case 1: guard Self.equalsIgnoringCase(value, "utf-8") else { return false }
            default: guard Self.equals(value, "yes") || Self.equals(value, "no") else { return false }
            }
        }
    }

    /// `<!DOCTYPE plist PUBLIC "…" "…">` or `SYSTEM "…"` or none; an internal subset declines.
    private mutating func doctype() -> Bool {
        i += 9
        guard skipBlanks() > 0, name() != nil else { return false }
        if skipBlanks() > 0 {
            if consume("PUBLIC") {
                guard skipBlanks() > 0, let publicID = quoted(), publicID.allSatisfy(Self.isPublicIDCharacter) else { return false }
                guard skipBlanks() > 0, quoted() != nil else { return false }
            } else if consume("SYSTEM") {
                guard skipBlanks() > 0, quoted() != nil else { return false }
            }
            _ = skipBlanks()
        }
        return consume(">")
    }

    private static func isPublicIDCharacter(_ c: UInt8) -> Bool {
        if c == 0x20 || c == 0x0D || c == 0x0A { return true }
        if (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z")) || (c >= 0x30 && c <= 0x39) { return true }
        return publicIDPunctuation.contains(c)
    }

    private static let publicIDPunctuation = Set("-'()+,./:=?;!*#@$_%".utf8)

    /// A quoted literal without `<` or `&` (attribute values with references decline).
    private mutating func quoted() -> UnsafeBufferPointer<UInt8>? {
        let quote = at(0)
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
        let start = i + 1
        var k = start
        while k < bytes.count, bytes[k] != quote {
            if bytes[k] == UInt8(ascii: "<") || bytes[k] == UInt8(ascii: "&") { return nil }
            k += 1
        }
        guard k < bytes.count else { return nil }
        i = k + 1
        return UnsafeBufferPointer(rebasing: bytes[start ..< k])
    }

    /// Blanks and comments; a processing instruction declines.
    private mutating func miscellany() -> Bool {
        while true {
            _ = skipBlanks()
            guard hasPrefix("<!--") else { return !hasPrefix("<?") }
            guard comment() else { return false }
        }
    }

    /// `<!-- … -->`, where `--` may not occur inside.
    private mutating func comment() -> Bool {
        var k = i + 4
        while k + 1 < bytes.count {
            if bytes[k] == UInt8(ascii: "-"), bytes[k + 1] == UInt8(ascii: "-") {
                guard k + 2 < bytes.count, bytes[k + 2] == UInt8(ascii: ">") else { return false }
                i = k + 3
                return true
            }
            k += 1
        }
        return false
    }

    // MARK: Elements

    /// The root element and everything in it, on an explicit stack as in `XMLPlistReader`.
    private mutating func body() -> PlistValue? {
        repeat {
            guard at(0) == UInt8(ascii: "<") else { return nil }
            if at(1) == UInt8(ascii: "/") {
                guard endContainer() else { return nil }
            } else {
                guard startTag() else { return nil }
            }
            if !stack.isEmpty {
                // Between elements of a container: blanks and comments only.
                while true {
                    _ = skipBlanks()
                    guard hasPrefix("<!--") else { break }
                    guard comment() else { return nil }
                }
            }
        } while !stack.isEmpty
        return root
    }

    private mutating func startTag() -> Bool {
        i += 1
        guard let tag = name(), let element = Self.element(tag), let empty = attributes() else { return false }
        // libxml2 refuses more than 256 nested elements (without XML_PARSE_HUGE, which the
        // reader leaves off): deeper documents are left to it so both give the same answer.
        guard stack.count < Self.libxml2NestingLimit - 2 else { return false }
        switch element {
        case .plist:
            guard stack.isEmpty, root == nil, !empty else { return false }
            stack.append(Container(kind: .plist))
        case .dict, .array:
            guard slotIsOpen(), depth < limits.maxDepth else { return false }
            let kind: Container.Kind = if case .dict = element { .dictionary } else { .array }
            if empty { return deliver(kind == .dictionary ? .dictionary([:]) : .array([])) }
            depth += 1
            stack.append(Container(kind: kind))
        case .key:
            guard let top = stack.last, top.kind == .dictionary, top.key == nil else { return false }
            if empty {
                stack[stack.count - 1].key = ""
                return true
            }
            guard case let .string(key)? = leafValue(.key, tag) else { return false }
            stack[stack.count - 1].key = key
        case let .leaf(kind):
            guard slotIsOpen() else { return false }
            let value: PlistValue?
            if empty {
                value = try? XMLLeafText.value(of: kind, UnsafeBufferPointer(start: nil, count: 0)).get()
            } else {
                value = leafValue(kind, tag)
            }
            guard let value else { return false }
            return deliver(value)
        }
        return true
    }

    /// Attributes are read for well-formedness and otherwise ignored, as libxml2's reader
    /// path ignores them. Returns whether the tag was empty (`/>`), nil when malformed.
    private mutating func attributes() -> Bool? {
        var seen: [UnsafeBufferPointer<UInt8>] = []
        while true {
            let blanks = skipBlanks()
            if consume(">") { return false }
            if consume("/>") { return true }
            guard blanks > 0, let attribute = name() else { return nil }
            guard !seen.contains(where: { Self.same($0, attribute) }) else { return nil }
            seen.append(attribute)
            _ = skipBlanks()
            guard consume("=") else { return nil }
            _ = skipBlanks()
            guard quoted() != nil else { return nil }
        }
    }

    /// `</name>` closing the innermost container.
    private mutating func endContainer() -> Bool {
        i += 2
        guard let tag = name(), let top = stack.popLast() else { return false }
        _ = skipBlanks()
        guard consume(">") else { return false }
        switch top.kind {
        case .plist:
            guard Self.equals(tag, "plist"), top.elements.count == 1 else { return false }
            root = top.elements[0]
            return true
        case .array, .dictionary:
            guard Self.equals(tag, top.kind == .array ? "array" : "dict"), top.key == nil else { return false }
            depth -= 1
            return deliver(top.closedValue)
        }
    }

    /// Whether a value may come here: not in place of a dictionary's key, not a second value
    /// of `<plist>`.
    private func slotIsOpen() -> Bool {
        guard let top = stack.last else { return root == nil }
        switch top.kind {
        case .dictionary: return top.key != nil
        case .plist: return top.elements.isEmpty
        case .array: return true
        }
    }

    private mutating func deliver(_ value: PlistValue) -> Bool {
        produced += 1
        guard produced <= limits.maxObjects else { return false }
        guard !stack.isEmpty else {
            root = value
            return true
        }
        return stack[stack.count - 1].add(value)  // declines keys libxml2's reader refuses too
    }

    // MARK: Leaf text

    /// The text of a leaf element up to its end tag, references replaced, line ends
    /// normalized as XML does, comments dropped; converted by `XMLLeafText`.
    private mutating func leafValue(_ kind: Leaf, _ tag: UnsafeBufferPointer<UInt8>) -> PlistValue? {
        // Most leaves are one plain run: convert it in place, without copying.
        var k = i
        while k < bytes.count, !`is`(bytes[k], .textStop) { k += 1 }
        guard k < bytes.count else { return nil }
        if bytes[k] == UInt8(ascii: "<"), k + 1 < bytes.count, bytes[k + 1] == UInt8(ascii: "/") {
            let run = UnsafeBufferPointer(rebasing: bytes[i ..< k])
            i = k
            guard endLeaf(tag) else { return nil }
            return try? XMLLeafText.value(of: kind, run).get()
        }
        text.removeAll(keepingCapacity: true)
        text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i ..< k]))
        i = k
        while i < bytes.count {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "<"):
                if hasPrefix("<!--") {
                    guard comment() else { return nil }
                    continue
                }
                guard at(1) == UInt8(ascii: "/"), endLeaf(tag) else { return nil }
                return text.withUnsafeBufferPointer { try? XMLLeafText.value(of: kind, $0).get() }
            case UInt8(ascii: "&"):
                guard reference() else { return nil }
            case 0x0D:
                text.append(0x0A)
                i += at(1) == 0x0A ? 2 : 1
            case UInt8(ascii: "]"):
                guard !hasPrefix("]]>") else { return nil }
                text.append(c)
                i += 1
            default:
                text.append(c)
                i += 1
            }
        }
        return nil
    }

    /// `</tag>` closing the leaf opened with `tag`.
    private mutating func endLeaf(_ tag: UnsafeBufferPointer<UInt8>) -> Bool {
        i += 2
        guard let closing = name(), Self.same(closing, tag) else { return false }
        _ = skipBlanks()
        return consume(">")
    }

    /// `&lt;` `&gt;` `&amp;` `&apos;` `&quot;` `&#N;` `&#xH;` appended to `text`; any other
    /// entity declines (libxml2 reports it).
    private mutating func reference() -> Bool {
        for (entity, character) in Self.predefinedEntities where consume(entity) {
            text.append(character)
            return true
        }
        guard consume("&#") else { return false }
        let hex = consume("x")
        var scalar: UInt32 = 0
        var digits = 0
        while i < bytes.count, bytes[i] != UInt8(ascii: ";") {
            let c = bytes[i]
            let digit: UInt32
            switch c {
            case 0x30 ... 0x39: digit = UInt32(c - 0x30)
            case 0x61 ... 0x66 where hex: digit = UInt32(c - 0x61 + 10)
            case 0x41 ... 0x46 where hex: digit = UInt32(c - 0x41 + 10)
            default: return false
            }
            scalar = scalar * (hex ? 16 : 10) + digit
            digits += 1
            guard scalar <= 0x10FFFF else { return false }
            i += 1
        }
        guard digits > 0, consume(";"), Self.isXMLCharacter(scalar), let unicode = Unicode.Scalar(scalar) else { return false }
        text.append(contentsOf: UTF8.encode(unicode)!)
        return true
    }

    private static let predefinedEntities: [(StaticString, UInt8)] = [
        ("&lt;", 0x3C), ("&gt;", 0x3E), ("&amp;", 0x26), ("&apos;", 0x27), ("&quot;", 0x22),
    ]

    private static func isXMLCharacter(_ s: UInt32) -> Bool {
        s == 0x09 || s == 0x0A || s == 0x0D || (s >= 0x20 && s <= 0xD7FF) || (s >= 0xE000 && s <= 0xFFFD) || (s >= 0x10000 && s <= 0x10FFFF)
    }

    // MARK: Names

    private static func element(_ tag: UnsafeBufferPointer<UInt8>) -> Element? {
        switch tag.count {
        case 3: return equals(tag, "key") ? .key : nil
        case 4:
            if equals(tag, "dict") { return .dict }
            if equals(tag, "real") { return .leaf(.real) }
            if equals(tag, "date") { return .leaf(.date) }
            if equals(tag, "data") { return .leaf(.data) }
            if equals(tag, "true") { return .leaf(.boolean(true)) }
            return nil
        case 5:
            if equals(tag, "plist") { return .plist }
            if equals(tag, "array") { return .array }
            if equals(tag, "false") { return .leaf(.boolean(false)) }
            return nil
        case 6: return equals(tag, "string") ? .leaf(.string) : nil
        case 7: return equals(tag, "integer") ? .leaf(.integer) : nil
        default: return nil
        }
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        let start = word.utf8Start
        for k in 0 ..< bytes.count where bytes[k] != start[k] { return false }
        return true
    }

    private static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0 ..< a.count where a[k] != b[k] { return false }
        return true
    }

    private static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        func lowercased(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        return zip(bytes, expected).allSatisfy { lowercased($0) == lowercased($1) }
    }
}
