import Foundation
import UbiquityBase
import UbiquityCore
import UbiquitySync

/// Why a log named for inspection could not be read.
public enum LogInspectionError: Error, CustomStringConvertible, Sendable {
    case unreadable(file: String, reason: String)
    /// The log is sealed and the device has no account, so no key.
    case sealedWhileSignedOut(file: String)
    case unopenable(file: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(file, reason): return "cannot read \(file): \(reason)"
        case let .sealedWhileSignedOut(file): return "\(file) is sealed and this device is signed out"
        case let .unopenable(file, reason): return "cannot open \(file): \(reason)"
        }
    }
}

/// One transaction log read and decoded for a person to look at (`ubiq logs show`).
public enum LogInspection {
    /// The largest log read.
    public static let sizeLimit = TransactionLog.maximumFileSize

    /// Reads and decodes the log `file`: a path (absolute or from the working folder) or, when
    /// no file is there, a path relative to the ubiquity root of the device's account, as
    /// `ContainerReport.logFiles` names logs. A sealed log is opened with the key the device keeps.
    public static func read(_ file: String, configuration: PeerConfiguration) throws -> TransactionLog {
        let device = try Device.load(from: configuration.device)
        var path = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        if !FileManager.default.fileExists(atPath: path), let token = device.identityToken {
            path = ContainerLocation(cloud: configuration.cloud, identityToken: token, containerIdentifier: configuration.containerIdentifier,
                                     contentURL: configuration.contentURL, contentName: configuration.contentName, modelHash: configuration.model.hash)
                .absolute(file)
        }
        var bytes: [UInt8]
        do { bytes = try AtomicFile.read(path, limit: sizeLimit, followingLinks: true) } catch {
            throw LogInspectionError.unreadable(file: file, reason: error.message)
        }
        if SealedFile.isSealed(bytes) {
            let sealed = bytes
            bytes = try UbiquityPeer.withReadablePeer(configuration: configuration) { peer in
                guard let location = peer.location else { throw LogInspectionError.sealedWhileSignedOut(file: file) }
                location.sealing.refresh()
                do { return try location.sealing.open(sealed, path: path) } catch let error as FileError { throw LogInspectionError.unopenable(file: file, reason: error.message) }
            }
        }
        return try TransactionLog(decoding: bytes, model: configuration.model)
    }
}
