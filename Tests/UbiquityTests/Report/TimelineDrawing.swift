import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import UbiquitySimulation

/// A report's SVG read back as a tree, with what the checks look at: labels and their boxes,
/// lanes and what each holds, band segments.
struct TimelineDrawing {
    final class Node {
        let name: String
        let attributes: [String: String]
        /// Elements and pieces of text (named `#text`), in order.
        var children: [Node] = []
        var text = ""

        init(name: String, attributes: [String: String]) {
            self.name = name
            self.attributes = attributes
        }

        var classes: Set<String> { Set((attributes["class"] ?? "").split(separator: " ").map(String.init)) }
        /// Its text and its children's, leaving out tooltips (`title`).
        var visibleText: String { name == "#text" ? text : children.filter { $0.name != "title" }.map(\.visibleText).joined() }
        var tooltip: String? { children.first { $0.name == "title" }?.visibleText }

        func all(where test: (Node) -> Bool) -> [Node] {
            (test(self) ? [self] : []) + children.flatMap { $0.all(where: test) }
        }

        func number(_ attribute: String) -> Double { Double(attributes[attribute] ?? "") ?? .nan }
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    let root: Node

    init(svg: String) throws {
        let builder = Builder()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw ParseError(description: "the SVG is not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "no root")")
        }
        self.root = root
    }

    /// The SVG inside an HTML page.
    init(html: String) throws {
        guard let start = html.range(of: "<svg"), let end = html.range(of: "</svg>") else {
            throw ParseError(description: "no <svg> in the page")
        }
        try self.init(svg: String(html[start.lowerBound..<end.upperBound]))
    }

    var lanes: [Node] { root.all { $0.name == "g" && $0.classes.contains("lane") } }
    var laneNames: [String] { lanes.compactMap { $0.attributes["data-lane"] } }
    var labels: [Node] { root.all { $0.name == "text" && $0.classes.contains("label") } }

    /// A label's box as the layout measures it (`TextMetrics`, which errs wide).
    static func box(of label: Node) -> TimelineLayout.Box {
        let size = label.number("font-size")
        return TimelineLayout.Box(x: label.number("x"), y: label.number("y") - TimelineLayout.baseline,
                                  width: TextMetrics.width(label.visibleText, size: size), height: TimelineLayout.rowHeight - 1)
    }

    /// Pairs of labels whose boxes overlap, described.
    var overlappingLabels: [String] { Self.overlaps(labels.map { ($0.visibleText, Self.box(of: $0)) }) }

    /// Pairs of texts of any kind (title, violation, legend, names, labels, band, axis) whose
    /// boxes overlap: each box as wide as `TextMetrics` measures it, from the text's ascent to
    /// its descent, placed by its anchor.
    var overlappingTexts: [String] {
        Self.overlaps(root.all { $0.name == "text" }.map { text in
            let size = text.number("font-size").isNaN ? 11 : text.number("font-size")
            let bold = text.attributes["font-weight"] == "bold"
            let width = text.children.filter { $0.name != "title" }.reduce(0.0) { sum, part in
                sum + TextMetrics.width(part.visibleText, size: size, bold: bold || part.attributes["font-weight"] == "bold")
            }
            let anchor = text.attributes["text-anchor"] ?? "start"
            let x = text.number("x") - (anchor == "middle" ? width / 2 : anchor == "end" ? width : 0)
            return (text.visibleText, TimelineLayout.Box(x: x, y: text.number("y") - 0.8 * size, width: width, height: size))
        })
    }

    private static func overlaps(_ boxes: [(String, TimelineLayout.Box)]) -> [String] {
        var found: [String] = []
        for first in boxes.indices {
            for second in boxes.indices where second > first && boxes[first].1.overlaps(boxes[second].1) {
                found.append("'\(boxes[first].0)' \(boxes[first].1) overlaps '\(boxes[second].0)' \(boxes[second].1)")
            }
        }
        return found
    }

    /// Each band segment of a lane: its box's x and width, its text and the account in it (bold).
    func segments(of lane: String) -> [(x: Double, width: Double, text: String, account: String, tooltip: String)] {
        guard let node = lanes.first(where: { $0.attributes["data-lane"] == lane }) else { return [] }
        return node.all { $0.name == "g" && $0.classes.contains("segment") }.compactMap { segment in
            guard let box = segment.children.first(where: { $0.classes.contains("segment-box") }) else { return nil }
            let text = segment.children.first { $0.classes.contains("segment-text") }
            let account = text?.children.first { $0.name == "tspan" }?.visibleText ?? ""
            return (box.number("x"), box.number("width"), text?.visibleText ?? "", account, segment.tooltip ?? "")
        }
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: Node?
        var stack: [Node] = []

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            let node = Node(name: name, attributes: attributes)
            if let parent = stack.last { parent.children.append(node) } else { root = node }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            let piece = Node(name: "#text", attributes: [:])
            piece.text = string
            stack.last?.children.append(piece)
        }
    }
}
