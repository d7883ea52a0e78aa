import ArgumentParser
import Ubiquity

struct SignOutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-out", abstract: "Sign out: the device works on its local store, which does not sync.",
        discussion: "Example: ubiq account sign-out --device ./phone")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        _ = try Device.setAccount(nil, at: global.devicePath)
        Console.out("signed out")
    }
}
