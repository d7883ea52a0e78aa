import UbiquitySync

extension ContainerReport {
    /// The transaction logs (`*.1.cdt`) among `files`, with their states; paths relative to the ubiquity root.
    public var logFiles: [(path: String, state: FileState)] { files.filter { $0.path.hasSuffix(".1.cdt") } }
}
