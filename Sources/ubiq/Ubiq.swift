import ArgumentParser
import Foundation
import Ubiquity

@main
struct Ubiq: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ubiq",
        abstract: "Emulated iCloud Core Data sync: one SQLite store per device, transaction logs in a shared cloud folder.",
        discussion: """
            Start with a device, then save objects and sync:

              ubiq device init --device ./phone
              ubiq insert Note title=Hello --device ./phone
              ubiq sync --device ./phone
              ubiq dump --json --device ./phone

            Every command takes --cloud DIR and --device DIR (defaults: $UBIQUITY_CLOUD and \
            $UBIQUITY_DEVICE, else the cloud the device belongs to and ./ubiquity-device), before \
            or after the command's name. New here? Run 'ubiq demo'.
            """,
        version: UbiquityVersion.string,
        subcommands: [
            DeviceCommand.self, InsertCommand.self, UpdateCommand.self, DeleteCommand.self,
            RelateCommand.self, UnrelateCommand.self, MoveCommand.self, FetchCommand.self, GetCommand.self, SyncCommand.self,
            DumpCommand.self, ModelCommand.self, SoakCommand.self, DemoCommand.self,
            StoreCommand.self, BaselineCommand.self, GCCommand.self, RemoveContentCommand.self, RebuildCommand.self,
            AccountCommand.self, MigrateCommand.self, ConflictsCommand.self,
            StatusCommand.self, PeersCommand.self, LogsCommand.self, DoctorCommand.self, BugReportCommand.self, WatchCommand.self,
            ScenarioCommand.self, ProtocolCommand.self, PlistCommand.self, EncryptionCommand.self,
        ])

    /// Runs a command with one-line errors: ArgumentParser's multi-line usage errors and the
    /// library's errors all become `ubiq: error: …` on stderr and a non-zero exit.
    static func main() {
        if let problem = ArgumentEncoding.invalidArgument() {
            Console.error(problem)
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        let arguments = CommandLineHabits.joiningNegativeNumbers(CommandLineHabits.movingLeadingGlobalOptions(
            LaunchArguments.extractingAppleLogLevel(from: Array(CommandLine.arguments.dropFirst()))))
        if let problem = CommandLineHabits.unknownCommand(in: arguments, root: Ubiq.self) {
            Console.error(problem)
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            let code = exitCode(for: error)
            // Help and --version are "errors" that exit cleanly; ArgumentParser prints them best.
            if code == .success { exit(withError: error) }
            let help = CommandLineHabits.helpCommand(CommandLineHabits.commandPath(in: arguments, root: Ubiq.self))
            Console.error(message(for: error) + " (see '\(help)')")
            Foundation.exit(code.rawValue)
        }
        do {
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            // `ubiq help …` and `--help` reach here as errors that mean "print help and succeed".
            if exitCode(for: error) == .success { exit(withError: error) }
            Console.error(Console.describe(error))
            Foundation.exit(1)
        }
    }
}
