import UbiquitySync

/// How a coordinator imports what other peers write while the app runs (Apple's coordinator
/// imported whenever the daemon brought files; an app never called "sync").
public enum LiveImport: Sendable, Equatable {
    /// Imports as files land, told by inotify, with a safety pass every 30 s. Where inotify
    /// cannot see everything — a network or user-space file system (NFS, SMB, FUSE), a watched
    /// folder deleted, the kernel's queue overflowed or out of watches — it also looks every
    /// second until its watches hold again.
    case automatic
    /// Looks every `seconds` seconds, and never asks inotify.
    case polling(every: Double)
    /// Imports only when the app calls `sync()` (a scenario that drives simulated time, a
    /// short-lived tool).
    case off
}

/// What live import does, for an app or tool that shows it (`ubiq watch` prints it); the
/// imported changes themselves are the coordinator's did-import events.
public enum LiveImportActivity: Sendable {
    /// Watching the account's folders under `root` as `peerID`: at the start, after an account
    /// switch, and when the folders are back after watches were lost.
    case watching(root: String, peerID: String)
    /// A round of sync ran (most import nothing: a file that came was this peer's own, a
    /// temporary one, a receipt).
    case synced(SyncSummary)
    /// A round failed (`reason`: the content was encrypted elsewhere and this device lacks the
    /// key, the cloud cannot be read): live import goes on watching and tries again at the next
    /// change or pass. Told once per reason.
    case waiting(reason: String)
    /// A round succeeded again after `waiting`.
    case resumed
    /// The device is signed out (or its store is the fallback of a first launch): nothing to
    /// watch until the store changes.
    case idle
}
