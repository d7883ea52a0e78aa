import Foundation
import Testing
import Ubiquity
import UbiquityTestSupport

/// An app that waits for the initial import from Swift concurrency tasks blocks the workers those
/// tasks run on; the import must not need one of them.
@Suite("The initial import runs while every concurrency worker waits for it")
struct BackgroundImportStarvationTests {
    @Test func moreWaitingTasksThanCoresStillSeeTheirImportsEnd() async throws {
        // Each task holds one worker of the cooperative pool (as many as the cores) until its
        // own coordinator's initial import has ended.
        let tasks = ProcessInfo.processInfo.activeProcessorCount + 2
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<tasks {
                group.addTask {
                    let cloud = try TestCloud()
                    let seed = try cloud.peer("seed")
                    let context = seed.newContext()
                    try context.insert("Note", key: "n").set("title", "from the seed")
                    try context.save()
                    seed.close()
                    let app = try cloud.coordinator("app\(index)")
                    defer { app.close() }
                    try app.addStore()
                    guard try app.waitForBackgroundImport(timeout: 60) else { return false }
                    return try app.count(of: "Note") == 1
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(finished == tasks, "every task's import ended and brought the seed's note")
    }
}
