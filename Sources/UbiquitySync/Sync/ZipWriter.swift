import CSystemZlib
import Foundation
import UbiquityBase
#if canImport(Glibc)
import Glibc
#endif

/// Writes a zip archive whose entries are deflated by the system's zlib at a level chosen by
/// measurement (`BaselineArchive.deflateLevel`): ZIPFoundation, which reads baselines, only
/// deflates at zlib's default level, which was most of a baseline roll's time.
///
/// Entries stream from a file or come from memory; each is read once (CRC-32 and deflate in
/// the same pass) and its local header is completed in place when its sizes are known. Sizes
/// and offsets past 4 GiB use the ZIP64 extensions, so any store fits.
struct ZipWriter {
    private struct Entry {
        let name: [UInt8]
        let headerOffset: UInt64
        let usesZip64: Bool
        var crc: UInt32 = 0
        var compressedSize: UInt64 = 0
        var size: UInt64 = 0
    }

    let path: String
    private let descriptor: Int32
    private let level: Int32
    /// Sizes and offsets at or above this use ZIP64 fields (lowered by tests to exercise them).
    private let zip64Threshold: UInt64
    private var offset: UInt64 = 0
    private var entries: [Entry] = []
    private let dosTime: UInt16, dosDate: UInt16
    private var isOpen = true

    /// Creates (or truncates) the archive at `path`. Call `finish()` to complete it, or
    /// `abandon()` to close it half-written.
    init(path: String, level: Int32, zip64Threshold: UInt64 = UInt64(UInt32.max), date: Date = Date()) throws(FileError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "create", errno: errno) }
        self.path = path
        self.descriptor = descriptor
        self.level = level
        self.zip64Threshold = zip64Threshold
        (dosTime, dosDate) = Self.dosDateTime(date)
    }

    /// Adds an entry holding `bytes`.
    mutating func add(name: String, bytes: [UInt8]) throws {
        try add(name: name, size: UInt64(bytes.count)) { body in try body(bytes) }
    }

    /// Adds an entry holding the regular file at `file`, streamed a chunk at a time.
    mutating func add(name: String, contentsOf file: String) throws {
        let descriptor = try AtomicFile.openRegularFile(file)
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileError(path: file, operation: "stat", errno: errno) }
        try add(name: name, size: UInt64(status.st_size)) { body in
            try StreamingFile.forEachChunk(descriptor: descriptor, path: file, body)
        }
    }

    /// Writes the central directory and makes the archive durable (fsync) before closing it.
    mutating func finish() throws {
        let directoryOffset = offset
        for entry in entries { try write(centralHeader(entry)) }
        let directorySize = offset - directoryOffset
        let count = UInt64(entries.count)
        if directoryOffset >= zip64Threshold || directorySize >= zip64Threshold || count >= 0xFFFF {
            let recordOffset = offset
            var record = ZipBytes()
            record.u32(0x0606_4B50); record.u64(44); record.u16(45); record.u16(45); record.u32(0); record.u32(0)
            record.u64(count); record.u64(count); record.u64(directorySize); record.u64(directoryOffset)
            record.u32(0x0706_4B50); record.u32(0); record.u64(recordOffset); record.u32(1)
            try write(record.bytes)
        }
        var end = ZipBytes()
        end.u32(0x0605_4B50); end.u16(0); end.u16(0)
        end.u16(UInt16(min(count, 0xFFFF))); end.u16(UInt16(min(count, 0xFFFF)))
        end.u32(Self.clamped(directorySize, zip64Threshold)); end.u32(Self.clamped(directoryOffset, zip64Threshold)); end.u16(0)
        try write(end.bytes)
        guard fsync(descriptor) == 0 else { throw FileError(path: path, operation: "fsync", errno: errno) }
        isOpen = false
        guard close(descriptor) == 0 else { throw FileError(path: path, operation: "close", errno: errno) }
    }

    /// Closes a half-written archive (the caller removes the file).
    mutating func abandon() {
        if isOpen { close(descriptor) }
        isOpen = false
    }

    // MARK: Entries

    private mutating func add(name: String, size: UInt64, stream: ((([UInt8]) throws -> Void)) throws -> Void) throws {
        // A deflated entry can outgrow its input by a few bytes per block: a size near the
        // limit reserves the ZIP64 fields too.
        var entry = Entry(name: Array(name.utf8), headerOffset: offset,
                          usesZip64: size >= zip64Threshold / 2 || offset >= zip64Threshold)
        try write(localHeader(entry))
        let deflater = try Deflater(level: level, path: path)
        var crc = crc32(0, nil, 0)
        var read: UInt64 = 0
        try stream { chunk in
            crc = chunk.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
            read += UInt64(chunk.count)
            try deflater.deflate(chunk, finish: false) { try write($0) }
        }
        try deflater.deflate([], finish: true) { try write($0) }
        entry.crc = UInt32(crc)
        entry.size = read
        entry.compressedSize = offset - entry.headerOffset - UInt64(localHeader(entry).count)
        if !entry.usesZip64, entry.size >= zip64Threshold || entry.compressedSize >= zip64Threshold {
            throw FileError(path: path, operation: "write", message: "\(name) changed size while it was archived")
        }
        let header = localHeader(entry)
        let written = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(entry.headerOffset)) }
        guard written == header.count else { throw FileError(path: path, operation: "write", errno: errno) }
        entries.append(entry)
    }

    private func localHeader(_ entry: Entry) -> [UInt8] {
        var header = ZipBytes()
        header.u32(0x0403_4B50); header.u16(entry.usesZip64 ? 45 : 20); header.u16(0); header.u16(8)
        header.u16(dosTime); header.u16(dosDate); header.u32(entry.crc)
        if entry.usesZip64 {
            header.u32(0xFFFF_FFFF); header.u32(0xFFFF_FFFF)
        } else {
            header.u32(UInt32(entry.compressedSize)); header.u32(UInt32(entry.size))
        }
        header.u16(UInt16(entry.name.count)); header.u16(entry.usesZip64 ? 20 : 0)
        header.bytes += entry.name
        if entry.usesZip64 { header.u16(1); header.u16(16); header.u64(entry.size); header.u64(entry.compressedSize) }
        return header.bytes
    }

    private func centralHeader(_ entry: Entry) -> [UInt8] {
        // ZIP64 extra field: only the values that do not fit, in this order.
        var extra = ZipBytes()
        if entry.size >= zip64Threshold { extra.u64(entry.size) }
        if entry.compressedSize >= zip64Threshold { extra.u64(entry.compressedSize) }
        if entry.headerOffset >= zip64Threshold { extra.u64(entry.headerOffset) }
        var header = ZipBytes()
        header.u32(0x0201_4B50); header.u16(3 << 8 | 45); header.u16(extra.bytes.isEmpty ? 20 : 45); header.u16(0); header.u16(8)
        header.u16(dosTime); header.u16(dosDate); header.u32(entry.crc)
        header.u32(Self.clamped(entry.compressedSize, zip64Threshold)); header.u32(Self.clamped(entry.size, zip64Threshold))
        header.u16(UInt16(entry.name.count)); header.u16(extra.bytes.isEmpty ? 0 : UInt16(4 + extra.bytes.count)); header.u16(0)
        header.u16(0); header.u16(0); header.u32(UInt32(0o100644) << 16)
        header.u32(Self.clamped(entry.headerOffset, zip64Threshold))
        header.bytes += entry.name
        if !extra.bytes.isEmpty { header.u16(1); header.u16(UInt16(extra.bytes.count)); header.bytes += extra.bytes }
        return header.bytes
    }

    private static func clamped(_ value: UInt64, _ threshold: UInt64) -> UInt32 {
        value >= threshold ? 0xFFFF_FFFF : UInt32(value)
    }

    private mutating func write(_ bytes: [UInt8]) throws(FileError) {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, $0.count - done) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, operation: "write", errno: errno)
            }
            done += count
        }
        offset += UInt64(bytes.count)
    }

    /// MS-DOS date and time (local time, 2-second steps), as zip keeps them.
    private static func dosDateTime(_ date: Date) -> (time: UInt16, date: UInt16) {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let year = max(0, Int(parts.tm_year) + 1900 - 1980)
        let time = UInt16(parts.tm_hour) << 11 | UInt16(parts.tm_min) << 5 | UInt16(parts.tm_sec / 2)
        let day = UInt16(min(year, 127)) << 9 | UInt16(parts.tm_mon + 1) << 5 | UInt16(parts.tm_mday)
        return (time, day)
    }
}

