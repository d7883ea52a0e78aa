import Foundation
import UbiquityBase
#if canImport(Glibc)
import Glibc
#endif

extension ContainerLocation {
    /// A link that stood where a peer's own folder belongs, and the name it was moved to.
    package struct MovedAside: Sendable, Equatable {
        /// The folder's path, where the link or file stood.
        package let path: String
        /// Its new name, beside it: a dot name (no peer reads it) ending in `.nosync` (no
        /// file-sync engine of iCloud's kind carries it).
        package let movedTo: String
    }

    /// Moves aside a symbolic link standing in place of one of `peerID`'s own folders — its
    /// peer folder, its content folder, its model folder — put there by a sync tool, a script
    /// or an attacker: it is never followed, so writing through it would refuse every save for
    /// ever. The link itself is renamed, never what it points to. Only a peer's own folders are
    /// touched: only that peer writes there. A regular file in a folder's place is left: it
    /// stops the writes as an unreachable cloud does, and the sync says so. Returns what moved;
    /// the caller writes the folder's files again (`Exporter.repairSentLogs`).
    package func moveAsideLinks(ofPeer peerID: String, now: Double) -> [MovedAside] {
        var moved: [MovedAside] = []
        for folder in [peerDirectory(of: peerID), contentDirectory(of: peerID), logDirectory(of: peerID)] {
            guard let entry = DirectoryEntry.at(folder) else { return moved }   // missing: made by the next write
            if entry.isDirectory { continue }
            guard entry.isSymbolicLink else { return moved }
            let name = (folder as NSString).lastPathComponent
            let aside = (folder as NSString).deletingLastPathComponent + "/.\(name).moved-aside-\(Self.asideStamp(now)).nosync"
            guard rename(folder, aside) == 0 else { return moved }
            moved.append(MovedAside(path: folder, movedTo: aside))
            return moved   // the folders below it went with it
        }
        return moved
    }

    /// When, as `20261201T225846Z`, and a few random characters so that two moves never meet.
    private static func asideStamp(_ now: Double) -> String {
        var seconds = time_t(now)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let stamp = String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                           parts.tm_hour, parts.tm_min, parts.tm_sec)
        return stamp + "-" + UUID().uuidString.prefix(8).lowercased()
    }
}
