import Foundation

/// Apple's `com.apple.coredata.ubiquity.logLevel`: 0 errors and key state (always), 1 warnings,
/// 2 info, 3 verbose.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case error = 0, warning = 1, info = 2, verbose = 3

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Writes Apple-shaped lines: `-[Component method](line): Ubiquity:  <peerID>:<StoreName>` and
/// the message, for messages at or below the configured level.
public struct UbiquityLogger: Sendable {
    public var level: LogLevel
    public var peerID: String
    public var storeName: String
    private let sink: @Sendable (String) -> Void

    /// A logger writing to standard error.
    public init(level: LogLevel = .error, peerID: String = "", storeName: String = "") {
        self.init(level: level, peerID: peerID, storeName: storeName) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    public init(level: LogLevel, peerID: String, storeName: String, sink: @escaping @Sendable (String) -> Void) {
        self.level = level
        self.peerID = peerID
        self.storeName = storeName
        self.sink = sink
    }

    /// A logger that drops everything.
    public static let silent = UbiquityLogger(level: .error, peerID: "", storeName: "") { _ in }

    public func log(_ messageLevel: LogLevel, _ component: String, _ method: String, line: Int = #line, _ message: @autoclosure () -> String) {
        guard messageLevel <= level else { return }
        sink("-[\(component) \(method)](\(line)): Ubiquity:  \(peerID):\(storeName)\n\(message())")
    }
}
