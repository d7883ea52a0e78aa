import CLibXML2

/// Reads XML property lists with libxml2's streaming `xmlTextReader`.
///
/// The parser never touches the network, never loads an external DTD and does not
/// substitute entities (entity references other than the predefined and character ones are
/// rejected), so external-entity and entity-expansion attacks have nothing to work with.
/// libxml2's own messages are captured into the `PlistError` instead of going to stderr.
/// Nesting is tracked on an explicit stack, not by recursion.
struct XMLPlistReader {
    private typealias Leaf = XMLLeafText.Kind

    private typealias Container = XMLPlistContainer

    /// Receives libxml2's errors for one parse; only the first is kept.
    private final class ErrorSink {
        var message: String?
        var line = 0
        var column = 0
    }

    private let reader: xmlTextReaderPtr
    private let input: UnsafeBufferPointer<UInt8>
    private let limits: PlistLimits
    private var stack: [Container] = []
    private var depth = 0
    private var produced = 0
    private var leaf: Leaf?
    private var text: [UInt8] = []
    private var root: PlistValue?
    /// libxml2 interns element names, so a name's pointer identifies it: remember the
    /// strings made for the few distinct names instead of making one per element.
    private var names: [(pointer: UnsafePointer<xmlChar>, element: Element)] = []

    private enum Element {
        case plist, key, dict, array, string, integer, real, date, data, `true`, `false`
        case unknown(String)

        init(_ name: String) {
            switch name {
            case "plist": self = .plist
            case "key": self = .key
            case "dict": self = .dict
            case "array": self = .array
            case "string": self = .string
            case "integer": self = .integer
            case "real": self = .real
            case "date": self = .date
            case "data": self = .data
            case "true": self = .true
            case "false": self = .false
            default: self = .unknown(name)
            }
        }

        var name: String {
            switch self {
            case .plist: return "plist"
            case .key: return "key"
            case .dict: return "dict"
            case .array: return "array"
            case .string: return "string"
            case .integer: return "integer"
            case .real: return "real"
            case .date: return "date"
            case .data: return "data"
            case .true: return "true"
            case .false: return "false"
            case let .unknown(name): return name
            }
        }
    }

