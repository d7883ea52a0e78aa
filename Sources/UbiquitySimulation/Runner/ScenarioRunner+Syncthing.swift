import Foundation
import Ubiquity

// Devices on Syncthing hosts (`ScenarioOptions.syncthing`): one host per device, each device
// reading and writing its host's copy of the cloud, Syncthing carrying the files between them.
// A device taken offline is its host cut off the network.
extension ScenarioRunner {
    /// Starts one host per device under `<work>/hosts`.
    func startHosts(_ syncthing: SyncthingOptions) throws -> SyncthingHosts {
        guard let script = syncthing.script ?? SyncthingHosts.script(executable: options.deviceExecutable) else {
            throw SyncthingUnavailable("scripts/syncthing-hosts.sh not found: run from the package folder, or set UBIQUITY_SYNCTHING_HOSTS to its path")
        }
        let hosts = try SyncthingHosts.start(count: scenario.devices.count, root: work + "/hosts", script: script, loopback: syncthing.loopback)
        realTime.started = ContinuousClock.now
        timeline.mark(clock.seconds, "cloud", .note, "\(hosts.count) Syncthing hosts up (\(hosts.mode.rawValue))")
        return hosts
    }

    /// Whether `device` is offline: its daemon is, its machine or its Syncthing host is cut off.
    func isOffline(_ device: RunDevice) -> Bool {
        if let host = device.syncthingHost { return hosts?.isCut(host) ?? false }
        return transport.isOffline(device.name, at: clock.seconds)
    }

    /// Lets `device`'s Syncthing host, or its machine on the file-sync transport, carry only
    /// `account` (for the machine: with the accounts of its other devices).
    func carryOnly(_ account: String?, for device: RunDevice) throws {
        transport.carry(account, for: device.name, at: clock.seconds)
        guard let hosts, let host = device.syncthingHost else { return }
        try hosts.carry(only: account, on: host)
    }

    /// The hosts whose copies are the cloud of `account` for its running peers: hosts not cut
    /// off that carry it.
    func hostsCarrying(_ account: String) -> [Int] {
        guard let hosts else { return [] }
        return (1...hosts.count).filter { !hosts.isCut($0) && hosts.carries(account, on: $0) }
    }

    /// `DEVICE offline` and `online` on Syncthing hosts: the device's host is cut off or put back.
    /// A host that does not come back is a violation, not an error: the report says which.
    func setHostConnected(_ connected: Bool, of device: RunDevice) {
        guard let hosts, let host = device.syncthingHost else { return }
        do {
            if connected { try hosts.heal(host) } else { try hosts.cut(host) }
        } catch {
            return violate("host \(host) of \(device.name) could not be \(connected ? "put back" : "cut off"): \(error)")
        }
        timeline.mark(clock.seconds, device.name, connected ? .online : .offline, connected ? "host \(host) back online" : "host \(host) cut off")
    }

    /// `expect uploads-waiting` on a Syncthing host: the device's own logs of its account that
    /// its host holds and no other host carrying the account holds — what Syncthing has yet to
    /// send, as the emulated daemon's upload queue is what it has yet to upload.
    func logsWaitingOnHost(of device: RunDevice) -> Int {
        guard let hosts, let host = device.syncthingHost, let account = device.account else { return 0 }
        let folder = String(location(account: account, root: "").logDirectory(of: device.peerID).dropFirst(1))
        let mine = FileTree.list(hosts.cloud(of: host), under: account).logNumbers[folder] ?? []
        let elsewhere = hostsCarrying(account).filter { $0 != host }.reduce(into: Set<Int64>()) {
            $0.formUnion(FileTree.list(hosts.cloud(of: $1), under: account).logNumbers[folder] ?? [])
        }
        return mine.subtracting(elsewhere).count
    }
}
