/// A Markdown table: the form every suite prints and Docs/Benchmarks.md keeps.
struct MarkdownTable {
    let title: String
    let header: [String]
    var rows: [[String]] = []
    /// Lines printed under the table (what was measured, how).
    var notes: [String] = []

    init(_ title: String, _ header: [String]) {
        self.title = title
        self.header = header
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    var text: String {
        var lines = ["## " + title, "", "| " + header.joined(separator: " | ") + " |",
                     "|" + header.enumerated().map { $0.offset == 0 ? "---|" : "---:|" }.joined()]
        lines += rows.map { "| " + $0.joined(separator: " | ") + " |" }
        if !notes.isEmpty { lines += [""] + notes }
        return lines.joined(separator: "\n") + "\n"
    }
}