    /// libxml2 wants one xmlInitParser() before it is used from several threads; Swift runs
    /// a static initializer exactly once.
    private static let libxml2Initialized: Void = xmlInitParser()

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, limits: PlistLimits) throws(PlistError) -> PlistValue {
        _ = libxml2Initialized
        let maxBytes = min(limits.maxBytes, Int(Int32.max))  // libxml2 takes an int size
        if bytes.count > maxBytes {
            throw PlistError("XML plist: file is \(bytes.count) bytes, more than the limit of \(maxBytes)",
                             location: .byteOffset(max(maxBytes, 0)))
        }
        // No XML_PARSE_NOENT (no entity substitution), no DTDLOAD/DTDATTR/DTDVALID, no HUGE
        // (keeps libxml2's own size and depth caps); NOCDATA merges CDATA into text.
        var options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue)
        if canDropBlankNodes(bytes) { options |= Int32(XML_PARSE_NOBLANKS.rawValue) }
        let sink = ErrorSink()
        defer { withExtendedLifetime(sink) {} }   // until every deferred call below, which may still report
        let context = Unmanaged.passUnretained(sink).toOpaque()
        // Some messages (e.g. "input conversion failed", "encoder error") bypass the reader's
        // handler and go to this thread's global one, which prints to stderr: capture those too
        // from the reader's creation to its release (which flushes its encoder and may report
        // then), then put back whatever was installed.
        let savedHandler = __xmlStructuredError().pointee
        let savedContext = __xmlStructuredErrorContext().pointee
        xmlSetStructuredErrorFunc(context, Self.captureError)
        defer { xmlSetStructuredErrorFunc(savedContext, savedHandler) }
        let created = bytes.withMemoryRebound(to: CChar.self) { chars in
            xmlReaderForMemory(chars.baseAddress, Int32(bytes.count), nil, nil, options)
        }
        guard let handle = created else {
            throw PlistError("XML plist: libxml2 could not create a reader", location: .none)
        }
        defer { xmlFreeTextReader(handle) }
        xmlTextReaderSetStructuredErrorHandler(handle, Self.captureError, context)
        var parser = XMLPlistReader(reader: handle, input: bytes, limits: limits)
        let result: Result<PlistValue, PlistError>
        do throws(PlistError) {
            result = .success(try parser.run(sink))
        } catch {
            // Prefer libxml2's own diagnosis when it reported one.
            result = .failure(sink.message.map { parser.libxmlError($0, sink) } ?? error)
        }
        return try result.get()
    }

    /// Whether libxml2 may drop whitespace-only text nodes (XML_PARSE_NOBLANKS), which saves
    /// about a quarter of the reader's work: whitespace between elements is all it then
    /// drops, except where a blank run inside an element is followed by a comment, CDATA
    /// section or processing instruction (libxml2's heuristic would then also drop the
    /// leading blanks of a <string>). So only when the body holds none of those, and the
    /// input is a single-byte-compatible encoding in which they could be seen.
    static func canDropBlankNodes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = bytes.count
        guard n >= 4, !bytes[0 ..< 4].contains(0), bytes[0] != 0xFE, bytes[0] != 0xFF, bytes[0] != 0x4C else {
            return false
        }
        // Skip the prolog (XML declaration, comments, DOCTYPE) up to the root element, then
        // look for any "<!" or "<?" in the body. memchr keeps this to a few percent.
        guard let base = bytes.baseAddress else { return false }
        var i = 0
        var inBody = false
        while i + 1 < n, let found = memchr(base + i, Int32(UInt8(ascii: "<")), n - i - 1) {
            i = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let next = bytes[i + 1]
            let markup = next == UInt8(ascii: "!") || next == UInt8(ascii: "?")
            if inBody && markup { return false }
            if !markup { inBody = true }
            i += 1
        }
        return true
    }

    /// Keeps the first error libxml2 reports into the `ErrorSink` passed as context.
    private static let captureError: xmlStructuredErrorFunc = { context, error in
        guard let context, let error else { return }
        let sink = Unmanaged<ErrorSink>.fromOpaque(context).takeUnretainedValue()
        guard sink.message == nil else { return }
        let raw = error.pointee.message.map { String(cString: $0) } ?? "malformed XML"
        sink.message = raw.trimmingTrailingNewlines
        sink.line = Int(error.pointee.line)
        sink.column = Int(error.pointee.int2)
    }

    private init(reader: xmlTextReaderPtr, input: UnsafeBufferPointer<UInt8>, limits: PlistLimits) {
        self.reader = reader
        self.input = input
        self.limits = limits
    }

    private func libxmlError(_ message: String, _ sink: ErrorSink) -> PlistError {
        PlistError("XML plist: malformed XML: \(message)",
                   location: .lineColumn(line: max(sink.line, 1), column: max(sink.column, 1)))
    }

    /// An error at the current node. libxml2's parser reads ahead of the node the reader
    /// reports, so the line comes from the node; the column is that of `<element` on that
    /// line when given, else of the line's first non-blank character.
    private func fail(_ message: String, element: String? = nil) -> PlistError {
        var line = xmlTextReaderCurrentNode(reader).map { Int(xmlGetLineNo($0)) } ?? -1
        if line <= 0 { line = Int(xmlTextReaderGetParserLineNumber(reader)) }
        line = max(line, 1)
        return PlistError("XML plist: " + message, location: .lineColumn(line: line, column: column(onLine: line, of: element)))
    }

    private func column(onLine line: Int, of element: String?) -> Int {
        var start = 0
        var current = 1
        while current < line, let newline = input[start...].firstIndex(of: 0x0A) {
            start = newline + 1
            current += 1
        }
        let end = input[start...].firstIndex(of: 0x0A) ?? input.count
        let text = input[start ..< end]
        if let element {
            let needle = Array(("<" + element).utf8)
            if needle.count <= text.count {
                for i in text.startIndex ... text.endIndex - needle.count where text[i ..< i + needle.count].elementsEqual(needle) {
                    return i - start + 1
                }
            }
        }
        return (text.firstIndex { !Self.isBlank($0) } ?? start) - start + 1
    }

    private mutating func run(_ sink: ErrorSink) throws(PlistError) -> PlistValue {
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { break }
            if status < 0 || sink.message != nil {
                if let message = sink.message { throw libxmlError(message, sink) }
                throw fail("malformed XML")
            }
            switch xmlTextReaderNodeType(reader) {
            case 1:  // element
                guard let name = xmlTextReaderConstName(reader) else { throw fail("element without a name") }
                try start(element(name), empty: xmlTextReaderIsEmptyElement(reader) == 1)
            case 15:  // end element
                try end()
            case 3, 4, 13, 14:  // text, CDATA, whitespace
                try characters(xmlTextReaderConstValue(reader))
            case 5:
                throw fail("entity references are not supported")
            default:
                break  // comments, processing instructions, the DOCTYPE
            }
        }
        if leaf != nil || !stack.isEmpty { throw fail("document ends inside an element") }
        guard let root else { throw fail("no property list value in the document") }
        return root
    }

    private mutating func element(_ pointer: UnsafePointer<xmlChar>) -> Element {
        for entry in names where entry.pointer == pointer { return entry.element }
        let element = Element(String(cString: pointer))
        if names.count < 16 { names.append((pointer, element)) }
        return element
    }

    private mutating func start(_ element: Element, empty: Bool) throws(PlistError) {
        let name = element.name
        if let leaf { throw fail("unexpected element <\(name)> inside <\(Self.name(of: leaf))>") }
        if case .plist = element {
            guard stack.isEmpty, root == nil else { throw fail("<plist> may only be the root element") }
            if empty { throw fail("<plist> holds no value") }
            stack.append(Container(kind: .plist))
            return
        }
        if case .key = element {
            guard let top = stack.last, top.kind == .dictionary else { throw fail("<key> outside a <dict>") }
            if top.key != nil { throw fail("expected a value after <key> in <dict>, found <key>") }
            if empty { try setKey("") } else { beginLeaf(.key) }
            return
        }
        let kind: Leaf
        switch element {
        case .dict, .array:
            try checkSlot(name)
            if depth >= limits.maxDepth { throw fail("nesting depth exceeds the limit of \(limits.maxDepth)") }
            let container: Container.Kind = if case .dict = element { .dictionary } else { .array }
            if empty {
                try deliver(container == .dictionary ? .dictionary([:]) : .array([]))
            } else {
                depth += 1
                stack.append(Container(kind: container))
            }
            return
        case .string: kind = .string
        case .integer: kind = .integer
        case .real: kind = .real
        case .date: kind = .date
        case .data: kind = .data
        case .true: kind = .boolean(true)
        case .false: kind = .boolean(false)
        case .plist, .key, .unknown: throw fail("unknown element <\(name)>", element: name)
        }
        try checkSlot(name)
        if empty {
            try deliver(try value(of: kind, UnsafeBufferPointer(start: nil, count: 0)))
        } else {
            beginLeaf(kind)
        }
    }

    /// Throws unless a value may appear here.
    private func checkSlot(_ name: String) throws(PlistError) {
        guard let top = stack.last else {
            if root != nil { throw fail("more than one top-level value") }
            return
        }
        switch top.kind {
        case .dictionary where top.key == nil: throw fail("expected <key> in <dict>, found <\(name)>", element: name)
        case .plist where !top.elements.isEmpty: throw fail("<plist> holds more than one value")
        default: break
        }
    }

    private mutating func beginLeaf(_ kind: Leaf) {
        leaf = kind
        text.removeAll(keepingCapacity: true)
    }

    private mutating func characters(_ value: UnsafePointer<xmlChar>?) throws(PlistError) {
        guard let value else { return }
        let length = strlen(UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self))
        let chunk = UnsafeBufferPointer(start: value, count: length)
        if leaf != nil {
            text.append(contentsOf: chunk)
        } else if !chunk.allSatisfy(Self.isBlank) {
            let place = stack.last.map { "<\(Self.name(of: $0.kind))>" } ?? "the document"
            throw fail("unexpected text in \(place)")
        }
    }

    private mutating func end() throws(PlistError) {
        if let kind = leaf {
            leaf = nil
            let value: PlistValue? = try text.withUnsafeBufferPointer { (buffer) throws(PlistError) -> PlistValue? in
                if case .key = kind {
                    try setKey(String(decoding: buffer, as: UTF8.self))
                    return nil
                }
                return try self.value(of: kind, buffer)
            }
            if let value { try deliver(value) }
            return
        }
        guard let top = stack.popLast() else { throw fail("unbalanced end tag") }
        switch top.kind {
        case .plist:
            guard let value = top.elements.first else { throw fail("<plist> holds no value") }
            root = value
        case .array, .dictionary:
            depth -= 1
            if let key = top.key { throw fail("<key>\(key)</key> has no value in <dict>") }
            try deliver(top.closedValue)
        }
    }

    private mutating func setKey(_ key: String) throws(PlistError) {
        stack[stack.count - 1].key = key
    }

    private mutating func deliver(_ value: PlistValue) throws(PlistError) {
        produced += 1
        if produced > limits.maxObjects { throw fail("more than \(limits.maxObjects) values (limit)") }
        guard !stack.isEmpty else {
            root = value
            return
        }
        guard stack[stack.count - 1].add(value) else {
            throw fail("<dict> has two keys that differ only in Unicode normalisation")
        }
    }

    // MARK: Leaf values

    private func value(of kind: Leaf, _ raw: UnsafeBufferPointer<UInt8>) throws(PlistError) -> PlistValue {
        switch XMLLeafText.value(of: kind, raw) {
        case let .success(value): return value
        case let .failure(problem): throw fail(problem.message, element: problem.element)
        }
    }

    private static func isBlank(_ c: UInt8) -> Bool { XMLLeafText.isBlank(c) }

    private static func name(of leaf: Leaf) -> String { leaf.elementName }

    private static func name(of kind: Container.Kind) -> String {
        switch kind {
        case .plist: return "plist"
        case .array: return "array"
        case .dictionary: return "dict"
        }
    }
}

private extension String {
    var trimmingTrailingNewlines: String {
        var s = self
        while s.last == "\n" || s.last == " " { s.removeLast() }
        return s
    }
}
