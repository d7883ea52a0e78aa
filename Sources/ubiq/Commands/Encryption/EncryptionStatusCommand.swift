import ArgumentParser
import Foundation
import Ubiquity

struct EncryptionStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Whether the content is encrypted, whether this device holds the key, and what is still plaintext.",
        discussion: "Example: ubiq encryption status --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let status = try global.withPeer(unlocking: false) { peer in try peer.encryptionStatus() }
        Console.out(json ? status.jsonValue.text() : status.line)
    }
}
