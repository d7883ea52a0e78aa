import ArgumentParser

/// What people type out of habit, made to work before ArgumentParser sees the line: global
/// options before the subcommand (`ubiq --cloud C sync`), negative numbers as option values
/// (`--limit -1`), and a mistyped command answered with the nearest one (`insrt` → `insert`).
enum CommandLineHabits {
    /// The options every command takes (`GlobalOptions`), with a value each.
    static let globalOptions: Set<String> = ["--cloud", "--device", "--log-level", "--content", "--model", "--container", "--format"]

    /// Global options given before the subcommand move to its end (before a `--`), where
    /// ArgumentParser reads them; everything else keeps its order.
    static func movingLeadingGlobalOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard globalOptions.contains(name) else { break }
            if argument.contains("=") || index + 1 >= arguments.count {
                leading.append(argument)
                index += 1
            } else {
                leading += [argument, arguments[index + 1]]
                index += 2
            }
        }
        guard !leading.isEmpty else { return arguments }
        var rest = Array(arguments[index...])
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: leading, at: end)
        return rest
    }

    /// `--name -1` becomes `--name=-1`: ArgumentParser takes a word starting with `-` for an
    /// option and would say the value is missing.
    static func joiningNegativeNumbers(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                result += arguments[index...]
                break
            }
            if argument.hasPrefix("--"), !argument.contains("="), index + 1 < arguments.count, isNegativeNumber(arguments[index + 1]) {
                result.append(argument + "=" + arguments[index + 1])
                index += 2
                continue
            }
            result.append(argument)
            index += 1
        }
        return result
    }

    static func isNegativeNumber(_ text: String) -> Bool {
        guard text.hasPrefix("-"), text.count > 1 else { return false }
        return Double(text.dropFirst()) != nil && text.dropFirst().first?.isNumber == true
    }

    /// The first word that names no subcommand where one is expected (`ubiq insrt`, `ubiq help
    /// nope`, `ubiq device int`), with the nearest name, as a one-line error; `nil` when the
    /// words name commands (or a command takes them as arguments).
    static func unknownCommand(in arguments: [String], root: any ParsableCommand.Type) -> String? {
        var words = arguments
        if words.first == "help" { words.removeFirst() }
        var command = root
        var path = [root._commandName]
        for word in words {
            if word.hasPrefix("-") { return nil }
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return nil }
            if let next = subcommands.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) }) {
                command = next
                path.append(word)
                continue
            }
            // A command with a default subcommand takes the word as that one's argument.
            guard command.configuration.defaultSubcommand == nil else { return nil }
            let names = subcommands.map { $0._commandName }
            let nearest = names.min { distance(word, $0) < distance(word, $1) }
            var message = "'\(word)' is not a command of '\(path.joined(separator: " "))'"
            if let nearest, distance(word, nearest) <= max(2, nearest.count / 3) { message += "; did you mean '\(nearest)'?" }
            return message + " (see '\(helpCommand(path.dropFirst()))')"
        }
        return nil
    }

    /// The names of the subcommands `arguments` lead to (`["device", "init"]` for
    /// `device init --user x`, `["sync"]` for `help sync`): the words from the start, as long
    /// as each names a subcommand of the one before.
    static func commandPath(in arguments: [String], root: any ParsableCommand.Type) -> [String] {
        var command = root
        var path: [String] = []
        for word in arguments.drop(while: { $0 == "help" }) {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) })
            else { break }
            command = next
            path.append(next._commandName)
        }
        return path
    }

    /// `ubiq help device init`: where a mistake in that command's words is explained.
    static func helpCommand<Path: Collection<String>>(_ path: Path) -> String {
        (["ubiq", "help"] + path).joined(separator: " ")
    }

    /// Levenshtein distance: how many single-character edits turn `a` into `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
