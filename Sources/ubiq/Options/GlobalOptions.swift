import ArgumentParser
import Foundation
import Ubiquity
import UbiquityPlist

/// Options every command takes: where the cloud and the device are, which content and model.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The directory that plays iCloud (default: $UBIQUITY_CLOUD, else the cloud the device belongs to, else ./ubiquity-cloud).", valueName: "dir"))
    var cloud: String?

    @Option(help: ArgumentHelp("The device directory (default: $UBIQUITY_DEVICE, else ./ubiquity-device).", valueName: "dir"))
    var device: String?

    @Option(help: ArgumentHelp("The store's content name in the cloud.", valueName: "name"))
    var content: String = "Notes"

    @Option(help: ArgumentHelp("A model file (plist, see 'ubiq model'); default: the built-in Notes model.", valueName: "file"))
    var model: String?

    @Option(name: .customLong("configuration"),
            help: ArgumentHelp("A configuration of the model: the store holds its entities only (see 'ubiq model show').", valueName: "name"))
    var modelConfiguration: String?

    @Option(help: ArgumentHelp("The ubiquity container identifier.", valueName: "id"))
    var container: String = "iCloud.ubiquity.default"

    @Option(help: "The format of transaction logs this device writes.")
    var format: LogFormatOption = .binary

    @Option(name: .customLong("log-level"),
            help: ArgumentHelp("0 errors and changes of store ('Using local storage: 1') … 3 verbose (default: $UBIQUITY_LOG_LEVEL, else 0).", valueName: "n"))
    var logLevel: Int?

    @Flag(name: [.customShort("q"), .long], help: "Print no log lines of the library, at any level (the command's own output and errors still print).")
    var quiet = false

    /// The cloud a command works on: the one given (`--cloud`, `$UBIQUITY_CLOUD`), else the one
    /// the device recorded, else `./ubiquity-cloud`. Only a given cloud can differ from the
    /// device's, and the library refuses it then.
    var cloudPath: String {
        if let givenCloud { return Self.absolute(givenCloud) }
        if let recorded = (try? Device.load(from: devicePath))?.cloud { return recorded }
        return Self.absolute(Self.defaultCloud)
    }

    /// The cloud `device init` records: the one given, else `./ubiquity-cloud`.
    var newDeviceCloudPath: String { Self.absolute(givenCloud ?? Self.defaultCloud) }

    private var givenCloud: String? { cloud ?? Self.environment("UBIQUITY_CLOUD") }
    private static let defaultCloud = "ubiquity-cloud"

    var devicePath: String { Self.absolute(device ?? Self.environment("UBIQUITY_DEVICE") ?? "ubiquity-device") }

    func loadModel() throws -> ObjectModel {
        guard let model else {
            if modelConfiguration != nil { throw CLIError("--configuration needs --model: the built-in Notes model has no configurations") }
            return .notes
        }
        var loaded = try ObjectModel.load(contentsOf: Self.absolute(model))
        let logger = try logger()
        for note in loaded.notes { logger.log(note.level, .model, "initWithContentsOfURL:", note.description) }
        if let modelConfiguration { loaded = try loaded.restricted(toConfiguration: modelConfiguration) }
        return loaded
    }

    func logger() throws -> UbiquityLogger {
        if quiet {
            if logLevel != nil { throw CLIError("--quiet and --log-level each say what to print: choose one") }
            return .silent
        }
        let level: Int
        if let logLevel {
            level = logLevel
        } else if let text = Self.environment("UBIQUITY_LOG_LEVEL") {
            guard let value = Int(text) else { throw CLIError("UBIQUITY_LOG_LEVEL must be a number from 0 to 3, not '\(text)'") }
            level = value
        } else {
            level = 0
        }
        guard let logLevel = LogLevel(rawValue: level) else { throw CLIError("the log level must be 0, 1, 2 or 3, not \(level)") }
        return UbiquityLogger(level: logLevel)
    }

    /// The versions of an `.xcdatamodeld` at `path`, in Xcode's order; `nil` for any other
    /// model file. A store on one of them is migrated a version at a time.
    static func modelVersions(at path: String) throws -> ModelVersions? {
        guard path.hasSuffix(".xcdatamodeld") || path.hasSuffix(".xcdatamodeld/") else { return nil }
        return try XcodeModelBundle(path: absolute(path)).modelVersions()
    }

    /// The device's configuration. A store made for another model version is not migrated
    /// behind the user's back: the error says to run `ubiq model migrate --to MODEL`.
    func configuration() throws -> PeerConfiguration {
        var configuration = PeerConfiguration(cloud: cloudPath, device: devicePath, model: try loadModel(), contentName: content,
                                              containerIdentifier: container, logFormat: format.plistFormat, logger: try logger())
        configuration.migratesStore = false
        // A store of another version of the bundle is told how to migrate, or why it cannot.
        configuration.modelVersions = model.flatMap { try? Self.modelVersions(at: $0) }
        return configuration
    }

    /// The configuration of a command that reads or writes the cloud's content, once the device
    /// holds the key it needs (`unlockFromEnvironment`).
    func unlockedConfiguration() throws -> PeerConfiguration {
        let configuration = try configuration()
        try Self.unlockFromEnvironment(configuration)
        return configuration
    }

    /// Opens this device's peer (its configuration changed by `adjust`) for the length of
    /// `body` and closes it after, releasing the device. Unless `unlocking` is false
    /// (`encryption status`, `enable` and `change-passphrase`, which leave the key to the user),
    /// a device without the key of encrypted content is given it from `$UBIQUITY_PASSPHRASE` first.
    func withPeer<T>(unlocking: Bool = true, adjust: (inout PeerConfiguration) -> Void = { _ in },
                     _ body: (UbiquityPeer) throws -> T) throws -> T {
        var configuration = try configuration()
        adjust(&configuration)
        if unlocking { try Self.unlockFromEnvironment(configuration) }
        return try UbiquityPeer.withPeer(configuration: configuration, body)
    }

    /// The variable a passphrase is read from first (as `PassphraseSource` reads it).
    private static let passphraseVariable = "UBIQUITY_PASSPHRASE"

    /// With `$UBIQUITY_PASSPHRASE` set, a device whose content is encrypted and which holds no
    /// key is given it, as `ubiq encryption unlock` would, and one line on stderr says so: the
    /// command then works instead of failing for want of the key. A wrong passphrase changes
    /// nothing and names the variable; a content whose key record is gone is left to the
    /// command's own error.
    static func unlockFromEnvironment(_ configuration: PeerConfiguration) throws {
        guard let passphrase = environment(passphraseVariable),
              case .locked(keyID: .some) = (try? UbiquityPeer.encryptionState(configuration: configuration)) ?? .plain else { return }
        do {
            // A key record put back on the way (its key ID had been altered) is said too.
            if let repair = try UbiquityPeer.unlockEncryption(configuration: configuration, passphrase: passphrase) { Console.note("ubiq: \(repair.line)") }
        } catch EncryptionError.wrongPassphrase {
            throw CLIError("$\(passphraseVariable) does not open the key of this encrypted content (wrong passphrase; nothing was changed): export the right one, or unset it")
        }
        Console.note("ubiq: this device was given the content key with the passphrase in $\(passphraseVariable) (it keeps the key from now on)")
    }

    /// For the commands that only read (`fetch`, `status`, `dump`, …): the device's peer opened
    /// read-only, whether or not another process owns the device (`UbiquityPeer.withReadablePeer`),
    /// so a reader never keeps the owner from writing.
    func withReadablePeer<T>(_ body: (UbiquityPeer) throws -> T) throws -> T {
        try UbiquityPeer.withReadablePeer(configuration: try configuration(), body)
    }

    private static func environment(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// Absolute paths make error messages say exactly which folder was meant.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let base = FileManager.default.currentDirectoryPath
        return path == "." ? base : base + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}
