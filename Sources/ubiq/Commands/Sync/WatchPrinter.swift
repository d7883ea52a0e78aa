import Foundation
import Ubiquity

/// What `ubiq watch` prints of its coordinator's events and live import, as text or one JSON
/// object per line. Events come from the coordinator's threads, one at a time.
final class WatchPrinter: Sendable {
    private let json: Bool
    private let coordinator: UbiquitousStoreCoordinator
    /// When the last import of the current round committed.
    private let importedAt = Timestamp()

    init(json: Bool, coordinator: UbiquitousStoreCoordinator) {
        self.json = json
        self.coordinator = coordinator
    }

    func print(_ event: CoordinatorEvent) {
        switch event {
        case let .didImport(changes):
            importedAt.set(Date().timeIntervalSince1970)
            // Text shows each object as it commits: imports of the launch catch-up or an initial
            // import belong to no round, and would otherwise go unseen.
            if !json { printObjects(changes) }
        case let .storesDidChange(transition, now: kind) where transition == .accountAdded || transition == .accountRemoved:
            let account = kind == .local ? nil : coordinator.device.identityToken
            if json {
                emit(["event": .string("account"), "account": account.map(JSONValue.string) ?? .null])
            } else {
                Console.out(account.map { "account changed to '\($0)'" } ?? "signed out: the local store does not sync; waiting for a sign-in")
            }
        default:
            break
        }
    }

    func print(_ activity: LiveImportActivity) {
        switch activity {
        case let .watching(root, peerID):
            if json {
                emit(["event": .string("watching"), "root": .string(root), "peerID": .string(peerID)])
            } else {
                Console.out("watching \(root) as \(peerID)")
            }
        case let .synced(summary):
            defer { importedAt.clear() }
            guard !summary.imported.changes.isEmpty || summary.exported > 0 || !summary.imported.quarantined.isEmpty || summary.contentRemoved
                    || summary.adoptedBaseline != nil else { return }
            if json {
                guard case var .object(fields) = summary.jsonValue else { return }
                fields["event"] = .string("sync")
                fields["importedAt"] = importedAt.value.map(JSONValue.double) ?? .null
                emit(fields)
            } else {
                Console.out(summary.line(wordingRemedies: \.command))
            }
        case let .waiting(reason):
            if json { emit(["event": .string("waiting"), "reason": .string(reason)]) } else { Console.out("waiting: \(reason)") }
        case .resumed:
            if json { emit(["event": .string("resumed")]) } else { Console.out("importing again") }
        case .idle:
            break
        }
    }

    func printStopped() {
        if json { emit(["event": .string("stopped")]) } else { Console.out("stopped") }
    }

    private func emit(_ fields: [String: JSONValue]) {
        var fields = fields
        fields["time"] = .double(Date().timeIntervalSince1970)
        Console.out(JSONValue.object(fields).text())
    }

    private func printObjects(_ changes: ObjectChanges) {
        for id in changes.inserted.sorted() { Console.out("  inserted \(id)\(title(id))") }
        for id in changes.updated.sorted() { Console.out("  updated  \(id)\(title(id))") }
        for id in changes.deleted.sorted() { Console.out("  deleted  \(id)") }
    }

    private func title(_ id: GlobalID) -> String {
        guard let snapshot = try? coordinator.peer?.store.snapshot(of: id), let value = snapshot.values["title"] ?? snapshot.values["name"],
              let text = value else { return "" }
        return "  \"\(text)\""
    }
}
