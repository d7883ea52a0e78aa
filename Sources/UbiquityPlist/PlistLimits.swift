/// Bounds a reader enforces so that untrusted input cannot exhaust memory, time or stack.
public struct PlistLimits: Sendable {
    /// Deepest allowed nesting of arrays and dictionaries (a top-level scalar has depth 0).
    /// The readers recurse or keep a stack proportional to this, so keep it modest.
    public var maxDepth: Int
    /// Most values (containers and leaves, counting shared binary objects at every use) a
    /// single decode may produce. Bounds the work a small file with heavily shared
    /// references can cause.
    public var maxObjects: Int
    /// Largest accepted input, in bytes.
    public var maxBytes: Int

    public init(maxDepth: Int = 256, maxObjects: Int = 5_000_000, maxBytes: Int = 256 << 20) {
        self.maxDepth = maxDepth
        self.maxObjects = maxObjects
        self.maxBytes = maxBytes
    }

    /// Depth 256, 5 million objects, 256 MiB.
    public static let `default` = PlistLimits()
}
