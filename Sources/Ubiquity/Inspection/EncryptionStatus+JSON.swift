import UbiquityBase

extension EncryptionStatus {
    /// `{state, plaintextFiles, scrypt?, keyID?, created, passphraseChanged, alteredRecord?}` (`ubiq encryption status --json`); dates in seconds since 1970.
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = ["state": .string(state.name), "plaintextFiles": .array(plaintextFiles.map(JSONValue.string))]
        if let parameters {
            fields["scrypt"] = .object(["logN": .int(Int64(parameters.logN)), "r": .int(Int64(parameters.r)), "p": .int(Int64(parameters.p))])
        }
        if case let .sealed(keyID) = state { fields["keyID"] = .string(keyID) }
        fields["created"] = created.map { .double($0.timeIntervalSince1970) } ?? .null
        fields["passphraseChanged"] = passphraseChanged.map { .double($0.timeIntervalSince1970) } ?? .null
        if let alteration { fields["alteredRecord"] = .string(alteration.description) }
        return .object(fields)
    }
}
