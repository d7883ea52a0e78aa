/// An open `<plist>`, `<array>` or `<dict>` while an XML plist is read, and what it holds so
/// far: one type for the libxml2 reader and the fast scanner, so both build values alike.
struct XMLPlistContainer {
    enum Kind { case plist, array, dictionary }

    let kind: Kind
    var elements: [PlistValue] = []
    var entries: [String: PlistValue] = [:]
    /// A dictionary's key read and waiting for its value.
    var key: String?

    init(kind: Kind) {
        self.kind = kind
        // Growing a dictionary one entry at a time rehashes it at 1, 2, 3 and 6 entries: room
        // for the usual record's handful of keys up front avoids most of that.
        if kind == .dictionary { entries.reserveCapacity(6) }
    }

    /// Puts `value` in the next slot: the next element, or the value of the waiting key (the
    /// caller has checked there is one).
    /// Returns false for a key that differs from one already there only in Unicode
    /// normalisation: a `Dictionary` would keep one of the two.
    mutating func add(_ value: PlistValue) -> Bool {
        switch kind {
        case .plist, .array:
            elements.append(value)
        case .dictionary:
            let key = key!
            self.key = nil
            if entries.updateValue(value, forKey: key) != nil, !entries.keys[entries.index(forKey: key)!].isExactly(key) { return false }
        }
        return true
    }

    /// What a closed array or dictionary stands for. A dictionary whose one entry is `CF$UID`
    /// is CoreFoundation's XML form of a keyed archive's UID.
    var closedValue: PlistValue {
        guard kind == .dictionary else { return .array(elements) }
        if entries.count == 1, let uid = entries["CF$UID"] {
            if case let .integer(value) = uid, value >= 0 { return .uid(UInt64(value)) }
            if case let .unsignedInteger(value) = uid { return .uid(value) }
        }
        return .dictionary(entries)
    }
}