/// Little-endian fields of a zip header.
private struct ZipBytes {
    var bytes: [UInt8] = []
    mutating func u16(_ value: UInt16) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
    mutating func u32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(value >> UInt32(shift) & 0xFF)) } }
    mutating func u64(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(value >> UInt64(shift) & 0xFF)) } }
}

/// A raw deflate stream (no zlib header: zip adds its own) over zlib's `z_stream`, which
/// must not move once started (zlib keeps a pointer to it): it lives on the heap.
private final class Deflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var output = [UInt8](repeating: 0, count: 1 << 18)
    private let path: String

    init(level: Int32, path: String) throws(FileError) {
        self.path = path
        stream.initialize(to: z_stream())
        let status = deflateInit2_(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                                   ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            throw FileError(path: path, operation: "deflate", message: "zlib could not start (status \(status))")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Deflates `input` (with `finish`, everything left) and hands each full output buffer to `emit`.
    func deflate(_ input: [UInt8], finish: Bool, emit: ([UInt8]) throws -> Void) throws {
        try input.withUnsafeBufferPointer { source in
            // zlib only reads through next_in; its C type is merely not const.
            stream.pointee.next_in = source.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
            stream.pointee.avail_in = uInt(source.count)
            while true {
                let (status, produced) = output.withUnsafeMutableBufferPointer { target in
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = uInt(target.count)
                    let status = CSystemZlib.deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                    return (status, target.count - Int(stream.pointee.avail_out))
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw FileError(path: path, operation: "deflate", message: "zlib failed (status \(status))")
                }
                if produced > 0 { try emit(produced == output.count ? output : Array(output[..<produced])) }
                if finish ? status == Z_STREAM_END : stream.pointee.avail_in == 0 && produced < output.count { break }
            }
        }
        stream.pointee.next_in = nil
    }
}
