import Foundation
import UbiquityBase
import UbiquityCore

/// What Apple's iOS 7 iCloud Core Data would refuse in a model, so a developer can test a
/// model against Apple's rules before shipping it to a store that syncs through iCloud:
/// ordered relationships (iCloud stores refused them), model changes only a mapping model
/// could migrate (iCloud migrated by inferred mapping only, from every older version to the
/// current one), content names with periods, and what iOS 7 did not have: uniqueness
/// constraints (iOS 9) and derived attributes (iOS 13). Warnings are what Apple allowed but was known to
/// break: external binary data.
public struct ICloudModelCheck: Sendable {
    public enum Severity: String, Sendable { case refused, warning }

    public struct Finding: Sendable, Equatable {
        public let severity: Severity
        /// `Entity.property`, `Entity`, a version, or the content name.
        public let subject: String
        public let message: String
    }

    public let findings: [Finding]

    /// Whether Apple's iCloud Core Data would take the model as it is.
    public var isAccepted: Bool { !findings.contains { $0.severity == .refused } }

    /// Checks `model` (the current version), each of `olderVersions` against it, and the content name.
    public init(model: ObjectModel, olderVersions: [ObjectModel] = [], contentName: String? = nil) {
        var findings: [Finding] = []
        for entity in model.declaredEntities {
            for relationship in entity.relationships where relationship.isToMany && relationship.isOrdered {
                findings.append(Finding(severity: .refused, subject: "\(entity.name).\(relationship.name)",
                                        message: "ordered relationships are not supported by iCloud Core Data"))
            }
            for constraint in entity.uniquenessConstraints {
                findings.append(Finding(severity: .refused, subject: "\(entity.name) (\(constraint.joined(separator: ", ")))",
                                        message: "uniqueness constraints came with iOS 9: iOS 7 iCloud Core Data could not sync them"))
            }
            for attribute in entity.attributes where attribute.derivation != nil {
                findings.append(Finding(severity: .refused, subject: "\(entity.name).\(attribute.name)",
                                        message: "derived attributes came with iOS 13: iOS 7 iCloud Core Data could not sync them"))
            }
            for attribute in entity.attributes where attribute.allowsExternalBinaryDataStorage && !attribute.isTransient {
                findings.append(Finding(severity: .warning, subject: "\(entity.name).\(attribute.name)",
                                        message: "external binary data storage synced unreliably through iOS 7 iCloud (exceptions on import)"))
            }
        }
        for older in olderVersions where older.hash != model.hash {
            let diff = ModelDiff(from: older, to: model)
            for change in diff.changes {
                guard case let .needsMappingModel(reason) = change.mapping else { continue }
                let path = change.property.map { "\(change.entity).\($0)" } ?? change.entity
                findings.append(Finding(severity: .refused, subject: "\(older.name) → \(model.name): \(path)",
                                        message: "\(change.detail): only a mapping model could migrate it (\(reason)); iCloud stores migrate by inferred mapping only"))
            }
        }
        if let contentName, contentName.contains(".") {
            findings.append(Finding(severity: .refused, subject: "content name \(contentName)",
                                    message: "the ubiquitous content name must not contain periods"))
        }
        self.findings = findings
    }

    /// `{accepted, findings: [{severity, subject, message}]}`.
    public var jsonValue: JSONValue {
        .object([
            "accepted": .bool(isAccepted),
            "findings": .array(findings.map { .object(["severity": .string($0.severity.rawValue), "subject": .string($0.subject), "message": .string($0.message)]) }),
        ])
    }

    /// One line per finding, then the verdict.
    public var textDescription: String {
        var lines = findings.map { "\($0.severity.rawValue): \($0.subject): \($0.message)" }
        lines.append(isAccepted ? "iCloud Core Data (iOS 7) would accept this model" : "iCloud Core Data (iOS 7) would refuse this model")
        return lines.joined(separator: "\n")
    }
}
