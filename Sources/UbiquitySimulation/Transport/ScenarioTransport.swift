/// How files travel between the copies of the cloud the devices of a simulated-time run read
/// and write (`ScenarioOptions.transport`, `--transport`; Docs/Scenarios.md).
public enum ScenarioTransport: String, Sendable, CaseIterable {
    /// Every device keeps a mirror that its emulated iCloud daemon syncs with one shared cloud.
    case icloud
    /// Devices are spread over machines, each with its own copy of the cloud, which a
    /// Syncthing-like engine (`FileSyncEngine`) keeps in step.
    case fileSync = "file-sync"
}
