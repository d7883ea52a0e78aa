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
        let status = try global.withPeer { peer in try peer.encryptionStatus() }
        guard json else {
            Console.out(status.line)
            return
        }
        var fields: [String: JSONValue] = ["state": .string(status.state.name), "plaintextFiles": .array(status.plaintextFiles.map(JSONValue.string))]
        if let parameters = status.parameters {
            fields["scrypt"] = .object(["logN": .int(Int64(parameters.logN)), "r": .int(Int64(parameters.r)), "p": .int(Int64(parameters.p))])
        }
        if case let .sealed(keyID) = status.state { fields["keyID"] = .string(keyID) }
        fields["created"] = status.created.map { .double($0.timeIntervalSince1970) } ?? .null
        fields["passphraseChanged"] = status.passphraseChanged.map { .double($0.timeIntervalSince1970) } ?? .null
        Console.out(JSONValue.object(fields).text())
    }
}
