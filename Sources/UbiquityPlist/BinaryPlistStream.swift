/// A binary plist written from a walk its caller drives instead of from a `PlistValue` tree:
/// the caller opens containers and gives keys and values in the order `BinaryPlistWriter`
/// walks a tree (pre-order, dictionary keys in UTF-8 byte order, each key before its value),
/// and gets the very bytes the tree would have given. Lets a large document (a transaction
/// log) be written without building its tree.
package struct BinaryPlistStream {
    /// An open container: its object number and where its references start.
    package struct Container {
        package let object: Int
        let start: Int
        let count: Int
        let isDictionary: Bool
    }

    /// A string whose text is written later (`fill`): a checksum over what follows it.
    package struct Reservation {
        package let object: Int
        let bytes: Int
        let length: Int
    }

    private var writer = BinaryPlistWriter.started()

    package init() {}

    /// A stream expecting about `objects` objects and `bytes` bytes (room made once).
    package init(objects: Int, bytes: Int) {
        writer.reserve(objects: objects, bytes: bytes)
    }

    /// Opens a dictionary of `count` entries; give them with `key` and `value`/`child`, by key order.
    package mutating func openDictionary(count: Int) -> Container {
        let (object, start) = writer.open(marker: 0xD0, count: count)
        return Container(object: object, start: start, count: count, isDictionary: true)
    }

    package mutating func openArray(count: Int) -> Container {
        let (object, start) = writer.open(marker: 0xA0, count: count)
        return Container(object: object, start: start, count: count, isDictionary: false)
    }

    /// The key of entry `index` of a dictionary (before the entry's value).
    package mutating func key(_ key: String, at index: Int, of container: Container) {
        writer.setReference(container.start + index, to: writer.key(key))
    }

    /// Entry `index` of a container: a value written whole (scalars, small containers).
    package mutating func value(_ value: PlistValue, at index: Int, of container: Container) {
        let object = writer.flatten(value)
        writer.setReference(container.start + (container.isDictionary ? container.count : 0) + index, to: object)
    }

    /// Entry `index` of a container: a container opened just now (its entries follow).
    package mutating func child(_ child: Container, at index: Int, of container: Container) {
        writer.setReference(container.start + (container.isDictionary ? container.count : 0) + index, to: child.object)
    }

    /// Entry `index` of a container: an ASCII string of `length` bytes written later by `fill`.
    package mutating func reserveString(length: Int, at index: Int, of container: Container) -> Reservation {
        let (object, bytes) = writer.reserveASCIIString(length: length)
        writer.setReference(container.start + (container.isDictionary ? container.count : 0) + index, to: object)
        return Reservation(object: object, bytes: bytes, length: length)
    }

    /// Whether a string object with this text was written: a reserved string of the same text
    /// would have been shared with it by the tree's writer.
    package func hasString(_ text: String) -> Bool { writer.strings[ExactString(text)] != nil }

    package mutating func fill(_ reservation: Reservation, with ascii: [UInt8]) {
        precondition(ascii.count == reservation.length && ascii.allSatisfy { $0 < 0x80 }, "a reserved string takes ASCII of its length")
        writer.fill(reservation.bytes, with: ascii)
    }

    /// The finished file.
    package mutating func finish() -> [UInt8] { writer.finish() }
}
