import ArgumentParser
import Ubiquity

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
