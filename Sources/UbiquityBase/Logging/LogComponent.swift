/// The part of the framework a log line comes from. The raw value is the class name Apple's
/// framework prints in the line's `-[Component method]` prefix, so lines read as Apple's do.
public enum LogComponent: String, Sendable, CaseIterable {
    case setupAssistant = "PFUbiquitySetupAssistant"
    case importer = "PFUbiquityTransactionLogImporter"
    case exporter = "PFUbiquityTransactionLogExporter"
    case baseline = "PFUbiquityBaseline"
    case conflictRecorder = "PFUbiquityConflictRecorder"
    case garbageCollector = "PFUbiquityGarbageCollector"
    case encryption = "PFUbiquityEncryption"
    /// The model a store is opened with (Core Data's `NSManagedObjectModel`).
    case model = "NSManagedObjectModel"
}
