import CLibXML2
import Foundation

/// An XML element with its attributes, children and the line it starts on: what the model
/// reader needs of Xcode's `contents` files, whose data is all in elements and attributes.
struct XMLElementNode {
    let name: String
    /// In document order; names are unique per element (XML says so).
    let attributes: [(name: String, value: String)]
    var children: [XMLElementNode]
    let line: Int

    func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
}

/// Why an XML document could not be read, with its line.
struct XMLTreeError: Error {
    let line: Int
    let element: String?
    let message: String
}

/// Reads a whole XML document into `XMLElementNode`s with libxml2's `xmlTextReader`, as the
/// plist reader does: no network, no DTD loading, no entity substitution (entity references are
/// refused), libxml2's messages captured instead of printed, nesting on an explicit stack.
/// Text content is refused: Xcode's model files have none.
enum XMLElementTree {
    static let maxBytes = 32 << 20
    static let maxDepth = 64

    private final class ErrorSink {
        var message: String?
        var line = 0
    }

    private static let libxml2Initialized: Void = xmlInitParser()

    private static let captureError: xmlStructuredErrorFunc = { context, error in
        guard let context, let error else { return }
        let sink = Unmanaged<ErrorSink>.fromOpaque(context).takeUnretainedValue()
        guard sink.message == nil else { return }
        let raw = error.pointee.message.map { String(cString: $0) } ?? "malformed XML"
        sink.message = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        sink.line = Int(error.pointee.line)
    }

    static func parse(_ bytes: [UInt8]) throws(XMLTreeError) -> XMLElementNode {
        _ = libxml2Initialized
        guard bytes.count <= maxBytes else { throw XMLTreeError(line: 1, element: nil, message: "file is larger than \(maxBytes) bytes") }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue)
        let created = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                xmlReaderForMemory(chars.baseAddress, Int32(chars.count), nil, nil, options)
            }
        }
        guard let reader = created else { throw XMLTreeError(line: 1, element: nil, message: "libxml2 could not create a reader") }
        defer { xmlFreeTextReader(reader) }
        let sink = ErrorSink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        xmlTextReaderSetStructuredErrorHandler(reader, captureError, context)
        let savedHandler = __xmlStructuredError().pointee
        let savedContext = __xmlStructuredErrorContext().pointee
        xmlSetStructuredErrorFunc(context, captureError)
        defer { xmlSetStructuredErrorFunc(savedContext, savedHandler) }
        defer { withExtendedLifetime(sink) {} }

        func line() -> Int {
            var line = xmlTextReaderCurrentNode(reader).map { Int(xmlGetLineNo($0)) } ?? -1
            if line <= 0 { line = Int(xmlTextReaderGetParserLineNumber(reader)) }
            return max(line, 1)
        }
        var stack: [XMLElementNode] = []
        var root: XMLElementNode?
        func close(_ node: XMLElementNode) {
            if stack.isEmpty { root = node } else { stack[stack.count - 1].children.append(node) }
        }
        while true {
            let status = xmlTextReaderRead(reader)
            if let message = sink.message {
                throw XMLTreeError(line: max(sink.line, 1), element: stack.last?.name, message: "malformed XML: \(message)")
            }
            if status == 0 { break }
            if status < 0 { throw XMLTreeError(line: line(), element: nil, message: "malformed XML") }
            switch xmlTextReaderNodeType(reader) {
            case 1:  // element
                let name = xmlTextReaderConstName(reader).map { String(cString: $0) } ?? ""
                guard root == nil else { throw XMLTreeError(line: line(), element: name, message: "a second root element") }
                guard stack.count < maxDepth else { throw XMLTreeError(line: line(), element: name, message: "nesting deeper than \(maxDepth)") }
                let elementLine = line()
                let empty = xmlTextReaderIsEmptyElement(reader) == 1
                var attributes: [(name: String, value: String)] = []
                while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                    let attributeName = xmlTextReaderConstName(reader).map { String(cString: $0) } ?? ""
                    let value = xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
                    attributes.append((attributeName, value))
                }
                let node = XMLElementNode(name: name, attributes: attributes, children: [], line: elementLine)
                if empty { close(node) } else { stack.append(node) }
            case 15:  // end element
                guard let node = stack.popLast() else { throw XMLTreeError(line: line(), element: nil, message: "unbalanced end tag") }
                close(node)
            case 3, 4:  // text, CDATA
                let text = xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
                if !text.allSatisfy(\.isWhitespace) {
                    throw XMLTreeError(line: line(), element: stack.last?.name, message: "unexpected text \"\(text.prefix(40))\"")
                }
            case 5:
                throw XMLTreeError(line: line(), element: stack.last?.name, message: "entity references are not supported")
            default:
                break  // whitespace, comments, processing instructions, the DOCTYPE
            }
        }
        guard stack.isEmpty, let root else { throw XMLTreeError(line: line(), element: nil, message: "the document ends inside an element") }
        return root
    }
}
