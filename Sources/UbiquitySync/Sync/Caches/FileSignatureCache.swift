import Synchronization

/// Values read from files, by path and the file signature they were read under: a lookup
/// answers only for the same signature, so a rewritten or replaced file is read again. Emptied
/// whole once it holds `capacity` paths.
final class FileSignatureCache<Value: Sendable>: Sendable {
    private let entries = Mutex<[String: (signature: String, value: Value)]>([:])
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func lookup(_ path: String, signature: String) -> Value? {
        entries.withLock { entries in
            guard let entry = entries[path], entry.signature == signature else { return nil }
            return entry.value
        }
    }

    func store(_ path: String, signature: String, _ value: Value) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[path] = (signature, value)
        }
    }
}
