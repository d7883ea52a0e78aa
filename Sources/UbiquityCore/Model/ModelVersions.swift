/// An app's model versions in the order they were made (an `.xcdatamodeld`'s, in Xcode's
/// order, `XcodeModelBundle.modelVersions()`).
///
/// A store on one of them is carried to a later one a version at a time, each step planned
/// on its own by `ModelMigrationPlan`, as Core Data's lightweight migration goes across
/// versions: a change two versions make together need not be inferable at once, and a step
/// that cannot be inferred is named.
public struct ModelVersions: Sendable {
    /// The versions, oldest first.
    public let models: [ObjectModel]

    /// The versions `models`, oldest first.
    public init(_ models: [ObjectModel]) {
        self.models = models
    }

    /// The position of the version a store of `hash` is on: the last of the versions of that
    /// hash (versions that differ only in what the hash leaves out open the same store).
    public func index(ofHash hash: String) -> Int? {
        models.lastIndex { $0.hash == hash }
    }

    /// Every step that carries a store made for the model of `storedHash` to `destination`,
    /// each one planned, oldest first; empty when the store is on `destination` already.
    /// Versions that share a hash are one step. A store on a later version than `destination`
    /// is planned in one step. Thrown before anything is touched: the store's or the
    /// destination's version is in none of the versions, or a step cannot be inferred.
    public func steps(from storedHash: String, to destination: ObjectModel) throws(ModelWalkError) -> [ModelMigrationPlan] {
        guard storedHash != destination.hash else { return [] }
        guard let end = index(ofHash: destination.hash) else {
            throw .destinationNotInVersions(model: destination.name, hash: destination.hash, versions: models.count)
        }
        guard let start = index(ofHash: storedHash) else {
            throw .storeVersionUnknown(storedHash: storedHash, model: destination.name, versions: models.map(\.name))
        }
        var chain = [models[start]]
        if start < end {
            for model in models[(start + 1)..<end] where model.hash != chain[chain.count - 1].hash { chain.append(model) }
        }
        // The destination itself ends the walk: the store records the model it was opened with.
        if chain[chain.count - 1].hash == destination.hash { chain[chain.count - 1] = destination } else { chain.append(destination) }
        var plans: [ModelMigrationPlan] = []
        for (offset, (from, to)) in zip(chain, chain.dropFirst()).enumerated() {
            do throws(ModelMigrationError) {
                plans.append(try ModelMigrationPlan(from: from, to: to))
            } catch {
                throw .stepRefused(storeVersion: chain[0].name, destination: destination.name, step: offset + 1, steps: chain.count - 1, refusal: error)
            }
        }
        return plans
    }
}

/// Why a store cannot be walked through the model versions to the one it is opened with:
/// nothing was touched.
public enum ModelWalkError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The store was made for a model that is none of the versions.
    case storeVersionUnknown(storedHash: String, model: String, versions: [String])
    /// The model to migrate to is none of the versions it was given with.
    case destinationNotInVersions(model: String, hash: String, versions: Int)
    /// Step `step` of `steps` (the refusal names its two versions) cannot be inferred.
    case stepRefused(storeVersion: String, destination: String, step: Int, steps: Int, refusal: ModelMigrationError)

    public var description: String {
        switch self {
        case let .storeVersionUnknown(stored, model, versions):
            let span = versions.count > 1 ? "'\(versions[0])' … '\(versions[versions.count - 1])'" : versions.map { "'\($0)'" }.joined()
            return "the store was made for model version \(stored), which is none of the \(versions.count) version(s) of '\(model)' (\(span)); nothing was changed: open it with the model it was made for, or give the versions that hold it"
        case let .destinationNotInVersions(model, hash, versions):
            return "model '\(model)' (\(hash)) is none of the \(versions) model version(s) it was given with"
        case let .stepRefused(storeVersion, destination, step, steps, refusal):
            let items = refusal.refusals.map { "\($0.entity)\($0.property.map { "." + $0 } ?? ""): \($0.detail) — \($0.reason)" }
            return "the store on model '\(storeVersion)' cannot be migrated to '\(destination)': step \(step) of \(steps), '\(refusal.sourceName)' → '\(refusal.destinationName)', cannot be inferred; nothing was changed and the store still opens with '\(storeVersion)': "
                + items.joined(separator: "; ")
        }
    }
}
