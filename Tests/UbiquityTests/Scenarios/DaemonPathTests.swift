import Foundation
import Testing
import UbiquityBase
@testable import UbiquitySimulation

/// The daemon cuts a plain path's folder off by bytes (`TransferDaemon.folder(of:)`): it gives
/// what `NSString.deletingLastPathComponent` gives. (Other paths go to Foundation itself, which
/// traps on some of them, e.g. doubled or trailing slashes: the daemon never makes those.)
@Suite("Daemon paths")
struct DaemonPathTests {
    @Test func aFolderIsWhatFoundationGives() {
        for path in ["/a/b/c", "a/b", "/a/./b", "/a/../b", "/Mobile Documents/é/ç.cdt", "/x/y/ ", "/x/.y.cdt.nosync"] {
            #expect(TransferDaemon.folder(of: path) == (path as NSString).deletingLastPathComponent, "\(path)")
        }
    }

    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3]))
    func randomPathsGiveWhatFoundationGives(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let pieces = ["a", "bc", ".", "..", " ", "é", "Mobile Documents", "0000000003-6B29FC40.1.cdt", "peer1~4033"]
        for _ in 0..<500 {
            let path = (0..<Int.random(in: 2...8, using: &random)).map { _ in "/" + pieces.randomElement(using: &random)! }.joined()
            #expect(TransferDaemon.folder(of: path) == (path as NSString).deletingLastPathComponent, "seed \(seed): \(path)")
        }
    }
}
