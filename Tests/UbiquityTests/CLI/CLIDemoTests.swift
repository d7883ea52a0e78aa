import Foundation
import Testing

@Suite("CLI demo")
struct CLIDemoTests {
    @Test func demoConvergesAndCleansUp() throws {
        let sandbox = try CLISandbox()
        let result = try sandbox.run(["demo"], device: nil, timeout: 60)
        #expect(result.succeeded, "\(result)")
        #expect(result.stdout.contains("Verdict: converged — 3 peers, 3 objects, 1 conflict(s) recorded, nothing lost"), "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        // The temporary container is removed unless --keep.
        let working = result.stdoutLines.first { $0.hasPrefix("Working in ") }.map { String($0.dropFirst("Working in ".count)) }
        let folder = try #require(working)
        #expect(!FileManager.default.fileExists(atPath: folder), "the demo removed \(folder)")
    }
}
