import Foundation
import UbiquityCore

/// What one import pass found and did.
public struct ImportReport: Sendable, Equatable {
    /// A peer whose next log is missing, or quarantined, while later ones are present.
    public struct MissingPredecessor: Sendable, Equatable {
        public let peerID: String
        /// The transaction number the import waits for.
        public let number: Int64
        /// When the oldest log waiting behind it arrived (its file's modification time).
        public let waitingSince: Date
        /// Why the log is quarantined, when it is present but damaged (`nil`: it is missing).
        public let quarantineReason: String?

        package init(peerID: String, number: Int64, waitingSince: Date, quarantineReason: String? = nil) {
            self.peerID = peerID
            self.number = number
            self.waitingSince = waitingSince
            self.quarantineReason = quarantineReason
        }
    }

    /// A log that waits for an external value's file: not arrived yet (`damage` nil) or damaged.
    public struct ExternalDataWait: Sendable, Equatable {
        public let peerID: String
        public let number: Int64
        public let sha256: String
        /// Why the file in the cloud was refused (it is quarantined); `nil` when there is none.
        public let damage: String?

        /// The line `status` and `doctor` show.
        public var line: String {
            "transaction \(number) of \(peerID) waits for external data \(sha256)" + (damage.map { ": its file is quarantined (\($0))" } ?? ": not arrived yet")
        }
    }

    /// Logs waiting for their external data (their author's later logs wait behind them).
    public var missingExternalData: [ExternalDataWait] = []

    /// Logs applied, in the order applied.
    public var applied: [(peerID: String, number: Int64)] = []
    /// The sizes of the files of the logs applied, summed (as they lie in the container).
    public var appliedBytes: Int64 = 0
    public var changes = ObjectChanges()
    /// Files set aside in this pass, with why.
    public var quarantined: [QuarantinedFile] = []
    public var missingPredecessors: [MissingPredecessor] = []
    /// Logs present but not yet applicable (they wait for a predecessor or another peer's log).
    public var waiting = 0
    /// Names in the container that are neither logs nor receipts (temporary files, conflict
    /// copies of file-sync tools, foreign files); never imported.
    public var ignored: [String] = []
    /// Sealed logs left unread because the content is encrypted and this device holds no key.
    public var locked = 0

    package init() {}

    public static func == (lhs: ImportReport, rhs: ImportReport) -> Bool {
        lhs.applied.map { "\($0.peerID):\($0.number)" } == rhs.applied.map { "\($0.peerID):\($0.number)" }
            && lhs.changes == rhs.changes && lhs.quarantined.map(\.path) == rhs.quarantined.map(\.path)
            && lhs.missingPredecessors == rhs.missingPredecessors && lhs.waiting == rhs.waiting && lhs.ignored == rhs.ignored
    }
}

/// A file an import set aside, and why: it is skipped, unread, until it changes.
public struct QuarantinedFile: Sendable, Equatable {
    /// Relative to the ubiquity root.
    public let path: String
    public let cause: QuarantineCause

    package init(path: String, cause: QuarantineCause) {
        self.path = path
        self.cause = cause
    }

    /// The cause in words, as the store's quarantine record keeps it.
    public var reason: String { cause.description }
}

/// Why an import set a file aside.
public enum QuarantineCause: Error, Sendable, Equatable, CustomStringConvertible {
    /// The log cannot be read, or is not what its name and folder say (author, number, stamp).
    case unreadableLog(LogError)
    /// The log reads, but the store refused to apply it (it breaks the model's rules).
    case refusedByStore(String)
    /// An external data file that does not hold what its name says.
    case damagedExternalData(String)

    public var description: String {
        switch self {
        case let .unreadableLog(error): error.description
        case let .refusedByStore(reason), let .damagedExternalData(reason): reason
        }
    }
}
