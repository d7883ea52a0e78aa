import Foundation
import UbiquityBase
import ZIPFoundation

/// A folder written as one zip archive and unpacked again: what a bug report is carried in.
/// Writing goes through `ZipWriter` (the baselines' writer); reading through ZIPFoundation.
package enum FolderArchive {
    /// The entry that holds every file's modification time to the nanosecond (zip keeps
    /// local times in 2-second steps), restored on unpacking and never unpacked itself.
    package static let fileTimesName = ".file-times.json"

    /// Writes every regular file below `folder` into a new archive at `path`, named by its path
    /// relative to `folder`, in name order, with their modification times; links and other
    /// kinds of files are left out. Returns the names written.
    @discardableResult
    package static func write(folder: String, to path: String) throws -> [String] {
        var writer = try ZipWriter(path: path, level: BlockDeflater.defaultLevel)
        var names: [String] = []
        do {
            var times: [String: FileTime] = [:]
            for name in regularFiles(below: folder) {
                times[name] = FileTime.modification(of: folder + "/" + name)
                try writer.add(name: name, contentsOf: folder + "/" + name)
                names.append(name)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            try writer.add(name: fileTimesName, bytes: Array(try encoder.encode(times)))
            try writer.finish()
        } catch {
            writer.abandon()
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        return names
    }

    /// The regular files below `folder`, as paths relative to it, sorted; links are not followed.
    package static func regularFiles(below folder: String) -> [String] {
        var found: [String] = []
        func walk(_ relative: String) {
            let path = relative.isEmpty ? folder : folder + "/" + relative
            for entry in DirectoryEntry.list(path) {
                let name = relative.isEmpty ? entry.name : relative + "/" + entry.name
                if entry.isDirectory { walk(name) } else if entry.isRegularFile { found.append(name) }
            }
        }
        walk("")
        return found.sorted()
    }

    /// Unpacks the archive at `path` into `directory` (made if missing). An entry whose name
    /// leaves the folder (`..`, an absolute path) or is a link is refused, so an archive from
    /// anywhere writes only below `directory`. Each file gets the modification time it had
    /// when it was archived (an archive without them leaves the unpacking's times).
    package static func extract(_ path: String, into directory: String) throws(FolderArchiveError) {
        let archive: Archive
        do { archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read) } catch { throw .notAnArchive(path) }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .unpack(path, "cannot make \(directory): \(error.localizedDescription)")
        }
        var times: [String: FileTime] = [:]
        for entry in archive {
            if entry.path == fileTimesName {
                var bytes = Data()
                _ = try? archive.extract(entry) { bytes.append($0) }
                times = (try? JSONDecoder().decode([String: FileTime].self, from: bytes)) ?? [:]
                continue
            }
            let components = entry.path.split(separator: "/", omittingEmptySubsequences: false)
            guard !entry.path.hasPrefix("/"), !components.contains(".."), entry.type != .symlink else {
                throw .unsafeEntry(path, entry.path)
            }
            guard entry.type == .file else { continue }
            do {
                _ = try archive.extract(entry, to: URL(fileURLWithPath: directory + "/" + entry.path))
            } catch {
                throw .unpack(path, "\(entry.path): \(error)")
            }
        }
        for (name, time) in times where !name.hasPrefix("/") && !name.split(separator: "/").contains("..") {
            try? time.set(on: directory + "/" + name)
        }
    }
}

/// Why an archive could not be unpacked.
public enum FolderArchiveError: Error, Equatable, CustomStringConvertible {
    case notAnArchive(String)
    case unsafeEntry(String, String)
    case unpack(String, String)

    public var description: String {
        switch self {
        case .notAnArchive(let path): return "\(path) is not a zip archive"
        case .unsafeEntry(let path, let entry): return "\(path) holds an entry that leaves its folder: \(entry)"
        case .unpack(let path, let reason): return "cannot unpack \(path): \(reason)"
        }
    }
}
