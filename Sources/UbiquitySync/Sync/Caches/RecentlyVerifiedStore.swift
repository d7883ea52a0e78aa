import Foundation
import Synchronization

/// The store a baseline catalog's check has just inflated and verified (`BaselineArchive.verifyStore`),
/// kept for a short while so that the join which usually follows (a newcomer's first sync)
/// writes those bytes out instead of inflating and hashing the archive a second time.
///
/// One store at a time, for at most `lifetime`, and only up to `maximumBytes`; it is handed
/// over only for the same archive path, file signature (size, times, inode: a replaced or
/// rewritten file differs) and checksum, and only once.
final class RecentlyVerifiedStore: Sendable {
    static let lifetime: DispatchTimeInterval = .seconds(30)
    static let maximumBytes = 256 << 20

    private struct State {
        var kept: (key: String, store: InflatedStore, generation: Int)?
        var generation = 0
    }

    private let state = Mutex(State())

    static func key(path: String, signature: String, checksum: String) -> String { "\(path)|\(signature)|\(checksum)" }

    /// Keeps `store` (replacing any other) until taken or `lifetime` has passed.
    func keep(_ store: InflatedStore, key: String) {
        guard store.bytes.count <= Self.maximumBytes else { return }
        let current: Int = state.withLock { state in
            state.generation += 1
            state.kept = (key, store, state.generation)
            return state.generation
        }
        // Weak: a peer closed meanwhile takes its cache, and the store, with it.
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.lifetime) { [weak self] in
            self?.state.withLock { state in if state.kept?.generation == current { state.kept = nil } }
        }
    }

    /// The store kept under `key`, given up by the cache.
    func take(key: String) -> InflatedStore? {
        state.withLock { state in
            guard let kept = state.kept, kept.key == key else { return nil }
            state.kept = nil
            return kept.store
        }
    }
}
