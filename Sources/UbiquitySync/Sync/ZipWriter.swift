import Crypto
import CSystemZlib
import Foundation
import UbiquityBase
#if canImport(Glibc)
import Glibc
#endif

/// Writes a zip archive whose entries are deflated in parallel blocks (`BlockDeflater`) at a
/// level chosen by measurement (`BlockDeflater.defaultLevel`): ZIPFoundation, which reads
/// baselines, only deflates on one core at zlib's default level, which was most of a baseline
/// roll's time.
///
/// An entry is deflated in blocks on every core, each on its own; the blocks concatenate into
/// one valid deflate stream that any reader inflates. Blocks do not refer back into the one
/// before, which costs under 1 % at 256 KiB. Its CRC-32 (combined per block) and SHA-256 are computed in the same pass,
/// beside the deflating; its local header is completed in place when its sizes are known.
/// Sizes and offsets past 4 GiB use the ZIP64 extensions, so any store fits.
struct ZipWriter {
    private struct Entry {
        let name: [UInt8]
        let headerOffset: UInt64
        let usesZip64: Bool
        var crc: UInt32 = 0
        var compressedSize: UInt64 = 0
        var size: UInt64 = 0
    }

    /// Bytes deflated as one block, and blocks read and deflated together (bounding memory to
    /// twice a window). Small blocks share the cores evenly; each costs a flush marker and the
    /// matches it cannot make into the block before, so they are not tiny (Docs/Benchmarks.md,
    /// "Baseline roll").
    static let defaultBlockSize = 256 << 10
    static let blocksPerWindow = 128

    /// The levels the compiled-in engine deflates at.
    static let levels = BlockDeflater.levels

    let path: String
    private let descriptor: Int32
    private let level: Int32
    private let blockSize: Int
    /// Sizes and offsets at or above this use ZIP64 fields (lowered by tests to exercise them).
    private let zip64Threshold: UInt64
    private var offset: UInt64 = 0
    private var entries: [Entry] = []
    private let dosTime: UInt16, dosDate: UInt16
    private var isOpen = true

    /// Creates (or truncates) the archive at `path`. Call `finish()` to complete it, or
    /// `abandon()` to close it half-written. `blockSize` is lowered by tests to exercise many blocks.
    init(path: String, level: Int32, blockSize: Int = defaultBlockSize, zip64Threshold: UInt64 = UInt64(UInt32.max),
         date: Date = Date()) throws(FileError) {
        precondition(blockSize > 0 && blockSize <= 1 << 30, "a deflate block holds at least one byte, and fits the engines' 32-bit counts")
        guard Self.levels.contains(level) else {
            throw FileError(path: path, operation: "deflate", message: "no deflate level \(level) (\(BlockDeflater.engine) has \(Self.levels.lowerBound)–\(Self.levels.upperBound))")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "create", errno: errno) }
        self.path = path
        self.descriptor = descriptor
        self.level = level
        self.blockSize = blockSize
        self.zip64Threshold = zip64Threshold
        (dosTime, dosDate) = Self.dosDateTime(date)
    }

    /// Adds an entry holding `bytes`; returns their SHA-256 (lower-case hex).
    @discardableResult
    mutating func add(name: String, bytes: [UInt8]) throws -> String {
        try bytes.withUnsafeBytes { try add(name: name, bytes: $0) }
    }

    /// Adds an entry holding `bytes`, deflated where they are (no copy); returns their SHA-256
    /// (lower-case hex).
    @discardableResult
    mutating func add(name: String, bytes: UnsafeRawBufferPointer) throws -> String {
        try add(name: name, size: bytes.count) { start, count in UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)]) }
    }

    /// Adds an entry holding the regular file at `file`, read a window of blocks at a time;
    /// returns the SHA-256 (lower-case hex) of the bytes archived.
    @discardableResult
    mutating func add(name: String, contentsOf file: String) throws -> String {
        let descriptor = try AtomicFile.openRegularFile(file)
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileError(path: file, operation: "stat", errno: errno) }
        let archive = path
        let size = Int(status.st_size)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, min(size, blockSize * Self.blocksPerWindow)), alignment: 16)
        defer { buffer.deallocate() }
        return try add(name: name, size: size) { start, count in
            let window = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            var done = 0
            while done < count {
                let read = pread(descriptor, window.baseAddress! + done, count - done, off_t(start + done))
                if read < 0, errno == EINTR { continue }
                guard read >= 0 else { throw FileError(path: file, operation: "read", errno: errno) }
                guard read > 0 else { throw FileError(path: archive, operation: "write", message: "\(name) changed size while it was archived") }
                done += read
            }
            return UnsafeRawBufferPointer(window)
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

    /// Archives `size` bytes, a window at a time: `window(start, count)` gives the `count` bytes
    /// from `start`, valid until it is asked for the next window.
    private mutating func add(name: String, size: Int,
                              window: (Int, Int) throws -> UnsafeRawBufferPointer) throws -> String {
        // A deflated entry can outgrow its input by a few bytes per block: a size near the
        // limit reserves the ZIP64 fields too.
        var entry = Entry(name: Array(name.utf8), headerOffset: offset,
                          usesZip64: UInt64(size) >= zip64Threshold / 2 || offset >= zip64Threshold)
        try write(localHeader(entry))
        let blocks = max(1, (size + blockSize - 1) / blockSize)
        var crc = crc32(0, nil, 0)
        var hasher = SHA256()
        let compressors = CompressorPool(level: level)
        var firstBlock = 0
        while firstBlock < blocks {
            let lastBlock = min(blocks, firstBlock + Self.blocksPerWindow)
            let start = firstBlock * blockSize, end = min(size, lastBlock * blockSize)
            let bytes = try window(start, end - start)
            let work = DeflateWindow(buffer: bytes, windowOffset: start,
                                     blockSize: blockSize, blocks: firstBlock..<lastBlock, isLastWindow: lastBlock == blocks,
                                     totalSize: size, compressors: compressors, hasher: hasher)
            work.run()
            hasher = work.hasher
            for index in 0..<work.results.count {
                switch work.results[index] {
                case let .success(block):
                    crc = crc32_combine(crc, block.crc, Int(block.length))
                    try write(UnsafeRawBufferPointer(rebasing: block.output[..<block.produced]))
                case let .failure(failure):
                    throw FileError(path: path, operation: "deflate", message: "\(BlockDeflater.engine) failed (\(failure))")
                case nil:
                    throw FileError(path: path, operation: "deflate", message: "a block was never deflated")
                }
            }
            firstBlock = lastBlock
        }
        entry.crc = UInt32(crc)
        entry.size = UInt64(size)
        entry.compressedSize = offset - entry.headerOffset - UInt64(localHeader(entry).count)
        if !entry.usesZip64, entry.size >= zip64Threshold || entry.compressedSize >= zip64Threshold {
            throw FileError(path: path, operation: "write", message: "\(name) changed size while it was archived")
        }
        let header = localHeader(entry)
        let written = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(entry.headerOffset)) }
        guard written == header.count else { throw FileError(path: path, operation: "write", errno: errno) }
        entries.append(entry)
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
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
        let failure = bytes.withUnsafeBytes { Self.writeAll($0, to: descriptor) }
        guard failure == 0 else { throw FileError(path: path, operation: "write", errno: failure) }
        offset += UInt64(bytes.count)
    }

    private mutating func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        let failure = Self.writeAll(bytes, to: descriptor)
        guard failure == 0 else { throw FileError(path: path, operation: "write", errno: failure) }
        offset += UInt64(bytes.count)
    }

    /// Writes every byte; returns 0, or the `errno` of the write that failed.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
        var done = 0
        while done < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += count
        }
        return 0
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

