import Foundation
import Testing
@testable import UbiquityBase

/// Paths cut by bytes give what Foundation (`NSString`) and `Character`s give: `PlainPath` for
/// a path's folder and last component (atomic writes, the daemon), `DirectoryEntry`'s name of
/// a path. Only plain ASCII paths take the byte route; every other path the old one.
@Suite("Plain paths")
struct PlainPathTests {
    /// (No component starts with a combining mark: Foundation's path code traps on one after a `/`.)
    static let pieces = ["a", "bc", ".", "..", " ", "é", "e\u{301}", "Mobile Documents", "0000000003-6B29FC40.1.cdt", "peer1~4033", ".x.cdt.nosync"]

    @Test func aFolderAndANameAreWhatFoundationGives() {
        for path in ["/a/b/c", "a/b", "/a/./b", "/a/../b", "/Mobile Documents/é/ç.cdt", "/x/y/ ", "/x/.y.cdt.nosync", "/a"] {
            #expect(PlainPath.folder(of: path) == (path as NSString).deletingLastPathComponent, "\(path)")
            #expect(PlainPath.lastComponent(of: path) == (path as NSString).lastPathComponent, "\(path)")
        }
    }

    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3]))
    func randomPathsGiveWhatFoundationGives(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            let path = (0..<Int.random(in: 1...8, using: &random)).map { _ in "/" + Self.pieces.randomElement(using: &random)! }.joined()
            #expect(PlainPath.folder(of: path) == (path as NSString).deletingLastPathComponent, "seed \(seed): \(path)")
            #expect(PlainPath.lastComponent(of: path) == (path as NSString).lastPathComponent, "seed \(seed): \(path)")
        }
    }

    /// `DirectoryEntry.at` names an entry by what follows the path's last `/` character.
    @Test(arguments: SeededGenerator.testSeeds([1, 2, 3]))
    func anEntrysNameIsWhatFollowsTheLastSlashCharacter(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let pieces = Self.pieces + ["", "/", "\u{0600}", "\u{301}x"]
        for _ in 0..<500 {
            let path = (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined(separator: Bool.random(using: &random) ? "/" : "")
            let expected = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
            #expect(DirectoryEntry.name(of: path) == expected, "seed \(seed): \(path.debugDescription)")
        }
    }
}
