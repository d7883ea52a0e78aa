/// Paths as reports and listings name them: relative to the ubiquity root.
extension ContainerLocation {
    /// The file that `relativePath` (`<peer>/<content>/<hash>/<name>`, `.baseline/…`) names
    /// below this location's ubiquity root.
    public func path(relativeToRoot relativePath: String) -> String { "\(ubiquityRoot)/\(relativePath)" }
}
