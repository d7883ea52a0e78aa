import Foundation
import Testing
@testable import Ubiquity
import UbiquityTestSupport

/// Doctor's clock check: a peer that dated a transaction earlier than one it had already seen
/// from another peer has a clock behind; judged by causality, one finding per pair of peers.
@Suite("Doctor finds clocks that disagree")
struct DoctorClockSkewTests {
    func save(_ peer: UbiquityPeer, _ title: String) throws {
        let context = peer.newContext()
        try context.insert("Note").set("title", title)
        try context.save()
        _ = try peer.sync()
    }

    func skewFindings(_ peer: UbiquityPeer) throws -> [DoctorFinding] {
        try Doctor.examine(peer).filter { $0.kind == .clockSkew }
    }

    @Test("a peer an hour behind is named once, with the transactions that show it")
    func aClockBehindIsFound() throws {
        let cloud = try TestCloud()
        let behind = try cloud.peer("behind", clock: WallClock.system.skewed(by: -3_600)), right = try cloud.peer("right")
        for index in 0..<3 { try save(right, "right \(index)") }
        _ = try behind.sync()
        for index in 0..<3 { try save(behind, "behind \(index)") }
        _ = try right.sync()
        let findings = try skewFindings(right)
        #expect(findings.count == 1, "\(findings.map(\.message))")
        let message = try #require(findings.first?.message)
        #expect(message.contains("\(behind.peerID) saw transaction 3 of \(right.peerID) yet dated its own transaction 1 earlier"), "\(message)")
        #expect(message.contains("disagree by at least 3600 s") || message.contains("disagree by at least 3599 s"), "\(message)")
    }

    @Test("clocks that agree, and skew below the tolerance, give no finding")
    func agreeingClocksAreQuiet() throws {
        let cloud = try TestCloud()
        let a = try cloud.peer("a"), b = try cloud.peer("b", clock: WallClock.system.skewed(by: -Doctor.skewTolerance / 2))
        for round in 0..<3 {
            try save(a, "a \(round)")
            _ = try b.sync()
            try save(b, "b \(round)")
            _ = try a.sync()
        }
        #expect(try skewFindings(a).isEmpty)
        #expect(try skewFindings(b).isEmpty)
    }

    @Test("a clock ahead is found from the other side: the peer that saw it dated its own earlier")
    func aClockAheadIsFound() throws {
        let cloud = try TestCloud()
        let ahead = try cloud.peer("ahead", clock: WallClock.system.skewed(by: 600)), right = try cloud.peer("right")
        try save(ahead, "ahead")
        _ = try right.sync()
        try save(right, "right")
        let findings = try skewFindings(ahead)
        #expect(findings.count == 1 && findings[0].message.contains("\(right.peerID) saw transaction 1 of \(ahead.peerID)"), "\(findings.map(\.message))")
    }
}
