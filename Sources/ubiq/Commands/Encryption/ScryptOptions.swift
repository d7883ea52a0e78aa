import ArgumentParser
import Ubiquity

/// `--scrypt-log-n`, `--scrypt-r`, `--scrypt-p`: the cost of deriving the key from the passphrase.
struct ScryptOptions: ParsableArguments {
    @Option(name: .customLong("scrypt-log-n"), help: "log2 of scrypt's rounds, 10 to 20 (default 15: 32 MiB, about 0.1 s); at most 256 MiB with r.") var logN: Int?
    @Option(name: .customLong("scrypt-r"), help: "scrypt's block size, 1 to 16 (default 8).") var r: Int?
    @Option(name: .customLong("scrypt-p"), help: "scrypt's parallelism, 1 to 4 (default 1).") var p: Int?

    var isGiven: Bool { logN != nil || r != nil || p != nil }

    func parameters(from base: ScryptParameters = .standard) -> ScryptParameters {
        ScryptParameters(logN: logN ?? base.logN, r: r ?? base.r, p: p ?? base.p)
    }
}
