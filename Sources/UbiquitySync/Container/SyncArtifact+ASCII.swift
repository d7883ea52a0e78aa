import UbiquityBase

extension SyncArtifact {
    /// `SyncArtifact.classify` for a name of ASCII bytes: the same rules, on bytes (no
    /// `String` search or grapheme walk; in ASCII only CR LF is a character of two bytes, and no
    /// pattern begins with LF or ends with CR, so each test means what the `String` one does).
    struct ASCIIName {
        let bytes: UnsafeBufferPointer<UInt8>

        func artifact() -> SyncArtifact? {
            if hasSuffix(ContainerLocation.temporarySuffix) { return nil }
            if let copy = conflictCopy() { return copy }
            if (hasPrefix(".syncthing.") || hasPrefix("~syncthing~")) && hasSuffix(".tmp") { return .temporary(engine: "Syncthing") }
            if hasSuffix(".!sync") { return .temporary(engine: "Resilio Sync") }
            if hasPrefix(".unison.") { return .temporary(engine: "Unison") }
            if hasPrefix("."), find(".~", from: 0) != nil { return .temporary(engine: "Nextcloud") }
            for suffix in [".part", ".partial", ".crdownload", ".download"] where hasSuffix(suffix) {
                return .temporary(engine: "a download in progress")
            }
            if hasPrefix("."), bytes.count > 1 { return .temporary(engine: "a file-sync tool") }
            return nil
        }

        private func conflictCopy() -> SyncArtifact? {
            let marker = ".sync-conflict-"
            if let start = find(marker, from: 0) {
                let rest = start + marker.utf8.count
                let extensionStart = bytes[rest...].firstIndex(of: UInt8(ascii: ".")) ?? bytes.count
                return .conflictCopy(of: text(0..<start) + text(extensionStart..<bytes.count), engine: "Syncthing")
            }
            if let open = find(" (", from: 0), let close = bytes[(open + 2)...].firstIndex(of: UInt8(ascii: ")")) {
                let inside = ASCIILowercased(bytes[(open + 2)..<close])
                guard inside.contains("conflict") else { return nil }
                let engine = inside.hasPrefix("icloud conflict") ? "iCloud"
                    : inside.contains("case conflict") || inside.contains("'s conflicted copy") ? "Dropbox" : "Nextcloud"
                return .conflictCopy(of: text(0..<open) + text((close + 1)..<bytes.count), engine: engine)
            }
            return nil
        }

        private func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }

        private func hasPrefix(_ prefix: String) -> Bool {
            let count = prefix.utf8.count
            return count <= bytes.count && prefix.utf8.elementsEqual(bytes[0..<count])
        }

        private func hasSuffix(_ suffix: String) -> Bool {
            let count = suffix.utf8.count
            return count <= bytes.count && suffix.utf8.elementsEqual(bytes[(bytes.count - count)...])
        }

        /// Where `needle` first starts at or after `from`.
        private func find(_ needle: String, from: Int) -> Int? {
            Self.find(Array(needle.utf8), in: bytes[...], from: from)
        }

        static func find(_ needle: [UInt8], in haystack: Slice<UnsafeBufferPointer<UInt8>>, from: Int) -> Int? {
            guard let first = needle.first, haystack.endIndex - from >= needle.count else { return nil }
            var index = from
            while index + needle.count <= haystack.endIndex {
                if haystack[index] == first, needle.indices.allSatisfy({ haystack[index + $0] == needle[$0] }) { return index }
                index += 1
            }
            return nil
        }
    }

    /// ASCII bytes lower-cased, searched as bytes.
    private struct ASCIILowercased {
        let bytes: [UInt8]

        init(_ slice: Slice<UnsafeBufferPointer<UInt8>>) {
            bytes = slice.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        }

        func contains(_ needle: String) -> Bool {
            bytes.withUnsafeBufferPointer { ASCIIName.find(Array(needle.utf8), in: $0[...], from: 0) != nil }
        }

        func hasPrefix(_ prefix: String) -> Bool { bytes.starts(with: prefix.utf8) }
    }
}
