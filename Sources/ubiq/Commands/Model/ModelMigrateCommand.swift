import ArgumentParser
import Foundation
import Ubiquity

struct ModelMigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate this device's store to another model version (lightweight migration), then sync.",
        discussion: """
            The store is carried to the model at --to in one transaction if Core Data could infer the \
            mapping ('ubiq model diff' says); otherwise nothing changes and the error names each entity, \
            property and why. Given an .xcdatamodeld, the store is carried from its version through every \
            later one in Xcode's order to the current version, one transaction per step, every step \
            planned first: a step that cannot be inferred is named and nothing changes. \
            Before, the store syncs once on its old version; after, it puts what it \
            holds into a baseline of the new version, so peers that upgrade later lose nothing. \
            --from names the old model when the store does not record it (stores made by earlier builds).

            Example: ubiq model migrate --to 'MyApp.xcdatamodeld' --device ./phone
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The model to migrate to, in any form.", valueName: "path"))
    var to: String

    @Option(help: ArgumentHelp("The model the store was made for, if the store does not record it.", valueName: "path"))
    var from: String?

    @Flag(help: "Print the result as JSON.") var json = false

    func run() throws {
        var configuration = try global.unlockedConfiguration()
        configuration.model = try ObjectModel.load(contentsOf: GlobalOptions.absolute(to))
        configuration.modelVersions = try GlobalOptions.modelVersions(at: to)
        if let from {
            let previous = try ObjectModel.load(contentsOf: GlobalOptions.absolute(from))
            // A bundle's versions are matched by hash: one of them needs no --from, another is no version to walk from.
            if let versions = configuration.modelVersions, versions.index(ofHash: previous.hash) == nil {
                throw CLIError("--from names model '\(previous.name)' (\(previous.hash)), which is none of the versions of \(to)")
            }
            configuration.previousModels.append(previous)
        }
        let report = try StoreModelUpgrade.run(configuration: configuration)
        let summary = report.sync
        if json {
            var fields: [String: JSONValue] = ["model": .string(configuration.model.hash), "migrated": .bool(report.migration != nil),
                                               "baselineOwed": .bool(report.baselineOwed), "exported": .int(Int64(summary.exported))]
            if let migration = report.migration {
                fields["from"] = .string(migration.sourceHash)
                fields["steps"] = .int(Int64(migration.steps))
                fields["objectsBefore"] = .int(Int64(migration.objectsBefore))
                fields["objectsAfter"] = .int(Int64(migration.objectsAfter))
                fields["previousVersionLogs"] = .int(Int64(migration.previousVersionLogs))
                fields["changes"] = .array(migration.changes.map { .string("\($0.entity)\($0.property.map { "." + $0 } ?? ""): \($0.detail)") })
            }
            return Console.out(JSONValue.object(fields).text())
        }
        guard let migration = report.migration else {
            return Console.out("the store is already on model '\(configuration.model.name)' (\(configuration.model.hash)); nothing to migrate")
        }
        Console.out(migration.description)
        for change in migration.changes { Console.out("  \(change.entity)\(change.property.map { "." + $0 } ?? ""): \(change.detail)") }
        Console.out(report.baselineOwed ? "the migrated state is not in a baseline of the new version yet (\(summary.exportError?.description ?? summary.baseline?.reason ?? "the cloud could not be written")); the next sync retries, and this device's new saves wait until then"
                                        : "the migrated state is in a baseline of the new version: peers that upgrade later start from it")
    }
}
