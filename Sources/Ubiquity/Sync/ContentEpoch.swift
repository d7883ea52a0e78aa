import Foundation

/// The content epoch (`.content/<ContentName>.plist`): written when the content is created and
/// again when it is removed, so running peers notice a removal.
///
/// A removal's epoch also carries a *floor*: the knowledge vector of everything the content
/// held when it was removed. Peers that start over take the floor as their knowledge, so logs
/// of the removed content that a file-sync tool delivers late (its deletions often travel after
/// the new epoch) are already covered and never applied, and transaction numbers are never
/// reused. Creation epochs carry no floor and never count as a removal: two machines that
/// create the content at once merely leave a conflict copy.
///
/// File-sync tools may keep a concurrent writer's epoch as a conflict copy
/// (`<ContentName>.sync-conflict-….plist`); its removal still counts, so every copy is read.
enum ContentEpoch {
    /// One epoch file's content.
    struct Record: Equatable {
        let epoch: String
        /// The removed content's knowledge; `nil` for a creation epoch.
        let floor: KnowledgeVector?
        /// The file it was read from (its name in `.content/`).
        let file: String
    }

    /// What the epoch files say together.
    struct State: Equatable {
        /// The main file's epoch, if readable.
        var current: String?
        /// Every removal seen (epoch → floor), from the main file and its conflict copies.
        var removals: [String: KnowledgeVector] = [:]
        /// Epoch files that cannot be read (name, reason); ignored until they become readable.
        var unreadable: [(file: String, reason: String)] = []

        /// The join of every removal's floor.
        var floor: KnowledgeVector {
            removals.values.reduce(into: KnowledgeVector()) { $0.formMaximum($1) }
        }

        static func == (lhs: State, rhs: State) -> Bool {
            lhs.current == rhs.current && lhs.removals == rhs.removals && lhs.unreadable.map(\.file) == rhs.unreadable.map(\.file)
        }
    }

    /// Why an epoch file cannot be used.
    struct Unreadable: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    static func directory(_ location: ContainerLocation) -> String {
        (location.contentEpochPath as NSString).deletingLastPathComponent
    }

    /// The names in `.content/` that are this content's epoch or a conflict copy of it.
    static func files(_ location: ContainerLocation) -> [String] {
        let main = location.contentName + ".plist"
        return DirectoryEntry.list(directory(location)).filter { entry in
            guard entry.isRegularFile else { return false }
            if entry.name == main { return true }
            if case let .conflictCopy(original, _)? = SyncArtifact.classify(entry.name) { return original == main }
            return false
        }.map(\.name)
    }

    static func state(_ location: ContainerLocation) -> State {
        var state = State()
        let main = location.contentName + ".plist"
        for file in files(location) {
            do {
                let record = try read(directory(location) + "/" + file, name: file)
                if file == main { state.current = record.epoch }
                if let floor = record.floor { state.removals[record.epoch] = floor }
            } catch {
                state.unreadable.append((file, "\(error)"))
            }
        }
        return state
    }

    static func read(_ path: String, name: String) throws -> Record {
        let plist: PlistValue
        do { plist = try PlistSeam.decode(try AtomicFile.read(path, limit: 1 << 20)) } catch {
            throw Unreadable(reason: "not a readable property list: \(error)")
        }
        guard plist["format"]?.int64Value == 1, let epoch = plist["epoch"]?.stringValue, UUID(uuidString: epoch) != nil else {
            throw Unreadable(reason: "missing or unknown format, or no epoch UUID")
        }
        var floor: KnowledgeVector?
        if plist["removed"]?.boolValue == true {
            guard let text = plist["kvStr"]?.stringValue, let vector = KnowledgeVector(string: text),
                  vector.entries.keys.allSatisfy(CloudNames.isValidPeerID) else {
                throw Unreadable(reason: "a removal without a valid kvStr")
            }
            floor = vector
        }
        return Record(epoch: epoch, floor: floor, file: name)
    }

    /// Writes a creation epoch and returns it.
    static func writeCreation(_ location: ContainerLocation) throws -> String {
        try write(location, fields: [:])
    }

    /// Writes a removal epoch with its floor and returns it. Conflict copies of older epochs are
    /// deleted: this floor covers theirs, since the writer honoured every removal it saw.
    static func writeRemoval(_ location: ContainerLocation, floor: KnowledgeVector, by peerID: String) throws -> String {
        let epoch = try write(location, fields: ["removed": .boolean(true), "kvStr": .string(floor.description), "removedBy": .string(peerID)])
        for file in files(location) where file != location.contentName + ".plist" {
            unlink(directory(location) + "/" + file)
        }
        return epoch
    }

    private static func write(_ location: ContainerLocation, fields: [String: PlistValue]) throws -> String {
        let epoch = UUID().uuidString
        var value = fields
        value["format"] = .integer(1)
        value["epoch"] = .string(epoch)
        value["date"] = .real(Date().timeIntervalSince1970)
        do {
            try AtomicFile.makeDirectory(directory(location))
            try AtomicFile.write(PlistSeam.encode(.dictionary(value), format: .xml), to: location.contentEpochPath)
        } catch {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
        return epoch
    }
}
