import ArgumentParser
import Ubiquity

/// Core Data's merge policies by their CLI names.
enum MergePolicyName: String, ExpressibleByArgument, CaseIterable {
    case error, storeTrump = "store-trump", objectTrump = "object-trump", overwrite, rollback

    var policy: MergePolicy {
        switch self {
        case .error: return .error
        case .storeTrump: return .propertyStoreTrump
        case .objectTrump: return .propertyObjectTrump
        case .overwrite: return .overwrite
        case .rollback: return .rollback
        }
    }
}
