import ArgumentParser
import Ubiquity

struct SignInCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in", abstract: "Sign in to the account TOKEN.", discussion: "Example: ubiq account sign-in alice --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The account's identity token.") var token: String

    func run() throws {
        let device = try Device.setAccount(token, at: global.devicePath)
        Console.out("signed in to '\(device.identityToken ?? "")'")
    }
}
