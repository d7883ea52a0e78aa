import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// The README's library snippet, run as written (its paths made temporary), returning what it
/// printed. The two hooks are the test's, not the README's: `opened` may hold the initial
/// import's handover back; `beforeSave` is the app busy elsewhere for a while.
private func readmeSnippet(cloud: String, device: String, opened: (UbiquitousStoreCoordinator) -> Void = { _ in },
                           beforeSave: (UbiquitousStoreCoordinator, ObjectContext) throws -> Void = { _, _ in }) throws -> [String] {
    let printed = EventLog<String>()
    @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

    // ---- README.md, "Using the library" (keep in step) ----
    _ = try Device.openOrCreate(at: device, userName: "ann")           // made on the first launch, loaded on the next
    let coordinator = try UbiquitousStoreCoordinator(configuration: PeerConfiguration(
        cloud: cloud, device: device, model: .notes, contentName: "Notes"))
    opened(coordinator)
    coordinator.observe { event in print(event) }   // first launch: did-change → fallback, …, will/did-change(4) → account
    try coordinator.addStore()                       // returns at once; the initial import runs in the background
    print(coordinator.storeKind!, coordinator.storeReason)

    let context = try coordinator.newContext()       // follows the store transitions: no need to make it again
    context.mergePolicy = .propertyObjectTrump       // Core Data's policies; the default is .error
    let home = try GlobalID(entity: "Folder", key: "home")
    if try context.object(home) == nil { try context.insert("Folder", key: "home").set("name", "Home") }
    let note = try context.insert("Note")
    try note.set("title", "Groceries")               // a value of the wrong type throws here
    try note.setTarget(home, of: "folder")           // a target that does not exist is refused at save
    try beforeSave(coordinator, context)
    try context.save()                               // one local transaction; its log is exported at once

    try coordinator.waitForBackgroundImport()        // the initial import done: the app is on the account store
    let summary = try coordinator.sync()             // export, import, roll baselines, collect garbage
    print(summary.line)
    print(try coordinator.count(of: "Note", where: "folder == 'Folder/home'"))
    coordinator.close()                              // waits for background work; releases the device
    // ---- end of the snippet ----
    return printed.events
}

/// The README's live-import snippet, run as written (its paths made temporary), returning what it printed.
private func readmeLiveSnippet(cloud: String, root: String) throws -> [String] {
    let printed = EventLog<String>()
    @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

    // ---- README.md, "Live import" (keep in step) ----
    // Live import: the mac hears of the phone's save by itself.
    _ = try Device.openOrCreate(at: root + "/phone", userName: "ann")
    _ = try Device.openOrCreate(at: root + "/mac", userName: "ann")
    let phone = try UbiquitousStoreCoordinator(configuration: PeerConfiguration(
        cloud: cloud, device: root + "/phone", model: .notes, contentName: "Notes"))
    let mac = try UbiquitousStoreCoordinator(configuration: PeerConfiguration(
        cloud: cloud, device: root + "/mac", model: .notes, contentName: "Notes"))
    try phone.addStore()
    try mac.addStore()
    try phone.waitForBackgroundImport()                        // a first launch builds the account stores
    try mac.waitForBackgroundImport()
    let notes = try mac.observeResults(FetchRequest(entity: "Note"))   // a fetch the mac keeps current
    let arrived = DispatchSemaphore(value: 0)
    notes.observe { change in if change.cause == .imported { arrived.signal() } }
    let draft = try phone.newContext()
    try draft.insert("Note").set("title", "From the phone")
    try draft.save()                                           // exported at once; no sync() anywhere
    print(arrived.wait(timeout: .now() + 10) == .success ? "imported by itself" : "not imported")
    print(notes.results.count)
    phone.close()                                              // final: later calls throw StoreError.closed
    mac.close()
    // ---- end of the live snippet ----
    return printed.events
}

