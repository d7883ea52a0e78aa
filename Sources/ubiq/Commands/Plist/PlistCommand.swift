import ArgumentParser

/// `ubiq plist`: plutil for property lists on Linux. The subcommands are the readable
/// spellings; plutil's own flags (-lint, -p, -convert FMT, -o) go to the hidden default
/// subcommand `PlistPlutilCommand`, so `ubiq plist -lint FILE` works as plutil's does.
struct PlistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plist",
        abstract: "Check, print and convert property lists (binary, XML, JSON), like plutil.",
        discussion: """
            Reads binary, XML and typed-JSON plists (the format is detected). Exit status: 0 \
            when every FILE succeeded, 1 when any failed (each reported as 'FILE: <reason>' \
            on stderr).

            plutil's spellings work too:
              ubiq plist -lint FILE…                     (same as: ubiq plist lint FILE…)
              ubiq plist -p FILE                         (same as: ubiq plist print FILE)
              ubiq plist -convert xml1|binary1|json FILE [-o OUT]
            """,
        subcommands: [PlistLintCommand.self, PlistPrintCommand.self, PlistConvertCommand.self, PlistPlutilCommand.self],
        defaultSubcommand: PlistPlutilCommand.self)
}

