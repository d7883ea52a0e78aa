import Foundation
import UbiquityBase

extension DirectoryEntry {
    /// How long before now a file's last change must lie for its signature to name its bytes
    /// from then on: the kernel stamps a change with a clock that may lag the real time by one
    /// tick (at most 10 ms), so a change made after now gets a later change time than one this old.
    package static let settlingTime = 0.1

    /// The file's `signature` when it can key a cache of what the file holds: its last change
    /// (`changeTime`) lies over `settlingTime` in the past, so any later write, rename or
    /// replacement of the file changes the signature (a change within the same clock tick as
    /// the one before could otherwise leave it equal). `nil` for a file changed just now.
    var settledSignature: String? {
        changeTime < Date().timeIntervalSince1970 - Self.settlingTime ? signature : nil
    }
}
