// The Swift snippets of the DocC articles (Sources/Ubiquity/Ubiquity.docc) and of Docs/*.md, copied
// verbatim (a page's top-level lines may sit indented in a function):
// here they are compiled, and ArticleSnippetTests checks that every snippet is still found here,
// line for line, and runs Getting started.
import CoreMetrics
import Foundation
import Logging
import Ubiquity
import UbiquitySimulation

/// Opens the notes of this device, saves one note and syncs.
func startNotes(cloud: String, device: String) throws -> UbiquitousStoreCoordinator {
    // The device is made once; later launches find it.
    if (try? Device.load(from: device)) == nil {
        _ = try Device.create(at: device, userName: "ann")   // signed in to account "default"
    }
    let coordinator = try UbiquitousStoreCoordinator(configuration: PeerConfiguration(
        cloud: cloud, device: device, model: .notes, contentName: "Notes"))
    coordinator.observe { event in print(event) }           // subscribe before addStore()
    let choice = try coordinator.addStore()                 // returns at once
    print(choice.kind, choice.reason)

    // On a first launch the store is a fallback while the initial import runs in the
    // background. A short program waits for the account store; an app saves on the
    // fallback at once, and its contexts follow the hand-over by themselves.
    _ = try coordinator.waitForBackgroundImport()

    let context = try coordinator.newContext()
    let note = try context.insert("Note")
    note["title"] = .string("Groceries")
    try context.save()                                      // one transaction; its log is exported at once

    let summary = try coordinator.sync()                    // a round now; an app leaves it to live import
    print(summary.line)
    return coordinator                                      // close() it before the program ends
}

/// Saves a note on `phone` and waits until `mac`'s fetched results hold it; `mac` never syncs.
func showLiveImport(phone: UbiquitousStoreCoordinator, mac: UbiquitousStoreCoordinator) throws -> Bool {
    let notes = try mac.observeResults(FetchRequest(entity: "Note"))
    defer { notes.cancel() }
    let arrived = DispatchSemaphore(value: 0)
    notes.observe { change in if change.cause == .imported { arrived.signal() } }
    let context = try phone.newContext()
    try context.insert("Note").set("title", "From the phone")
    try context.save()                                      // exported at once
    return arrived.wait(timeout: .now() + 10) == .success   // imported by the mac on its own
}

func printEvents(of coordinator: UbiquitousStoreCoordinator) -> Task<Void, Never> {
    let events = coordinator.eventStream()          // made before addStore(): nothing is missed
    return Task {
        for await event in events { print(event) }   // ends when the coordinator closes
    }
}

func showProgress(of coordinator: UbiquitousStoreCoordinator) -> ActivityObservation {
    coordinator.observeActivity { activity in              // on a queue of its own, in order
        switch activity.phase {
        case .started: print(activity.kind, "started")
        case let .progressed(progress): print(activity.kind, Int(progress.fraction * 100), "%")
        case let .ended(.failed(error), _): print(activity.kind, "failed:", error)   // the error thrown, typed
        case .ended: print(activity.kind, "ended")
        }
    }                                                        // keep it: cancel() stops the reports
}

func watchPinnedNotes(of coordinator: UbiquitousStoreCoordinator) throws -> FetchedResultsObserver {
    let request = try coordinator.request("Note", where: "pinned == true", sortedBy: [FetchSortDescriptor("title")])
    let pinned = try coordinator.observeResults(request)
    pinned.observe { change in
        for insertion in change.inserted { print("new at", insertion.index, insertion.id) }
        for move in change.moved { print("moved", move.id, "from", move.from, "to", move.to) }
    }
    return pinned   // keep it: releasing or cancel() stops it
}

/// Docs/Scenarios.md, "Writing a scenario": compiled, not run (it names a made-up ubiq path).
func runScenarioFromSwift() throws {
    let scenario = try ScenarioLibrary.load("account-switch")      // or ScenarioParser.load(path:)
    var options = ScenarioOptions()
    options.seed = 7
    options.deviceExecutable = "/path/to/ubiq"                      // each device its own process; omit for in-process
    let result = try ScenarioRunner.run(scenario, options: options)
    print(result.text)                                              // result.passed, result.violations, result.expectations, result.jsonValue
    try TimelineReport.html(result).write(toFile: "report.html", atomically: true, encoding: .utf8)
}

/// Docs/Library.md, "Metrics": compiled, not run.
func configureMetrics(factory: some MetricsFactory) -> PeerConfiguration {
    var configuration = PeerConfiguration(cloud: "/tmp/cloud", device: "/tmp/iphone", model: .notes, contentName: "Notes")
    configuration.metricsFactory = factory                       // this peer's own backend
    configuration.metricsFactory = nil                           // MetricsSystem.factory, as the peer opens
    return configuration
}

/// Docs/Library.md, "Logging": compiled, not run.
func configureLogging(handler: some LogHandler) -> PeerConfiguration {
    var configuration = PeerConfiguration(cloud: "/tmp/cloud", device: "/tmp/iphone", model: .notes, contentName: "Notes")
    configuration.logger = UbiquityLogger(level: .info)          // Apple-shaped lines on standard error
    configuration.logger = .silent                               // nothing at any level
    configuration.logger = UbiquityLogger(level: .warning, peerID: "", storeName: "",
                                          handler: handler)      // any swift-log backend
    return configuration
}

/// Docs/Library.md, "A model of several versions": run by ModelVersionWalkTests.
func configureModelVersions(_ configuration: inout PeerConfiguration, modelPath: String) throws {
    let bundle = try XcodeModelBundle(path: modelPath)   // the app's MyApp.xcdatamodeld
    configuration.model = try bundle.model()
    configuration.modelVersions = try bundle.modelVersions()
}

/// Docs/Library.md, "Fetch request templates".
func fetchNotesTitled(model: ObjectModel, store: PersistentStore) throws -> [ObjectSnapshot] {
    let request = try model.fetchRequest(fromTemplate: "NotesTitled",
                                         substitutionVariables: ["TITLE": .value(.string("Groceries"))])
    let snapshots = try store.fetch(request)
    return snapshots
}

/// Docs/Library.md, "Errors": run by AdviceWordingTests.
func adviceOfAnError() -> (message: String, remedies: [Remedy], toolMessage: String) {
    let error = DeviceError.otherCloud(device: "/d", remembered: "/old", given: "/new")
    let message = error.description          // "… on purpose, call Device.moveCloud(to: "/new", at: "/d")"
    let remedies = error.advice.remedies     // [.moveCloud(to: "/new", device: "/d")]
    let toolMessage = error.advice.worded { _ in "run 'mytool move-cloud /new'" }   // "… on purpose, run 'mytool move-cloud /new'"
    return (message, remedies, toolMessage)
}
