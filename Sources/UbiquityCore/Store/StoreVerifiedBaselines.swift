// Baseline files this store has verified (their state matched its checksum), by file signature:
// a baseline is extracted and checked once, not at every sync of every process.
extension PersistentStore {
    package func verifiedBaselines() throws -> Set<String> {
        try locked { Set((try meta(.verifiedBaselines) ?? "").split(separator: "\n").map(String.init)) }
    }

    package func setVerifiedBaselines(_ signatures: Set<String>) throws {
        try locked { try setMeta(.verifiedBaselines, signatures.sorted().joined(separator: "\n")) }
    }
}
