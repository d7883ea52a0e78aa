
extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw CLIError(message) }
        return self
    }
}
