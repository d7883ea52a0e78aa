import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// `close()` is final: afterwards nothing of the coordinator works, nothing is written to its
/// device, and a save that raced it either completed (and reaches every peer) or threw.
@Suite("A coordinator's close() is final")
struct CoordinatorCloseTests {
    /// Every file under `directory` with its size and contents' hash.
    func files(_ directory: String) throws -> [String: String] {
        var found: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let relative = enumerator?.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            found[relative] = "\(bytes.count) \(bytes.hashValue)"
        }
        return found
    }

    func isClosedError(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch StoreError.closed {
            return true
        } catch {
            Issue.record("another error than closed: \(error)")
            return false
        }
    }

    @Test func afterCloseEveryCallThrowsAndTheDeviceIsLeftAsItWas() throws {
        let cloud = try TestCloud()
        let phone = try cloud.coordinator("phone", liveImport: .automatic)
        try phone.addStore()
        #expect(try phone.waitForBackgroundImport(timeout: 60))
        let context = try phone.newContext()
        try context.insert("Note", key: "kept").set("title", "saved before close")
        try context.save()
        let observer = try phone.observeResults(FetchRequest(entity: "Note"))
        phone.close()
        let device = try files(cloud.devicePath("phone"))

        #expect(isClosedError { _ = try phone.newContext() })
        #expect(isClosedError { _ = try phone.sync() })
        #expect(isClosedError { _ = try phone.count(of: "Note") })
        #expect(isClosedError { _ = try phone.fetch(FetchRequest(entity: "Note")) })
        #expect(isClosedError { _ = try phone.addStore() })
        #expect(isClosedError { _ = try phone.waitForBackgroundImport() })
        #expect(isClosedError { try phone.removeUbiquitousContent() })
        #expect(isClosedError { _ = try phone.observeResults(FetchRequest(entity: "Note")) })
        #expect(isClosedError { _ = try observer.refresh() })
        #expect(isClosedError { _ = try context.fetch(FetchRequest(entity: "Note")) })
        #expect(isClosedError {
            try context.insert("Note", key: "late").set("title", "after close")
            try context.save()
        })
        // Another device saves: a live import left running would write this device's store.
        let mac = try cloud.peer("mac")
        defer { mac.close() }
        _ = try mac.sync()
        let macContext = mac.newContext()
        try macContext.insert("Note", key: "fromMac").set("title", "after the phone closed")
        try macContext.save()
        Thread.sleep(forTimeInterval: 1.5)
        #expect(try files(cloud.devicePath("phone")) == device, "nothing was written to the device after close()")

        // The device is free, and holds what was saved before the close, and nothing after.
        let reopened = try cloud.peer("phone")
        defer { reopened.close() }
        #expect(try reopened.store.fetch(FetchRequest(entity: "Note")).map(\.id.key) == ["kept"])
    }

    /// Saves on another thread while the coordinator closes: each either returned (and its change
    /// reaches every peer) or threw closed; none is half made, none lost.
    @Test func aSaveRacingCloseCompletesOrThrows() throws {
        let cloud = try TestCloud()
        let phone = try cloud.coordinator("phone", liveImport: .automatic)
        try phone.addStore()
        #expect(try phone.waitForBackgroundImport(timeout: 60))
        let saved = EventLog<String>(), refused = EventLog<String>()
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            // An app's context on its own thread (contexts are not shared between threads).
            guard let context = try? phone.newContext() else {
                Issue.record("no context")
                return
            }
            for index in 0..<400 {
                if index == 20 { started.signal() }
                do {
                    try context.insert("Note", key: "n\(index)").set("title", "racing")
                    try context.save()
                    saved.append("n\(index)")
                } catch StoreError.closed {
                    refused.append("n\(index)")
                    return
                } catch {
                    Issue.record("a save failed otherwise than closed: \(error)")
                    return
                }
            }
        }.start()
        started.wait()
        phone.close()
        done.wait()
        #expect(saved.events.count >= 20)

        // Reopened, the device holds exactly the saves that returned, and sends them all.
        let reopened = try cloud.peer("phone")
        defer { reopened.close() }
        #expect(Set(try reopened.store.fetch(FetchRequest(entity: "Note")).map(\.id.key)) == Set(saved.events))
        _ = try reopened.sync()
        let mac = try cloud.peer("mac")
        defer { mac.close() }
        _ = try mac.sync()
        #expect(Set(try mac.store.fetch(FetchRequest(entity: "Note")).map(\.id.key)) == Set(saved.events))
        #expect(try reopened.dumpText() == mac.dumpText())
    }
}
