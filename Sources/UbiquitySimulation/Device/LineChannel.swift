import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// JSON values one per line over a pair of file descriptors: how the runner talks to a device
/// process (its stdin and stdout).
final class LineChannel {
    private let input: Int32
    private let output: Int32
    private var buffer: [UInt8] = []
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()

    init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    func send<Value: Encodable>(_ value: Value) throws {
        var bytes = [UInt8](try encoder.encode(value))
        bytes.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw SimulationError("the other side closed the channel (\(String(cString: strerror(errno))))") }
            offset += written
        }
    }

    /// The next value, or `nil` at the end of the input.
    func receive<Value: Decodable>(_ type: Value.Type) throws -> Value? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                do { return try decoder.decode(type, from: Data(line)) } catch {
                    throw SimulationError("unreadable message: \(String(decoding: line.prefix(200), as: UTF8.self))")
                }
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }
}