/// One window of an entry, deflated block by block on every core while one more task hashes
/// it (SHA-256 must see the bytes in order; deflating and hashing overlap). Each task writes
/// only its own slot of `results`, the buffer is only read meanwhile, and the tasks share the
/// deflaters through the pool's lock: the unchecked `Sendable` is sound for `concurrentPerform`,
/// which returns when every task did.
private final class DeflateWindow: @unchecked Sendable {
    // @unchecked: each task writes only its own slot and takes deflaters from the pool under its lock.
    typealias Block = BlockDeflater.Block

    /// The window's bytes, the first at `windowOffset` of the entry.
    let buffer: UnsafeRawBufferPointer
    let windowOffset: Int, blockSize: Int
    let blocks: Range<Int>
    let isLastWindow: Bool
    let totalSize: Int
    let compressors: CompressorPool
    var hasher: SHA256
    /// One slot per block, each written by its task alone (not an array property: tasks that
    /// modify one property at the same time break Swift's exclusivity rule).
    let results: UnsafeMutableBufferPointer<Result<Block, BlockDeflater.Failure>?>

    init(buffer: UnsafeRawBufferPointer, windowOffset: Int, blockSize: Int, blocks: Range<Int>,
         isLastWindow: Bool, totalSize: Int, compressors: CompressorPool, hasher: SHA256) {
        self.buffer = buffer
        self.windowOffset = windowOffset
        self.blockSize = blockSize
        self.blocks = blocks
        self.isLastWindow = isLastWindow
        self.totalSize = totalSize
        self.compressors = compressors
        self.hasher = hasher
        results = .allocate(capacity: blocks.count)
        results.initialize(repeating: nil)
    }

    deinit {
        for case let .success(block)? in results { block.output.deallocate() }
        results.deinitialize()
        results.deallocate()
    }

    func run() {
        // The hash first: it is one task in order, and the blocks share the remaining cores.
        DispatchQueue.concurrentPerform(iterations: blocks.count + 1) { task in
            if task == 0 {
                hasher.update(bufferPointer: buffer)
                return
            }
            let index = task - 1, block = blocks.lowerBound + index
            let start = block * blockSize - windowOffset
            let end = min(totalSize, (block + 1) * blockSize) - windowOffset
            results[index] = Self.deflate(UnsafeRawBufferPointer(rebasing: buffer[start..<end]),
                                          finish: isLastWindow && block == blocks.upperBound - 1, compressors: compressors)
        }
    }

    /// One block deflated by an idle deflater of the pool.
    static func deflate(_ input: UnsafeRawBufferPointer, finish: Bool, compressors: CompressorPool) -> Result<Block, BlockDeflater.Failure> {
        let compressor = compressors.take()
        defer { compressors.give(compressor) }
        return compressor.deflate(input, finish: finish)
    }
}

/// The deflaters of one level, shared by the tasks of an entry (one per core at most): each
/// keeps its engine's state (ISA-L's work buffer is several hundred KiB), which a fresh one per
/// block would allocate and fault in again. It crosses threads only inside a `DeflateWindow`'s
/// run; `idle` is used only under `lock`, and a `BlockDeflater` by one task at a time.
private final class CompressorPool {
    let level: Int32
    private let lock = NSLock()
    private var idle: [BlockDeflater] = []

    init(level: Int32) { self.level = level }

    /// An idle compressor, or a new one.
    func take() -> BlockDeflater {
        lock.lock()
        let compressor = idle.popLast()
        lock.unlock()
        return compressor ?? BlockDeflater(level: level)
    }

    func give(_ compressor: BlockDeflater) {
        lock.lock()
        idle.append(compressor)
        lock.unlock()
    }
}
