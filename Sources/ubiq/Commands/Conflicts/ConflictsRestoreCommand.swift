import ArgumentParser
import Ubiquity

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
