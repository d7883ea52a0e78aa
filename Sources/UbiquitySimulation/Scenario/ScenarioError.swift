/// A scenario file that cannot be read or run as written: the file, the line and what is wrong.
public struct ScenarioError: Error, CustomStringConvertible, Sendable {
    public let source: String
    /// 1-based; 0 when the problem is not on one line.
    public let line: Int
    public let message: String

    public init(source: String, line: Int, _ message: String) {
        self.source = source
        self.line = line
        self.message = message
    }

    /// `first-launch.scenario:12: unknown step 'lanch'`
    public var description: String { line > 0 ? "\(source):\(line): \(message)" : "\(source): \(message)" }
}
