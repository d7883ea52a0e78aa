import Foundation
import Synchronization
import Testing
@testable import Ubiquity

/// How events reach an app's handlers: in one order, with no lock held while a handler runs.
@Suite("Event delivery")
struct EventHubTests {
    @Test func aHandlerMayPostAndSubscribeWhileItRuns() {
        let hub = EventHub<Int>()
        let seen = Mutex<[String]>([])
        hub.observe { event in
            seen.withLock { $0.append("first \(event)") }
            if event == 1 {
                // Under the hub's lock, either of these would have waited for itself forever.
                hub.observe { later in seen.withLock { $0.append("late \(later)") } }
                hub.post(2)
                // Queued: the handler sees it after it returns, in order.
                #expect(!seen.withLock { $0.contains("first 2") })
            }
        }
        hub.post(1)
        #expect(seen.withLock { $0 } == ["first 1", "first 2", "late 2"])
    }

    @Test func postsFromManyThreadsReachEveryHandlerInOneOrderBeforeTheyReturn() async {
        let hub = EventHub<Int>()
        let first = Mutex<[Int]>([]), second = Mutex<[Int]>([])
        hub.observe { event in first.withLock { $0.append(event) } }
        hub.observe { event in
            // A slow handler keeps one thread delivering while the others post.
            if event % 50 == 0 { usleep(200) }
            second.withLock { $0.append(event) }
        }
        let unseenOnReturn = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<250 {
                let event = thread * 1000 + index
                hub.post(event)
                if !second.withLock({ $0.contains(event) }) { unseenOnReturn.withLock { $0 += 1 } }
            }
        }
        #expect(first.withLock { $0 } == second.withLock { $0 })
        #expect(first.withLock { $0.count } == 1000)
        #expect(unseenOnReturn.withLock { $0 } == 0, "a post returned before its handlers saw the event")
        for thread in 0..<4 {
            let own = first.withLock { $0 }.filter { $0 / 1000 == thread }
            #expect(own == own.sorted(), "thread \(thread)'s events arrived out of their order")
        }
    }
}
