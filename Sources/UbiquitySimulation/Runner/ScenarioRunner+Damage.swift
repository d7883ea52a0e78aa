import Foundation
import Ubiquity

// Damage a scenario does to the cloud on purpose (a bad disk, a broken sync tool).
extension ScenarioRunner {
    /// Flips bytes in the middle of one of `device`'s logs in the cloud (transaction `number`,
    /// or its newest), as a bad disk or a broken tool would; the file keeps its name and size.
    /// Under --syncthing the copy damaged is the one on the device's own host; under the
    /// file-sync transport, the one on its machine.
    func corruptLog(of device: RunDevice, number: Int64?) {
        guard let account = device.account else { return violate("\(device.name) is signed out: it has no logs to damage") }
        let root = hosts == nil ? transport.damageRoot(of: device.name) : device.cloudRoot
        let container = location(account: account, root: root)
        let directory = container.logDirectory(of: device.peerID)
        let logs = ContainerEntry.list(directory, as: .logs, of: container).compactMap { entry in entry.logNumber.map { ($0, entry.name) } }
        guard let target = number.map({ wanted in logs.first { $0.0 == wanted } }) ?? logs.max(by: { $0.0 < $1.0 }) else {
            return violate("\(device.name) has \(number.map { "no log \($0)" } ?? "no log") in the cloud to damage")
        }
        let path = directory + "/" + target.1
        guard var bytes = try? AtomicFile.read(path, limit: 1 << 30), bytes.count > 8 else { return violate("cannot read \(path) to damage it") }
        for index in (bytes.count / 2)..<min(bytes.count, bytes.count / 2 + 4) { bytes[index] ^= 0xFF }
        // Same name, size and time: only the bytes tell.
        guard (try? AtomicFile.write(bytes, to: path, modificationTime: DirectoryEntry.at(path)?.modificationTime)) != nil else {
            return violate("cannot damage \(path)")
        }
        transport.filesChanged(under: root, at: clock.seconds)
        timeline.mark(clock.seconds, "cloud", .fault, "damaged transaction \(target.0) of \(device.name) in the cloud")
    }

    /// Deletes `baseline.zip` of `device`'s account from the cloud (the copy `corrupt-log`
    /// damages), as a broken tool (or a backup from before the first baseline, restored) would.
    /// The transactions only it held live on in the stores that hold them, which roll them out
    /// again: the fault's point. (Not drawn by `fuzz`: a store rebuilt after it loses them.)
    func destroyBaseline(of device: RunDevice) {
        guard let account = device.account else { return violate("\(device.name) is signed out: it has no baseline to destroy") }
        let root = hosts == nil ? transport.damageRoot(of: device.name) : device.cloudRoot
        let path = location(account: account, root: root, hash: device.model.hash).baselinePath
        guard unlink(path) == 0 else { return violate("\(device.name)'s account has no baseline in the cloud to destroy") }
        transport.filesChanged(under: root, at: clock.seconds)
        timeline.mark(clock.seconds, "cloud", .fault, "destroyed the baseline of \(device.name)'s account in the cloud")
    }
}
