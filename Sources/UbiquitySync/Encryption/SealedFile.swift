import Crypto
import Foundation
import UbiquityBase

/// The sealed form of a cloud file of encrypted content (Docs/ContainerFormat.md, "Encryption").
///
/// A 60-byte header — magic `UBQSEAL` + 0x01, the cipher (1 = AES-256-GCM), the chunk size as a
/// power of two, two zero bytes, the content key's ID (16 bytes) and a random salt (32 bytes) —
/// then the plaintext in chunks of 64 KiB, each sealed with AES-256-GCM under a key made for this
/// file alone (HKDF-SHA256 of the content key and the salt), so nonces can simply count: the
/// chunk's number, with a flag on the last chunk. Every chunk authenticates the header, so a
/// changed header, chunks swapped or dropped, or a file cut at any byte fails to open.
package enum SealedFile {
    static let magic: [UInt8] = Array("UBQSEAL".utf8) + [1]
    static let cipherAESGCM: UInt8 = 1
    static let chunkShift: UInt8 = 16
    static let chunkSize = 1 << 16
    static let tagSize = 16
    static let saltSize = 32
    static let headerSize = magic.count + 4 + ContentKey.idSize + saltSize

    /// Whether `bytes` begin like a sealed file (what every reader asks first: files of content
    /// written before encryption was turned on stay readable as they are).
    package static func isSealed(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count >= magic.count && bytes.prefix(magic.count).elementsEqual(magic)
    }

    /// Whether the regular file at `path` begins like a sealed file (only its first bytes are read).
    package static func isSealedFile(_ path: String) -> Bool {
        guard let descriptor = try? AtomicFile.openRegularFile(path) else { return false }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: magic.count)
        return pread(descriptor, &head, head.count, 0) == head.count && isSealed(head)
    }

    /// The ID (hex) of the content key the regular file at `path` is sealed under, read from its
    /// header; `nil` when it is not a sealed file.
    package static func keyID(ofFile path: String) -> String? {
        guard let descriptor = try? AtomicFile.openRegularFile(path) else { return nil }
        defer { close(descriptor) }
        let idStart = magic.count + 4
        var head = [UInt8](repeating: 0, count: idStart + ContentKey.idSize)
        guard pread(descriptor, &head, head.count, 0) == head.count, isSealed(head) else { return nil }
        return ContentKey.hex(Array(head[idStart...]))
    }

    /// The largest sealed file whose plaintext is at most `limit` bytes.
    package static func sealedSize(ofAtMost limit: Int) -> Int {
        limit > Int.max / 2 ? limit : limit + headerSize + (limit / chunkSize + 1) * tagSize
    }

    /// The sealed form of `plaintext` under `key`.
    package static func seal(_ plaintext: [UInt8], key: ContentKey) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(plaintext.count + headerSize + (plaintext.count / chunkSize + 1) * tagSize)
        var offset = 0
        try seal(key: key, read: { count in
            let end = min(plaintext.count, offset + count)
            defer { offset = end }
            return Array(plaintext[offset..<end])
        }, write: { output.append(contentsOf: $0) })
        return output
    }

    /// The plaintext of the sealed `bytes`; throws `SealError` when they are not whole, were
    /// altered, or are sealed under another key.
    package static func open(_ bytes: [UInt8], key: ContentKey) throws(SealError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var offset = 0
        try open(key: key, read: { count in
            let end = min(bytes.count, offset + count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }, write: { output.append(contentsOf: $0) })
        return output
    }

    /// Seals the file at `source` into `target` (a new file), a chunk at a time: a baseline may
    /// be far larger than memory should hold.
    package static func sealFile(_ source: String, to target: String, key: ContentKey) throws {
        guard let input = FileHandle(forReadingAtPath: source) else { throw FileError(path: source, operation: "read", message: "cannot be opened") }
        defer { try? input.close() }
        let output = try createFile(target)
        defer { try? output.close() }
        try seal(key: key, read: { count in Array(try input.read(upToCount: count) ?? Data()) },
                 write: { try output.write(contentsOf: $0) })
        try output.synchronize()
    }

    /// Opens the sealed file open at `descriptor` (read from its start) into `target` (a new
    /// file, mode 0600), a chunk at a time.
    package static func openFile(descriptor: Int32, to target: String, key: ContentKey) throws {
        lseek(descriptor, 0, SEEK_SET)
        let input = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        let output = try createFile(target)
        defer { try? output.close() }
        do {
            try open(key: key, read: { (count: Int) throws(SealError) -> [UInt8] in
                do { return Array(try input.read(upToCount: count) ?? Data()) } catch { throw SealError.unreadable("\(error)") }
            }, write: { (bytes: [UInt8]) throws(SealError) in
                do { try output.write(contentsOf: bytes) } catch { throw SealError.unreadable("\(error)") }
            })
        } catch {
            unlink(target)
            throw error
        }
    }

    /// Seals what `read` yields (a chunk at a most per call; empty at the end) into `write`.
    package static func sealStream(key: ContentKey, read: (Int) throws -> [UInt8], write: ([UInt8]) throws -> Void) throws {
        try seal(key: key, read: read, write: write)
    }

    /// Opens the sealed file at `descriptor` (from its start), handing the plaintext to
    /// `write` a chunk at a time.
    package static func openStream(descriptor: Int32, key: ContentKey, write: ([UInt8]) throws -> Void) throws {
        lseek(descriptor, 0, SEEK_SET)
        let input = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        var failure: Error?
        do {
            try open(key: key, read: { (count: Int) throws(SealError) -> [UInt8] in
                do { return Array(try input.read(upToCount: count) ?? Data()) } catch { throw SealError.unreadable("\(error)") }
            }, write: { (bytes: [UInt8]) throws(SealError) in
                do { try write(bytes) } catch {
                    failure = error
                    throw SealError.unreadable("\(error)")
                }
            })
        } catch {
            throw failure ?? error
        }
    }

    private static func createFile(_ path: String) throws -> FileHandle {
        unlink(path)
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError(path: path, operation: "create", errno: errno) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    // MARK: The chunked construction

    private static func seal(key: ContentKey, read: (Int) throws -> [UInt8], write: ([UInt8]) throws -> Void) throws {
        var salt = [UInt8](repeating: 0, count: saltSize)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: .min ... .max, using: &generator) }
        let header = magic + [cipherAESGCM, chunkShift, 0, 0] + key.id + salt
        try write(header)
        // Data, not arrays, into swift-crypto: its generic byte paths are not specialised for
        // arrays across the module boundary and cost more than the cipher itself.
        let authenticated = Data(header)
        let fileKey = key.fileKey(salt: salt)
        var number: UInt64 = 0
        var chunk = try read(chunkSize)
        while true {
            // One chunk ahead: the last one (possibly empty) carries the flag.
            let next = chunk.count == chunkSize ? try read(chunkSize) : []
            let isLast = next.isEmpty
            let box = try AES.GCM.seal(Data(chunk), using: fileKey, nonce: nonce(number, isLast: isLast), authenticating: authenticated)
            var sealed = [UInt8](box.ciphertext)
            sealed.append(contentsOf: box.tag)
            try write(sealed)
            if isLast { return }
            chunk = next
            number += 1
        }
    }

    private static func open(key: ContentKey, read: (Int) throws(SealError) -> [UInt8], write: ([UInt8]) throws(SealError) -> Void) throws(SealError) {
        let header = try read(headerSize)
        guard header.count == headerSize, isSealed(header) else { throw .damaged("shorter than its header") }
        guard header[magic.count] == cipherAESGCM, header[magic.count + 1] == chunkShift else {
            throw .damaged("an unknown cipher or chunk size (this build writes and reads AES-256-GCM in 64 KiB chunks)")
        }
        let idStart = magic.count + 4
        guard Array(header[idStart..<idStart + ContentKey.idSize]) == key.id else {
            throw .otherKey(ContentKey.hex(Array(header[idStart..<idStart + ContentKey.idSize])))
        }
        let fileKey = key.fileKey(salt: Array(header[(idStart + ContentKey.idSize)...]))
        let authenticated = Data(header)
        let segment = chunkSize + tagSize
        var number: UInt64 = 0
        var current = try read(segment)
        while true {
            guard current.count >= tagSize else { throw .damaged("cut short (chunk \(number) is incomplete)") }
            let next = current.count == segment ? try read(segment) : []
            let isLast = next.isEmpty
            do {
                let box = try AES.GCM.SealedBox(nonce: nonce(number, isLast: isLast), ciphertext: Data(current[..<(current.count - tagSize)]),
                                                tag: Data(current[(current.count - tagSize)...]))
                try write([UInt8](try AES.GCM.open(box, using: fileKey, authenticating: authenticated)))
            } catch let error as SealError {
                throw error
            } catch {
                throw .damaged("chunk \(number) fails authentication (altered, cut short or reordered)")
            }
            if isLast { return }
            current = next
            number += 1
        }
    }

    /// Twelve bytes: the last-chunk flag, three zero bytes, the chunk's number (big-endian).
    private static func nonce(_ number: UInt64, isLast: Bool) throws -> AES.GCM.Nonce {
        var bytes: [UInt8] = [isLast ? 1 : 0, 0, 0, 0]
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
        return try AES.GCM.Nonce(data: bytes)
    }
}

/// Why a sealed file cannot be opened.
package enum SealError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Not whole, altered, or not a sealed file at all: treated as a damaged file.
    case damaged(String)
    /// Sealed under another content key (`keyID`) than this device holds.
    case otherKey(String)
    case unreadable(String)

    package var description: String {
        switch self {
        case let .damaged(reason): return "sealed file fails authentication: \(reason)"
        case let .otherKey(id): return "sealed under another content key (\(id)) than this device holds"
        case let .unreadable(reason): return "sealed file cannot be read: \(reason)"
        }
    }
}
