/// The two on-disk forms of a property list.
public enum PlistFormat: String, Sendable, CaseIterable {
    case binary
    case xml
}
