import UbiquityCore

/// A second copy of a file that iCloud (and engines that copy its habits) delivers beside the
/// file under a numbered name: `name 2.ext`, `name 3.ext`, … when a file arrives again while
/// the first delivery is still there. Unlike a conflict copy it is no other version: a log is
/// only ever written with the same bytes, so a copy of one holds the same transaction — or is
/// a damaged delivery of it, which the reader's checks catch as for any log.
///
/// Only copies of the files of a log folder are recognised — transaction logs and the
/// receipt — and only when taking the number out leaves exactly such a name: anything else in
/// a peer folder stays foreign (Docs/ContainerFormat.md).
package enum DuplicateCopy {
    /// The highest copy number recognised: engines count up from 2, and a bound keeps a
    /// hostile name from passing for a copy by its length alone.
    static let maximumCopyNumber = 9_999

    /// The name of the log or receipt that `name` is a numbered copy of, when it is one: the
    /// original's name with ` N` (N from 2, no leading zero) put before its first extension
    /// (`0000000001-<UUID> 2.1.cdt`, as iCloud and the emulated daemon name them) or before
    /// its last (`0000000001-<UUID>.1 2.cdt`, as a tool that sees only `.cdt` as the extension does).
    /// A copy of a copy (`name 2 2.ext`, the copy delivered twice in turn) is a copy of the
    /// first original, up to `maximumDepth` numbers (a daemon that duplicates every transfer makes long chains).
    package static func original(of name: String) -> String? {
        var name = name
        for _ in 0..<maximumDepth {
            guard let stripped = strippingCopyNumber(name) else { return nil }
            if TransactionLog.transactionNumber(inFileName: stripped) != nil || stripped == ContainerLocation.receiptName { return stripped }
            name = stripped
        }
        return nil
    }

    /// Copies of copies recognised at most.
    static let maximumDepth = 32

    /// `name` without the copy number before its first or last extension, when it has one.
    private static func strippingCopyNumber(_ name: String) -> String? {
        // Every such name is ASCII and ends in `.cdt`; most names of a listing stop here.
        guard name.hasSuffix(".cdt"), name.utf8.count <= 128, name.utf8.allSatisfy({ $0 < 0x80 }), name.contains(" ") else { return nil }
        let bytes = Array(name.utf8)
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        for dot in Set([dots.first, dots.last].compactMap { $0 }).sorted() {
            guard let space = bytes[..<dot].lastIndex(of: UInt8(ascii: " ")), space > 0 else { continue }
            let digits = bytes[(space + 1)..<dot]
            guard (1...4).contains(digits.count), digits.first != UInt8(ascii: "0"),
                  digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let number = Int(String(decoding: digits, as: UTF8.self)), (2...maximumCopyNumber).contains(number) else { continue }
            return String(decoding: bytes[..<space] + bytes[dot...], as: UTF8.self)
        }
        return nil
    }
}
