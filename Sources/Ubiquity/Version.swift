/// The library's version, as `ubiq --version` prints it.
public enum UbiquityVersion {
    public static let string = "0.1.0"
}
