import Foundation
import UbiquitySync

/// The container's current baseline for this peer's content and model version (`ubiq baseline show`).
public struct BaselineSummary: Sendable {
    public let metadata: BaselineMetadata
    /// The baseline file's size (0 when it cannot be read).
    public let bytes: Int
}

extension UbiquityPeer {
    /// The current baseline, or `nil` when there is none (or the device is signed out).
    public var baselineSummary: BaselineSummary? {
        guard let metadata = baselineMetadata, let location else { return nil }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: location.baselinePath)[.size] as? NSNumber)?.intValue ?? 0
        return BaselineSummary(metadata: metadata, bytes: bytes)
    }
}
