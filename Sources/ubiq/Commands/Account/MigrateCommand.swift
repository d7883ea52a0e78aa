import ArgumentParser
import Ubiquity

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy objects between the local store and the current account's store, without duplicates.",
        discussion: """
            --from-local copies what was saved while signed out into the account (it then syncs); \
            --to-local copies the account's objects into the local store (iCloud off). Objects the \
            target already has (same global ID or natural key) are left as they are.
            Example: ubiq migrate --from-local --device ./phone
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Local store → account store.") var fromLocal = false
    @Flag(help: "Account store → local store.") var toLocal = false

    func validate() throws {
        guard fromLocal != toLocal else { throw ValidationError("give exactly one of --from-local and --to-local") }
    }

    func run() throws {
        let report = try AccountStoreCopy.run(fromLocal ? .localToAccount : .accountToLocal, configuration: try global.unlockedConfiguration())
        Console.out("copied \(report.copied) object(s) in \(report.transactions) transaction(s); \(report.alreadyPresent) already present")
    }
}
