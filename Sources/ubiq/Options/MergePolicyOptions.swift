import ArgumentParser
import Ubiquity

/// `--merge-policy` and `--expect` of `update` and `delete`: a stale read stated outright, so a
/// conflict (Docs/MergePolicies.md) happens from the command line and the policy decides it.
struct MergePolicyOptions: ParsableArguments {
    @Option(name: .customLong("merge-policy"),
            help: ArgumentHelp("How a conflict with the store is resolved (Docs/MergePolicies.md).", valueName: "policy"))
    var mergePolicy: MergePolicyName = .error

    @Option(help: ArgumentHelp("A value the change was made against (repeatable): when the store now holds another, the change conflicts and the merge policy decides.",
                               valueName: "attr=value"))
    var expect: [String] = []

    /// `id` in a new context of `peer`, read as `--expect` says, with the merge policy set.
    func object(_ id: GlobalID, in context: ObjectContext) throws -> ManagedObject {
        context.mergePolicy = mergePolicy.policy
        let entity = try context.store.model.entity(named: id.entity)
        var expected: [String: ReadValue] = [:]
        for text in expect {
            let assignment = try PropertyAssignment(parsing: text)
            guard expected[assignment.name] == nil else { throw CLIError("--expect names \(assignment.name) twice") }
            expected[assignment.name] = try assignment.readValue(in: entity)
        }
        guard let object = try context.object(id, asRead: expected) else { throw StoreError.objectNotFound(id) }
        return object
    }

    /// Saves `context`: a conflict refused by the `error` policy becomes one line naming the
    /// object, each property, the store's value and yours; each one resolved is printed with
    /// its outcome.
    func save(_ context: ObjectContext) throws {
        do {
            try context.save()
        } catch let error as MergeConflictsError {
            throw CLIError(error.conflicts.map { Self.refusal($0, store: context.store) }.joined(separator: "; ") + " (merge policy error: nothing saved)")
        }
        for conflict in context.resolvedConflicts {
            let now = try context.store.snapshot(of: conflict.object)
            Console.out(Self.outcome(conflict, now: now, policy: mergePolicy, store: context.store))
        }
    }

    /// The properties in conflict: changed in the store since the read (and, for an update, changed here too).
    static func properties(_ conflict: MergeConflict) -> [String] {
        Set(conflict.snapshot.keys).union(conflict.persisted.keys).sorted().filter { name in
            conflict.snapshot[name] != conflict.persisted[name] && (conflict.kind != .updated || conflict.changes[name] != nil)
        }
    }

    static func refusal(_ conflict: MergeConflict, store: PersistentStore) -> String {
        let entity = store.model.entity(conflict.object.entity)
        func show(_ name: String, _ value: AttributeValue??) -> String { text(value ?? nil, name: name, entity: entity) }
        switch conflict.kind {
        case .updated:
            return properties(conflict).map { name in
                "\(conflict.object).\(name) changed in the store since it was read: the store has \(show(name, conflict.persisted[name])), yours \(show(name, conflict.changes[name]))"
            }.joined(separator: "; ")
        case .deletedInContext:
            let changed = properties(conflict).map { "\($0) \(show($0, conflict.persisted[$0])) in the store, read \(show($0, conflict.snapshot[$0]))" }
            return "\(conflict.object) changed in the store since it was read (\(changed.joined(separator: ", "))): your delete conflicts"
        case .deletedInStore:
            return "\(conflict.object) was deleted in the store since it was read: your change conflicts"
        case .uniqueness:
            return "\(conflict.object) holds the values of a uniqueness constraint your new object has"
        }
    }

    static func outcome(_ conflict: MergeConflict, now: ObjectSnapshot?, policy: MergePolicyName, store: PersistentStore) -> String {
        let entity = store.model.entity(conflict.object.entity)
        func show(_ name: String, _ value: AttributeValue??) -> String { text(value ?? nil, name: name, entity: entity) }
        guard let now else { return "conflict on \(conflict.object) resolved by \(policy.rawValue): deleted" }
        let current = ObjectContext.flatten(now)
        let names = properties(conflict)
        switch conflict.kind {
        case .deletedInContext:
            return "conflict on \(conflict.object) resolved by \(policy.rawValue): the delete was dropped; "
                + names.map { "\($0)=\(show($0, current[$0]))" }.joined(separator: " ")
        case .uniqueness:
            return "the new object merged into \(conflict.object) by \(policy.rawValue) (a uniqueness constraint)"
        case .updated, .deletedInStore:
            return names.map { name in
                "conflict on \(conflict.object).\(name) resolved by \(policy.rawValue): the store had \(show(name, conflict.persisted[name])), yours \(show(name, conflict.changes[name])); now \(show(name, current[name]))"
            }.joined(separator: "\n")
        }
    }

    /// A value as `fetch` prints it: strings quoted, a to-one target as its global ID.
    static func text(_ value: AttributeValue?, name: String, entity: EntityDescription?) -> String {
        if entity?.relationship(name) != nil, case let .string(target)? = value { return target }
        return ObjectText.text(value)
    }
}
