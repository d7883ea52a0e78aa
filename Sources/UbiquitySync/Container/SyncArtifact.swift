/// A name that a file-sync engine (Syncthing, Dropbox, Nextcloud, rsync…) leaves in a shared
/// folder: its temporary file while a transfer is under way, or the copy it makes when two
/// machines wrote one path before hearing from each other. Such a file is never imported
/// (Docs/ContainerFormat.md: only exact log, receipt, baseline and epoch names are read); `doctor` says what it is.
public enum SyncArtifact: Sendable, Equatable {
    /// A transfer in progress (or left behind by one that never finished).
    case temporary(engine: String)
    /// A conflict copy of the file named `original` in the same folder.
    case conflictCopy(of: String, engine: String)

    /// What `name` is, or `nil` when it is not a file-sync engine's artifact.
    /// Our own temporary files (`*.nosync`) are not artifacts: they never travel.
    public static func classify(_ name: String) -> SyncArtifact? {
        // Every name of every listing that is no log comes here: an ASCII name (all of ours,
        // and every engine's shape) is judged on its bytes, which for ASCII is what the
        // `String` rules below decide; any other name takes them.
        let judged = name.utf8.withContiguousStorageIfAvailable { bytes -> SyncArtifact?? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return .none }
            return .some(ASCIIName(bytes: bytes).artifact())
        }
        if case let .some(.some(artifact)) = judged { return artifact }
        return classifyByCharacters(name)
    }

    /// The rules on `String`s (what `classify` decides for any name; tests hold the byte-wise
    /// form of ASCII names to it).
    package static func classifyByCharacters(_ name: String) -> SyncArtifact? {
        if ContainerLocation.isTemporary(name) { return nil }
        if let copy = conflictCopy(name) { return copy }
        if (name.hasPrefix(".syncthing.") || name.hasPrefix("~syncthing~")) && name.hasSuffix(".tmp") { return .temporary(engine: "Syncthing") }
        if name.hasSuffix(".!sync") { return .temporary(engine: "Resilio Sync") }
        if name.hasPrefix(".unison.") { return .temporary(engine: "Unison") }
        if name.hasPrefix("."), name.contains(".~") { return .temporary(engine: "Nextcloud") }
        for suffix in [".part", ".partial", ".crdownload", ".download"] where name.hasSuffix(suffix) {
            return .temporary(engine: "a download in progress")
        }
        // rsync and most other tools write `.<name>.<random>` beside the file they deliver.
        if name.hasPrefix("."), name.count > 1 { return .temporary(engine: "a file-sync tool") }
        return nil
    }

    private static func conflictCopy(_ name: String) -> SyncArtifact? {
        // Syncthing: `<base>.sync-conflict-<yyyyMMdd>-<HHmmss>-<device>.<ext>` (the extension kept).
        if let marker = name.range(of: ".sync-conflict-") {
            let rest = name[marker.upperBound...]
            let extensionPart = rest.firstIndex(of: ".").map { String(rest[$0...]) } ?? ""
            return .conflictCopy(of: String(name[..<marker.lowerBound]) + extensionPart, engine: "Syncthing")
        }
        // Dropbox, Nextcloud, ownCloud: `<base> (<who>'s conflicted copy <date>).<ext>`, and
        // Dropbox's `<base> (Case Conflict).<ext>`.
        if let open = name.range(of: " ("), let close = name.range(of: ")", range: open.upperBound..<name.endIndex) {
            let inside = name[open.upperBound..<close.lowerBound].lowercased()
            guard inside.contains("conflict") else { return nil }
            // The emulated iCloud daemon's `<base> (iCloud conflict <device> <time>).<ext>`: a
            // conflict version (NSFileVersion) of iCloud, set beside the file as a file.
            let engine = inside.hasPrefix("icloud conflict") ? "iCloud"
                : inside.contains("case conflict") || inside.contains("'s conflicted copy") ? "Dropbox" : "Nextcloud"
            return .conflictCopy(of: String(name[..<open.lowerBound]) + String(name[close.upperBound...]), engine: engine)
        }
        return nil
    }
}
