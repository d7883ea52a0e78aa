import Foundation
import Logging
import Testing
import UbiquityTestSupport
@testable import Ubiquity
import UbiquityBase

/// What a swift-log backend receives from the library's logger.
private final class RecordedEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [(level: Logger.Level, component: String, message: String)] = []

    func append(_ level: Logger.Level, _ component: String, _ message: String) { lock.withLock { events.append((level, component, message)) } }
    var all: [(level: Logger.Level, component: String, message: String)] { lock.withLock { events } }
}

private struct RecordingHandler: LogHandler {
    let recorded: RecordedEvents
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        recorded.append(event.level, event.metadata?["component"].map { "\($0)" } ?? "", "\(event.message)")
    }
}

@Suite("Log levels are Apple's: level 0 is notices and errors, and components print as Apple's classes")
struct LogLevelTests {
    @Test func eachCallTravelsAtItsSwiftLogLevelAndLevelZeroShowsNoWarning() {
        let recorded = RecordedEvents()
        let logger = UbiquityLogger(level: .notice, peerID: "p", storeName: "S", handler: RecordingHandler(recorded: recorded))
        logger.notice(.setupAssistant, "finishSetupWithRetry:", "Using local storage: 1")
        logger.error(.importer, "quarantine:", "quarantined p/Notes/1.1.cdt: damaged")
        logger.log(.warning, .baseline, "verify", "hidden at level 0")
        #expect(recorded.all.map(\.level) == [.notice, .error])
        #expect(recorded.all.map(\.component) == ["PFUbiquitySetupAssistant", "PFUbiquityTransactionLogImporter"])
    }

    @Test func theLineNamesTheComponentAsApplesFrameworkDoes() {
        let lines = RecordedLines()
        let logger = UbiquityLogger(level: .verbose, peerID: "peer", storeName: "Store") { lines.append($0) }
        logger.log(.verbose, .exporter, "exportLog:", line: 7, "wrote transaction 1")
        #expect(lines.all == ["-[PFUbiquityTransactionLogExporter exportLog:](7): Ubiquity:  peer:Store\nwrote transaction 1"])
    }

    /// A first launch that goes well logs its level-0 lines ("Using local storage: 1", then 0
    /// after the initial import) as notices: nothing at error level.
    @Test func aNormalFirstLaunchLogsNoError() throws {
        let cloud = try TestCloud()
        _ = try Device.create(at: cloud.devicePath("phone"), userName: "phone", identityToken: Device.defaultAccount)
        let recorded = RecordedEvents()
        var configuration = cloud.configuration("phone")
        configuration.logger = UbiquityLogger(level: .notice, peerID: "phone", storeName: "Notes", handler: RecordingHandler(recorded: recorded))
        let coordinator = try UbiquitousStoreCoordinator(configuration: configuration)
        try coordinator.addStore()
        #expect(try coordinator.waitForBackgroundImport())
        let messages = recorded.all.map(\.message)
        #expect(messages.contains("Using local storage: 1") && messages.contains("Using local storage: 0"), "\(messages)")
        #expect(recorded.all.allSatisfy { $0.level == .notice }, "\(recorded.all)")
    }
}

private final class RecordedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
