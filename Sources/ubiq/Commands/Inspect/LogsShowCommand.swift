import ArgumentParser
import Foundation
import Ubiquity

struct LogsShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Decode one log: author, number, knowledge, stamp and every change.",
        discussion: "FILE is a path, or a path relative to the ubiquity root as 'logs list' prints it.\nExample: ubiq logs show --json FILE --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The log file.") var file: String
    @Flag(help: "Print JSON.") var json = false
    @Option(help: "Print the log as a property list: 'xml'.") var plist: String?

    func run() throws {
        if let plist, plist != "xml" { throw CLIError("--plist takes 'xml'") }
        let configuration = try global.configuration()
        let device = try Device.load(from: configuration.device)
        var path = GlobalOptions.absolute(file)
        if !FileManager.default.fileExists(atPath: path), let token = device.identityToken {
            path = "\(configuration.cloud)/\(token)/\(configuration.containerIdentifier)/\(configuration.contentURL)/\(file)"
        }
        var bytes: [UInt8]
        do { bytes = try AtomicFile.read(path, limit: 64 << 20, followingLinks: true) } catch { throw CLIError("cannot read \(file): \(error.message)") }
        if SealedFile.isSealed(bytes) {
            // A log of encrypted content: opened with the key this device keeps.
            let sealed = bytes
            bytes = try global.withReadablePeer { peer in
                guard let location = peer.location else { throw CLIError("\(file) is sealed and this device is signed out") }
                location.sealing.refresh()
                do { return try location.sealing.open(sealed, path: path) } catch let error as FileError { throw CLIError("cannot open \(file): \(error.message)") }
            }
        }
        let log = try TransactionLog(decoding: bytes, model: configuration.model)
        if plist != nil {
            Console.outBytes(try PropertyListCodec.encode(log.plistValue, format: .xml))
        } else {
            Console.out(json ? log.jsonValue.text() : log.text)
        }
    }
}
