import Foundation

/// The store a baseline catalog's check has just inflated and verified (`BaselineArchive.verifyStore`),
/// kept for a short while so that the join which usually follows (a newcomer's first sync)
/// writes those bytes out instead of inflating and hashing the archive a second time.
///
/// One store at a time, for at most `lifetime`, and only up to `maximumBytes`; it is handed
/// over only for the same archive path, file signature (size, times, inode: a replaced or
/// rewritten file differs) and checksum, and only once.
final class RecentlyVerifiedStore: @unchecked Sendable {
    static let shared = RecentlyVerifiedStore()
    static let lifetime: DispatchTimeInterval = .seconds(30)
    static let maximumBytes = 256 << 20

    private let lock = NSLock()
    private var kept: (key: String, store: InflatedStore, generation: Int)?
    private var generation = 0

    static func key(path: String, signature: String, checksum: String) -> String { "\(path)|\(signature)|\(checksum)" }

    /// Keeps `store` (replacing any other) until taken or `lifetime` has passed.
    func keep(_ store: InflatedStore, key: String) {
        guard store.bytes.count <= Self.maximumBytes else { return }
        let current: Int = lock.withLock {
            generation += 1
            kept = (key, store, generation)
            return generation
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.lifetime) { [self] in
            lock.withLock { if kept?.generation == current { kept = nil } }
        }
    }

    /// The store kept under `key`, given up by the cache.
    func take(key: String) -> InflatedStore? {
        lock.withLock {
            guard let kept, kept.key == key else { return nil }
            self.kept = nil
            return kept.store
        }
    }
}
