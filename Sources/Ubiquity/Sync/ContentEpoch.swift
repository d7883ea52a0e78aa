import Foundation

/// The content epoch (`.content/<ContentName>.plist`): a UUID written when the content is
/// created and again when it is removed, so running peers notice a removal.
enum ContentEpoch {
    static func read(_ location: ContainerLocation) -> String? {
        guard let bytes = try? AtomicFile.read(location.contentEpochPath, limit: 1 << 16),
              let plist = try? PlistSeam.decode(bytes) else { return nil }
        return plist["epoch"]?.stringValue
    }

    /// Writes a new epoch, dated `date` (seconds since 1970), and returns it.
    static func write(_ location: ContainerLocation, date: Double) throws -> String {
        let epoch = UUID().uuidString
        let value = PlistValue.dictionary(["format": .integer(1), "epoch": .string(epoch), "date": .real(date)])
        do {
            try AtomicFile.makeDirectory((location.contentEpochPath as NSString).deletingLastPathComponent)
            try AtomicFile.write(PlistSeam.encode(value, format: .xml), to: location.contentEpochPath)
        } catch {
            throw SyncError.containerUnwritable(path: error.path, reason: error.message)
        }
        return epoch
    }
}
