import Foundation
import Logging

/// Apple's `com.apple.coredata.ubiquity.logLevel`: 0 shows only what is always shown (key
/// state changes and errors), 1 adds warnings, 2 info, 3 verbose.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Always shown: key state ("Using local storage: 1") as a notice, failures as errors.
    case notice = 0
    case warning = 1, info = 2, verbose = 3

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The swift-log level each Apple level travels as (level 0 is a notice; `error` sends
    /// failures as swift-log errors at the same level).
    var swiftLogLevel: Logger.Level {
        switch self {
        case .notice: return .notice
        case .warning: return .warning
        case .info: return .info
        case .verbose: return .debug
        }
    }
}

/// The library's logger: messages go through swift-log to `ApplePlatformLogHandler`, which
/// writes Apple-shaped lines — `-[Component method](line): Ubiquity:  <peerID>:<StoreName>`
/// and the message — for messages at or below the configured level.
public struct UbiquityLogger: Sendable {
    /// The most verbose level shown; `log` filters by it (swift-log's own level stays open, so
    /// a notice shows at every level).
    public var level: LogLevel
    public var peerID: String
    public var storeName: String
    private var logger: Logger

    /// A logger writing to standard error.
    public init(level: LogLevel = .notice, peerID: String = "", storeName: String = "") {
        self.init(level: level, peerID: peerID, storeName: storeName) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    /// A logger handing each formatted line to `sink`.
    public init(level: LogLevel, peerID: String, storeName: String, sink: @escaping @Sendable (String) -> Void) {
        self.init(level: level, peerID: peerID, storeName: storeName, handler: ApplePlatformLogHandler(sink: sink))
    }

    /// A logger sending its messages to a swift-log `handler` (an app's own backend): each
    /// carries the metadata `component`, `method`, `line`, `peer` and `store`.
    public init(level: LogLevel, peerID: String, storeName: String, handler: some LogHandler) {
        self.level = level
        self.peerID = peerID
        self.storeName = storeName
        logger = Logger(label: "ubiquity") { _ in handler }
        logger.logLevel = .trace
    }

    /// A logger that drops everything.
    public static let silent = UbiquityLogger(level: .notice, peerID: "", storeName: "") { _ in }

    /// Logs `message` when the logger shows `messageLevel`.
    public func log(_ messageLevel: LogLevel, _ component: LogComponent, _ method: String, line: Int = #line, _ message: @autoclosure () -> String) {
        guard messageLevel <= level else { return }
        write(messageLevel.swiftLogLevel, component, method, line: line, message())
    }

    /// A normal event that Apple's framework prints at every level ("Using local storage: 1"):
    /// shown from level 0 up, as a notice, not an error.
    public func notice(_ component: LogComponent, _ method: String, line: Int = #line, _ message: @autoclosure () -> String) {
        write(.notice, component, method, line: line, message())
    }

    /// A failure (a log quarantined, a baseline set aside, an export that failed): shown from
    /// level 0 up, as a swift-log error.
    public func error(_ component: LogComponent, _ method: String, line: Int = #line, _ message: @autoclosure () -> String) {
        write(.error, component, method, line: line, message())
    }

    private func write(_ swiftLevel: Logger.Level, _ component: LogComponent, _ method: String, line: Int, _ message: String) {
        logger.log(level: swiftLevel, "\(message)", metadata: [
            "component": "\(component.rawValue)", "method": "\(method)", "line": "\(line)", "peer": "\(peerID)", "store": "\(storeName)",
        ])
    }
}

/// A swift-log handler that writes Apple's ubiquity log lines.
public struct ApplePlatformLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .debug
    private let sink: @Sendable (String) -> Void

    public init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        func field(_ key: String) -> String { fields[key].map { "\($0)" } ?? "" }
        let line = fields["line"].map { "\($0)" } ?? String(event.line)
        sink("-[\(field("component")) \(field("method"))](\(line)): Ubiquity:  \(field("peer")):\(field("store"))\n\(event.message)")
    }
}
