import Foundation
import UbiquityCore

extension BaselineMetadata {
    /// The metadata of the container's current baseline as `store` may use it: `nil` when there
    /// is none or it belongs to another content epoch (rolled before its author knew of a
    /// removal); throws when it cannot be read or was made for another model. Reading it needs
    /// no scratch folder (`Baseliner.currentMetadata` does the same and logs why it ignores one).
    static func current(at location: ContainerLocation, for store: PersistentStore) throws(BaselineError) -> BaselineMetadata? {
        guard FileManager.default.fileExists(atPath: location.baselinePath) else { return nil }
        let metadata = try BaselineArchive.readMetadata(location.baselinePath)
        guard metadata.modelVersionHash == store.model.hash else { throw .otherModel(metadata.modelVersionHash) }
        return metadata.contentEpoch == (try? store.contentEpoch()) ?? nil ? metadata : nil
    }
}
