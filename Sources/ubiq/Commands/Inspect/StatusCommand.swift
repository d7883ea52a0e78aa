import ArgumentParser
import Foundation
import Ubiquity

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "The device (account, store and why, knowledge, outbox, last import) and the container (peers, baseline, quarantine, file states).",
        discussion: "File states as Xcode's iCloud report: Current, Stored in Cloud, Data Not Present, Excluded.\nExample: ubiq status --json --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try global.withReadablePeer { peer in try ContainerReport.make(for: peer) }
        Console.out(json ? report.jsonValue.text() : report.text)
    }
}

struct PeersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peers",
        abstract: "Every peer in the container: its model version, its logs, its receipt, and how far behind it is.",
        discussion: "Example: ubiq peers --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try global.withReadablePeer { peer in try ContainerReport.make(for: peer) }
        let versions = report.modelVersions
        if json {
            Console.out(JSONValue.array(report.peers.map { peer in
                guard case var .object(fields) = peer.jsonValue else { return peer.jsonValue }
                fields["modelVersion"] = versions?.version(of: peer.peerID).map { .string($0.modelHash) } ?? .null
                return .object(fields)
            }).text())
            return
        }
        if report.peers.isEmpty { Console.out("no peers in the container") }
        for peer in report.peers {
            let receipt = peer.receipt.map { "imported \($0.knowledge.description.isEmpty ? "nothing" : $0.knowledge.description)" } ?? "no receipt"
            // Logs, receipt and lag count this device's model version only.
            let version = versions?.version(of: peer.peerID).map { version in
                version.isThisPeers ? "" : "; on model \(version.modelHash) (another version: \(version.waiting[peer.peerID] ?? 0) transaction(s) wait for it to upgrade)"
            } ?? ""
            Console.out("\(peer.peerID)\(peer.peerID == report.peerID ? " (this device)" : ""): \(peer.logCount) log(s), \(peer.logBytes) bytes, up to transaction \(peer.highestLog); \(receipt); \(peer.behind) behind\(version)")
        }
        if let versions, versions.needsAttention {
            Console.out("model versions:")
            for line in versions.lines { Console.out("  " + line) }
        }
    }
}

struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "List the container's transaction logs, or show one decoded.",
        discussion: "Example: ubiq logs show <peer>/Notes/<hash>/0000000001-<UUID>.1.cdt --device ./phone",
        subcommands: [LogsListCommand.self, LogsShowCommand.self],
        defaultSubcommand: LogsListCommand.self)
}

struct LogsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Every log file with its state (paths relative to the ubiquity root).",
        discussion: "Example: ubiq logs list --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let report = try global.withReadablePeer { peer in try ContainerReport.make(for: peer) }
        let logs = report.files.filter { $0.path.hasSuffix(".1.cdt") }
        if json {
            Console.out(JSONValue.array(logs.map { .object(["path": .string($0.path), "state": .string($0.state.rawValue)]) }).text())
        } else {
            for log in logs { Console.out("\(log.state.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) \(log.path)") }
        }
    }
}

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

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the container and the device; print each problem with its repair.",
        discussion: "--fix repairs what is safe: stale temporary files, this peer's receipt, a fallback left behind.\nExample: ubiq doctor --fix --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Repair what is safe to repair.") var fix = false
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        // Without --fix the doctor only reads: it works while a `watch` owns the device.
        func examine(_ peer: UbiquityPeer) throws -> ([DoctorFinding], [String]) {
            let findings = try Doctor.examine(peer)
            return (findings, fix ? Doctor.fix(findings, peer: peer) : [])
        }
        let (findings, repairs) = try fix ? global.withPeer(examine) : global.withReadablePeer(examine)
        var allRepairs = repairs
        if fix, findings.contains(where: { $0.kind == .staleFallback }) {
            let coordinator = try UbiquitousStoreCoordinator(configuration: try global.configuration())
            try coordinator.addStore()
            try coordinator.waitForBackgroundImport()
            coordinator.close()
            allRepairs.append("finished the initial import and migrated the fallback")
        }
        if json {
            Console.out(JSONValue.object(["findings": .array(findings.map(\.jsonValue)), "repairs": .array(allRepairs.map(JSONValue.string))]).text())
            return
        }
        if findings.isEmpty { Console.out("no problems found") }
        for finding in findings {
            Console.out("problem: \(finding.message)")
            Console.out("  repair: \(finding.repair)")
        }
        for repair in allRepairs { Console.out("fixed: \(repair)") }
    }
}
