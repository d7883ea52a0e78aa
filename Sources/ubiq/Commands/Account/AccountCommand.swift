import ArgumentParser
import Ubiquity

struct AccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Sign the device in or out of an iCloud account, or show its account.",
        discussion: """
            Like the system's account settings: device.plist changes, and a running peer of the \
            device (ubiq watch, an app) switches stores on its own.
            Example: ubiq account sign-in alice --device ./phone
            """,
        subcommands: [SignInCommand.self, SignOutCommand.self, AccountShowCommand.self])
}

struct SignInCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in", abstract: "Sign in to the account TOKEN.", discussion: "Example: ubiq account sign-in alice --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The account's identity token.") var token: String

    func run() throws {
        let device = try Device.setAccount(token, at: global.devicePath)
        Console.out("signed in to '\(device.identityToken ?? "")'")
    }
}

struct SignOutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-out", abstract: "Sign out: the device works on its local store, which does not sync.",
        discussion: "Example: ubiq account sign-out --device ./phone")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        _ = try Device.setAccount(nil, at: global.devicePath)
        Console.out("signed out")
    }
}

struct AccountShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print the device's account and peer ID.", discussion: "Example: ubiq account show --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let device = try Device.load(from: global.devicePath)
        let peerID = device.peerID()
        if json {
            Console.out(JSONValue.object(["account": device.identityToken.map(JSONValue.string) ?? .null, "peerID": .string(peerID), "user": .string(device.userName)]).text())
        } else {
            Console.out("account: \(device.identityToken ?? "(signed out)")")
            Console.out("peer ID: \(peerID)")
        }
    }
}

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
        let coordinator = try UbiquitousStoreCoordinator(configuration: try global.configuration())
        defer { coordinator.close() }
        try coordinator.addStore()
        try coordinator.waitForBackgroundImport()
        let report = fromLocal ? try coordinator.migrateLocalStoreToAccount() : try coordinator.migrateAccountStoreToLocal()
        Console.out("copied \(report.copied) object(s) in \(report.transactions) transaction(s); \(report.alreadyPresent) already present")
    }
}

struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "List the conflict history: every concurrent overwrite, with winner and loser.",
        discussion: "Example: ubiq conflicts --json --device ./phone",
        subcommands: [ConflictsListCommand.self, ConflictsRestoreCommand.self],
        defaultSubcommand: ConflictsListCommand.self)
}

struct ConflictsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the conflict history (the default).", discussion: "Example: ubiq conflicts list --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let conflicts = try global.withReadablePeer { peer in try peer.store.conflicts() }
        if json {
            Console.out(JSONValue.array(conflicts.map(\.jsonValue)).text())
            return
        }
        if conflicts.isEmpty { Console.out("no conflicts recorded") }
        for conflict in conflicts {
            Console.out("#\(conflict.id) \(conflict.object).\(conflict.property) [\(conflict.kind.rawValue)]: \(conflict.winnerValue.text()) (\(conflict.winnerPeer)) won over \(conflict.loserValue.text()) (\(conflict.loserPeer))")
        }
    }
}

struct ConflictsRestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Save a conflict's losing value again, as a new transaction every peer imports.",
        discussion: "Example: ubiq conflicts restore 3 --device ./phone")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The conflict's number (see 'ubiq conflicts').") var id: Int64

    func run() throws {
        let log = try global.withPeer { peer in try peer.restoreLoser(ofConflict: id) }
        Console.out(log.map { "restored in transaction \($0.transactionNumber)" } ?? "nothing to restore: the loser's value is already current")
    }
}
