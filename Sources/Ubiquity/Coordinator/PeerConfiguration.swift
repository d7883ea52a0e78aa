import CoreMetrics
import UbiquityBase
import UbiquityCore
import UbiquityPlist
import UbiquitySync

/// Everything a peer needs to open its store and find its container.
public struct PeerConfiguration: Sendable {
    /// The directory that plays iCloud.
    public var cloud: String
    /// The device directory (created with `Device.create`).
    public var device: String
    public var model: ObjectModel
    /// The store's name in the cloud (Apple's `NSPersistentStoreUbiquitousContentNameKey`).
    public var contentName: String
    public var containerIdentifier: String
    /// Relative path of the ubiquity root inside the container.
    public var contentURL: String
    /// The local store file's name, without extension.
    public var storeName: String
    /// Distinguishes several stores of one app on one device (Apple's peer-token option).
    public var peerToken: String?
    public var logFormat: PlistFormat
    /// When to roll baselines and collect garbage during `sync()`; `nil` = only on request.
    public var baselinePolicy: BaselinePolicy?
    /// Delete the local store of the account when the store is added and rebuild it from the
    /// container (Apple's rebuild-from-ubiquitous-content option).
    public var rebuildFromContent: Bool = false
    /// Decides, after each import, each new concurrent overwrite; a choice other than
    /// `.keepWinner` is saved as a new local transaction, so every peer converges on it.
    public var importResolver: (@Sendable (ConflictRecord) -> ImportResolution)?
    public var logger: UbiquityLogger
    /// The time the peer stamps transactions, receipts and baselines with and collects garbage
    /// by (scenarios give each device a simulated, possibly skewed clock).
    public var clock: WallClock = .system
    /// Migrate a store made for another model version when it is opened, if the mapping can be
    /// inferred (Core Data's lightweight migration). Off, such a store is refused with advice.
    public var migratesStore: Bool = true
    /// Earlier versions of the model (an `.xcdatamodeld`'s other versions): a store that does
    /// not record its model (made before stores did) is migrated from the one of its hash.
    public var previousModels: [ObjectModel] = []
    /// Every version of the model, oldest first, `model` among them (an `.xcdatamodeld`'s:
    /// `XcodeModelBundle.modelVersions()`). A store on an earlier version is then migrated a
    /// version at a time, every step planned before the first is applied; a store whose model
    /// is none of them is refused. `nil`: migrated from the store's model in one step.
    public var modelVersions: ModelVersions?
    /// Where the peer's counters and timers go (Docs/Library.md, "Metrics"); `nil`: the factory
    /// `MetricsSystem.bootstrap` installed when the peer opens, a no-op unless one was.
    public var metricsFactory: (any MetricsFactory)?

    public init(cloud: String, device: String, model: ObjectModel, contentName: String,
                containerIdentifier: String = "iCloud.ubiquity.default", contentURL: String = "CoreData",
                storeName: String = "Store", peerToken: String? = nil, logFormat: PlistFormat = .binary,
                baselinePolicy: BaselinePolicy? = .apple, logger: UbiquityLogger = UbiquityLogger()) {
        self.cloud = cloud
        self.device = device
        self.model = model
        self.contentName = contentName
        self.containerIdentifier = containerIdentifier
        self.contentURL = contentURL
        self.storeName = storeName
        self.peerToken = peerToken
        self.logFormat = logFormat
        self.baselinePolicy = baselinePolicy
        self.logger = logger
    }

    /// The earlier model of `hash` the configuration knows: one of `previousModels`, else of `modelVersions`.
    func earlierModel(hash: String) -> ObjectModel? {
        previousModels.first { $0.hash == hash } ?? modelVersions.flatMap { versions in versions.index(ofHash: hash).map { versions.models[$0] } }
    }

    /// Checks the options as Apple did: a content name without periods, a relative content URL
    /// without `.nosync`, names that are safe path components.
    public func validate() throws(PeerError) {
        guard CloudNames.isValidContentName(contentName) else {
            throw .invalidOption(.contentName, value: contentName)
        }
        guard CloudNames.isValidContentURL(contentURL) else {
            throw .invalidOption(.contentURL, value: contentURL)
        }
        guard CloudNames.isValidPathComponent(containerIdentifier) else {
            throw .invalidOption(.containerIdentifier, value: containerIdentifier)
        }
        guard CloudNames.isValidPathComponent(storeName) else { throw .invalidOption(.storeName, value: storeName) }
        guard !cloud.isEmpty else { throw .invalidOption(.cloud, value: cloud) }
        if let peerToken, !CloudNames.isValidPathComponent(peerToken.lowercased()) || peerToken.contains("~") {
            throw .invalidOption(.peerToken, value: peerToken)
        }
    }
}
