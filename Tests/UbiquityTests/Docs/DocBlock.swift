import Foundation

/// A command block of README.md or Docs/*.md, as the docs tests read it (the convention is in
/// Docs/Architecture.md, "Docs that run").
///
/// A fence tagged `console`, or an untagged fence holding a line that starts with `$ `, is a
/// *transcript*: `$ ` lines are commands, the lines under one are what it prints (stdout and
/// stderr as they interleave). A fence tagged `sh` or `bash` is a *script*: every line is a
/// command whose output is not shown; it must succeed, or fail with the text of its
/// `# error: TEXT` comment. Other fences (Swift, diagrams, formats) hold no commands.
struct DocBlock: CustomStringConvertible {
    enum Kind: Equatable { case transcript, script }

    /// Where the block's commands run: the marker comment on the line above its fence says.
    enum Fixture: Equatable {
        /// An empty folder holding links to the repository's `containers`, `Tests` and `scripts`
        /// (no marker means this).
        case fresh
        /// The folder, working directory and exported variables the previous run block of the
        /// same file left.
        case continues
        /// Not run, for the reason given (shown in the test output).
        case notRun(String)
    }

    struct Step {
        /// The command as written, without its `$ `.
        var command: String
        /// The line of the command in the file (1-based).
        var line: Int
        /// What a transcript shows under the command.
        var output: [String] = []
        /// A script command expected to fail: the text its `# error:` comment gives.
        var expectedError: String? = nil
        /// Why this command does not run (an `except` clause of the marker), if it does not.
        var notRun: String? = nil
    }

    let file: String
    /// The line of the opening fence (1-based).
    let line: Int
    let kind: Kind
    let fixture: Fixture
    /// Compare peer IDs, UUIDs, dates, durations and byte counts as placeholders.
    let masked: Bool
    var steps: [Step]

    var description: String { "\(file):\(line)" }

    struct MarkerError: Error, CustomStringConvertible {
        let description: String
    }

    /// The command blocks of one Markdown file.
    static func parse(_ text: String, file: String) throws -> [DocBlock] {
        let lines = text.components(separatedBy: "\n")
        var blocks: [DocBlock] = []
        var index = 0
        while index < lines.count {
            let opening = lines[index]
            guard opening.hasPrefix("```") else { index += 1; continue }
            let language = opening.dropFirst(3).trimmingCharacters(in: .whitespaces)
            var close = index + 1
            while close < lines.count && !lines[close].hasPrefix("```") { close += 1 }
            let body = Array(lines[(index + 1) ..< min(close, lines.count)])
            defer { index = close + 1 }
            let kind: Kind
            switch language {
            case "console": kind = .transcript
            case "sh", "bash", "shell": kind = .script
            case "" where body.contains { $0.hasPrefix("$ ") }: kind = .transcript
            default: continue
            }
            let marker = try Marker(above: index, in: lines, file: file)
            var block = DocBlock(file: file, line: index + 1, kind: kind, fixture: marker.fixture, masked: marker.masked, steps: [])
            block.steps = kind == .transcript ? transcriptSteps(body, firstLine: index + 2) : scriptSteps(body, firstLine: index + 2)
            for exception in marker.exceptions {
                let matching = block.steps.indices.filter { block.steps[$0].command.hasPrefix(exception.prefix) }
                guard !matching.isEmpty else {
                    throw MarkerError(description: "\(file):\(index): 'except \(exception.prefix)' matches no command of the block")
                }
                for step in matching { block.steps[step].notRun = exception.reason }
            }
            blocks.append(block)
        }
        return blocks
    }

    private static func transcriptSteps(_ body: [String], firstLine: Int) -> [Step] {
        var steps: [Step] = []
        for (offset, line) in body.enumerated() {
            if line.hasPrefix("$ ") {
                steps.append(Step(command: String(line.dropFirst(2)), line: firstLine + offset))
            } else if !steps.isEmpty {
                steps[steps.count - 1].output.append(line)
            }
        }
        // A blank line between steps separates them for the reader; it is not output.
        for step in steps.indices {
            while steps[step].output.last?.isEmpty == true { steps[step].output.removeLast() }
        }
        return steps
    }

    private static func scriptSteps(_ body: [String], firstLine: Int) -> [Step] {
        var steps: [Step] = []
        var pending: Step?
        for (offset, line) in body.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if pending == nil && (trimmed.isEmpty || trimmed.hasPrefix("#")) { continue }
            var step = pending ?? Step(command: "", line: firstLine + offset)
            step.command += (step.command.isEmpty ? "" : "\n") + line
            if line.hasSuffix("\\") { pending = step; continue }
            pending = nil
            if let comment = line.range(of: "# error: ") {
                step.expectedError = String(line[comment.upperBound...]).trimmingCharacters(in: CharacterSet(charactersIn: " …"))
            }
            steps.append(step)
        }
        if let pending { steps.append(pending) }
        return steps
    }

    /// `<!-- doc-test: FIXTURE [masked] [; except PREFIX: REASON]… -->`, on the lines right
    /// above a fence; FIXTURE is `fresh`, `continues` or `not run: REASON`.
    private struct Marker {
        var fixture: Fixture = .fresh
        var masked = false
        var exceptions: [(prefix: String, reason: String)] = []

        init(above fence: Int, in lines: [String], file: String) throws {
            guard fence > 0, lines[fence - 1].hasSuffix("-->") else { return }
            var start = fence - 1
            while start > 0 && !lines[start].hasPrefix("<!--") { start -= 1 }
            let comment = lines[start ... (fence - 1)].map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            guard comment.hasPrefix("<!-- doc-test:") else { return }
            let body = comment.dropFirst("<!-- doc-test:".count).dropLast(3).trimmingCharacters(in: .whitespaces)
            // Reasons may hold ';': only "; except " starts a clause, and a `not run` reason is the rest.
            let clauses = body.hasPrefix("not run:") ? [body]
                : body.components(separatedBy: "; except ").enumerated().map { $0.offset == 0 ? $0.element : "except " + $0.element }
                    .map { $0.trimmingCharacters(in: .whitespaces) }
            let located = "\(file):\(start + 1)"
            if clauses[0].hasPrefix("not run:") {
                let reason = clauses[0].dropFirst("not run:".count).trimmingCharacters(in: .whitespaces)
                guard !reason.isEmpty else { throw MarkerError(description: "\(located): 'not run:' needs a reason") }
                fixture = .notRun(reason)
            } else {
                for word in clauses[0].split(separator: " ") {
                    switch word {
                    case "fresh": fixture = .fresh
                    case "continues": fixture = .continues
                    case "masked": masked = true
                    default: throw MarkerError(description: "\(located): unknown doc-test word '\(word)' (fresh, continues, masked, not run: REASON)")
                    }
                }
            }
            for clause in clauses.dropFirst() {
                guard clause.hasPrefix("except "), let colon = clause.range(of: ": ") else {
                    throw MarkerError(description: "\(located): '\(clause)' is not 'except COMMAND PREFIX: REASON'")
                }
                let prefix = clause[clause.index(clause.startIndex, offsetBy: 7) ..< colon.lowerBound].trimmingCharacters(in: .whitespaces)
                exceptions.append((prefix, String(clause[colon.upperBound...])))
            }
        }
    }
}