/// The lines of the README's Swift block that starts with `firstLine`, blank lines left out.
private func readmeBlock(startingWith firstLine: String) throws -> [String] {
    let tests = URL(fileURLWithPath: #filePath)
    let root = tests.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let start = try #require(readme.range(of: "```swift\n" + firstLine))
    let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
    return readme[readme.index(start.lowerBound, offsetBy: "```swift\n".count)..<end.lowerBound].split(separator: "\n")
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

@Suite("The README's live-import snippet")
struct ReadmeLiveSnippetTests {
    @Test func theSnippetRunHereIsTheReadmes() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let from = try #require(source.range(of: "// ---- README.md, \"Live import\" (keep in step) ----\n"))
        let to = try #require(source.range(of: "// ---- end of the live snippet ----"))
        let run = source[from.upperBound..<to.lowerBound].split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .map { $0.replacingOccurrences(of: "root + \"/", with: "\"/tmp/").replacingOccurrences(of: "cloud: cloud,", with: "cloud: \"/tmp/cloud\",") }
        func words(_ lines: [String]) -> [String] { lines.map { $0.split(separator: " ").joined(separator: " ") } }
        #expect(words(run) == words(try readmeBlock(startingWith: "// Live import")))
    }

    @Test func theMacImportsThePhonesSaveByItselfOnEveryLaunch() throws {
        let root = NSTemporaryDirectory() + "ubiquity-readme-live-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/cloud", withIntermediateDirectories: true)
        #expect(try readmeLiveSnippet(cloud: root + "/cloud", root: root) == ["imported by itself", "1"])
        #expect(try readmeLiveSnippet(cloud: root + "/cloud", root: root) == ["imported by itself", "2"])
    }
}

@Suite("The README's library snippet, under any timing and on every launch")
struct ReadmeSnippetTests {
    /// The snippet above is the README's, line for line (its paths and the test's hooks aside):
    /// the README cannot drift from what this test runs.
    @Test func theSnippetRunHereIsTheReadmes() throws {
        let tests = URL(fileURLWithPath: #filePath)
        let root = tests.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```swift\nimport Ubiquity\n\n"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let documented = readme[start.upperBound..<end.lowerBound].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }

        let source = try String(contentsOf: tests, encoding: .utf8)
        let from = try #require(source.range(of: "// ---- README.md, \"Using the library\" (keep in step) ----\n"))
        let to = try #require(source.range(of: "// ---- end of the snippet ----"))
        let hooks: Set<String> = ["opened(coordinator)", "try beforeSave(coordinator, context)"]
        let run = source[from.upperBound..<to.lowerBound].split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !hooks.contains($0) }
            .map { $0.replacingOccurrences(of: "at: device,", with: "at: \"/tmp/iphone\",")
                .replacingOccurrences(of: "cloud: cloud, device: device,", with: "cloud: \"/tmp/cloud\", device: \"/tmp/iphone\",") }
        // Comments are aligned in columns: spacing is not compared.
        func words(_ lines: [String]) -> [String] { lines.map { $0.split(separator: " ").joined(separator: " ") } }
        #expect(words(run) == words(documented.filter { !$0.isEmpty }))
    }

    @Test func itWorksWithADelayBeforeSaveAndAgainOnTheSecondLaunch() throws {
        let root = NSTemporaryDirectory() + "ubiquity-readme-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cloud = root + "/cloud", device = root + "/iphone"
        try FileManager.default.createDirectory(atPath: cloud, withIntermediateDirectories: true)

        // First launch: the context is made on the fallback store; the app is busy until the
        // initial import has handed the fallback over (the store it was made on is gone), then saves.
        let gate = DispatchSemaphore(value: 0)
        let first = try readmeSnippet(cloud: cloud, device: device, opened: { $0.beforeHandover = { gate.wait() } }, beforeSave: { coordinator, context throws in
            #expect(coordinator.storeKind == .fallback)
            let fallback = context.store
            gate.signal()
            #expect(try coordinator.waitForBackgroundImport(timeout: 60))
            #expect(coordinator.storeKind == .account)
            #expect(fallback.isRetired && coordinator.peer?.store !== fallback)
        })
        #expect(first.first == "did-change store added → fallback store", "\(first)")
        #expect(first.contains("will-change initialImportCompleted(4)"), "\(first)")
        #expect(first.contains("did-change initialImportCompleted(4) → account store"), "\(first)")
        #expect(first.last == "1", "one note in the home folder: \(first)")

        // Second launch on the same folders: the device is loaded, the account store opened directly.
        let second = try readmeSnippet(cloud: cloud, device: device)
        #expect(second.first == "did-change store added → account store", "\(second)")
        #expect(!second.contains { $0.contains("fallback") }, "\(second)")
        #expect(second.last == "2", "the first launch's note and this one: \(second)")

        // What was saved reached the cloud: another device sees both notes and the one folder.
        _ = try Device.create(at: root + "/mac", userName: "ann")
        let mac = try UbiquityPeer(configuration: PeerConfiguration(cloud: cloud, device: root + "/mac", model: .notes, contentName: "Notes"))
        defer { mac.close() }
        _ = try mac.sync()
        #expect(try mac.store.count(FetchRequest(entity: "Note")) == 2)
        #expect(try mac.store.count(FetchRequest(entity: "Folder")) == 1)
    }
}
