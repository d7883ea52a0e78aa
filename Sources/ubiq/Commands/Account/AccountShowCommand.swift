import ArgumentParser
import Ubiquity

struct AccountShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print the device's account and peer ID.", discussion: "Example: ubiq account show --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let device = try Device.load(from: global.devicePath)
        let peerID = device.peerID()
        if json {
            Console.out(JSONValue.object(["account": device.identityToken.map(JSONValue.string) ?? .null, "peerID": .string(peerID), "user": .string(device.userName)]).text())
        } else {
            Console.out("account: \(device.identityToken ?? "(signed out)")")
            Console.out("peer ID: \(peerID)")
        }
    }
}
