import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finds one entry of a zip archive through its central directory (ZIP64 included), for
/// reading its bytes directly (`InflatedStore`): ZIPFoundation only streams an entry through
/// its own inflater. Anything it does not understand, or that points outside the file, is
/// `nil`; the caller then reads the archive through ZIPFoundation, whose errors it reports.
enum ZipDirectoryReader {
    struct Entry {
        let method: UInt16
        let flags: UInt16
        let compressedSize: UInt64
        let size: UInt64
        /// Where the entry's (compressed) bytes start.
        let dataOffset: UInt64
    }

    static func locate(_ name: String, descriptor: Int32) -> Entry? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let fileSize = UInt64(status.st_size)
        // The end record (22 bytes) is followed by a comment of at most 65,535 bytes.
        let tailSize = Int(min(fileSize, 22 + 0xFFFF))
        guard tailSize >= 22, let tail = read(descriptor, at: fileSize - UInt64(tailSize), count: tailSize) else { return nil }
        guard let end = stride(from: tailSize - 22, through: 0, by: -1).first(where: { tail.u32($0) == 0x0605_4B50 }) else { return nil }
        var count = UInt64(tail.u16(end + 10)), directorySize = UInt64(tail.u32(end + 12)), directoryOffset = UInt64(tail.u32(end + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // The ZIP64 end record, found through its locator just before the end record.
            let endOffset = fileSize - UInt64(tailSize) + UInt64(end)
            guard endOffset >= 20, let locator = read(descriptor, at: endOffset - 20, count: 20), locator.u32(0) == 0x0706_4B50,
                  let record = read(descriptor, at: locator.u64(8), count: 56), record.u32(0) == 0x0606_4B50 else { return nil }
            count = record.u64(32); directorySize = record.u64(40); directoryOffset = record.u64(48)
        }
        guard directorySize <= 64 << 20, directoryOffset + directorySize <= fileSize,
              let directory = read(descriptor, at: directoryOffset, count: Int(directorySize)) else { return nil }
        let wanted = Array(name.utf8)
        var position = 0
        for _ in 0..<count {
            guard position + 46 <= directory.count, directory.u32(position) == 0x0201_4B50 else { return nil }
            let nameLength = Int(directory.u16(position + 28)), extraLength = Int(directory.u16(position + 30))
            let commentLength = Int(directory.u16(position + 32))
            let next = position + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else { return nil }
            defer { position = next }
            guard Array(directory[(position + 46)..<(position + 46 + nameLength)]) == wanted else { continue }
            var size = UInt64(directory.u32(position + 24)), compressedSize = UInt64(directory.u32(position + 20))
            var headerOffset = UInt64(directory.u32(position + 42))
            // ZIP64 extra field: the values that did not fit, in this order.
            var extra = position + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let id = directory.u16(extra), length = Int(directory.u16(extra + 2))
                guard extra + 4 + length <= extraEnd else { return nil }
                if id == 1 {
                    var field = extra + 4
                    if size == 0xFFFF_FFFF { guard field + 8 <= extra + 4 + length else { return nil }; size = directory.u64(field); field += 8 }
                    if compressedSize == 0xFFFF_FFFF { guard field + 8 <= extra + 4 + length else { return nil }; compressedSize = directory.u64(field); field += 8 }
                    if headerOffset == 0xFFFF_FFFF { guard field + 8 <= extra + 4 + length else { return nil }; headerOffset = directory.u64(field) }
                }
                extra += 4 + length
            }
            guard headerOffset <= fileSize, let header = read(descriptor, at: headerOffset, count: 30), header.u32(0) == 0x0403_4B50 else { return nil }
            let dataOffset = headerOffset + 30 + UInt64(header.u16(26)) + UInt64(header.u16(28))
            guard compressedSize <= fileSize, dataOffset <= fileSize - compressedSize else { return nil }
            return Entry(method: directory.u16(position + 10), flags: directory.u16(position + 8), compressedSize: compressedSize,
                         size: size, dataOffset: dataOffset)
        }
        return nil
    }

    private static func read(_ descriptor: Int32, at offset: UInt64, count: Int) -> [UInt8]? {
        guard offset <= UInt64(Int64.max) else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { return nil }
            done += read
        }
        return bytes
    }
}

/// Little-endian fields of zip records.
private extension Array where Element == UInt8 {
    func u16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }
}
