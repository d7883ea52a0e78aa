/// A mistake in what the user asked for that the library cannot name (a malformed
/// `attr=value`, conflicting options); its text is the whole error line.
struct CLIError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
