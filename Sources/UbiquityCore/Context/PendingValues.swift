/// The attribute values a `ManagedObject` holds unsaved. An object read from the store holds
/// its changes by name; a new one holds them by index of its entity's attributes
/// (`AttributeLayout`, the model's order), so setting a value hashes no name, and its insert
/// record is laid out the same way: the merge binds it by column and the log writer orders it
/// once per layout (`ChangeRecord.init(id:layout:values:)`).
struct PendingValues {
    /// The names the values lie by, for a new object; `nil`: held by name.
    let layout: AttributeLayout?
    /// By index of `layout` (`.none`: not set); empty until the first value is set.
    private(set) var byIndex: [AttributeValue??] = []
    /// How many of `byIndex` are set.
    private(set) var count = 0
    private var byName: [String: AttributeValue?] = [:]

    init(layout: AttributeLayout?) {
        self.layout = layout
    }

    var isEmpty: Bool { layout == nil ? byName.isEmpty : count == 0 }

    /// The names of the values set (by name: in the dictionary's order; laid out: in the model's).
    var names: [String] {
        guard let layout else { return Array(byName.keys) }
        return byIndex.indices.compactMap { index in if case .some = byIndex[index] { layout.names[index] } else { nil } }
    }

    /// The values set, by name.
    var dictionary: [String: AttributeValue?] {
        guard let layout else { return byName }
        var result = [String: AttributeValue?](minimumCapacity: count)
        for index in byIndex.indices { if case let .some(value) = byIndex[index] { result[layout.names[index]] = .some(value) } }
        return result
    }

    /// The value set for `name` (`.none`: none); setting `.none` removes it.
    subscript(name: String) -> AttributeValue?? {
        get {
            guard let layout else { return byName[name] }
            guard !byIndex.isEmpty, let index = layout.names.firstIndex(of: name) else { return .none }
            return byIndex[index]
        }
        set {
            guard let layout else { byName[name] = newValue; return }
            // A name the layout does not hold cannot be set: `ManagedObject` sets only its entity's attributes.
            guard let index = layout.names.firstIndex(of: name) else { return }
            set(newValue, at: index)
        }
    }

    /// Sets the value at `index` of `layout` (`.none`: removes it).
    mutating func set(_ value: AttributeValue??, at index: Int) {
        if byIndex.isEmpty {
            guard case .some = value else { return }
            byIndex = Array(repeating: .none, count: layout!.names.count)
        }
        let wasSet = if case .some = byIndex[index] { true } else { false }
        let isSet = if case .some = value { true } else { false }
        count += (isSet ? 1 : 0) - (wasSet ? 1 : 0)
        byIndex[index] = value
    }

    mutating func removeAll() {
        byName.removeAll()
        byIndex.removeAll()
        count = 0
    }
}
