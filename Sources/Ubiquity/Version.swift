/// The library's version, as `ubiq --version` prints it.
public enum UbiquityVersion {
    public static let string = "0.1.0"

    /// What deflates and inflates baselines in this build: "zlib", or "ISA-L" under the
    /// package's `FastDeflate` trait.
    public static let deflateEngine = BlockDeflater.engine
}
