import ArgumentParser

struct AccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Sign the device in or out of an iCloud account, or show its account.",
        discussion: """
            Like the system's account settings: device.plist changes, and a running peer of the \
            device (ubiq watch, an app) switches stores on its own.
            Example: ubiq account sign-in alice --device ./phone
            """,
        subcommands: [SignInCommand.self, SignOutCommand.self, AccountShowCommand.self])
}
