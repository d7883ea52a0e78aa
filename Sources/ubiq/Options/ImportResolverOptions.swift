import ArgumentParser
import Ubiquity

/// `--import-resolver` of `sync` and `watch`: what an import does with a concurrent overwrite
/// it finds (`PeerConfiguration.importResolver`).
struct ImportResolverOptions: ParsableArguments {
    enum Name: String, ExpressibleByArgument, CaseIterable {
        case keepWinner = "keep-winner", useLoser = "use-loser"
    }

    @Option(name: .customLong("import-resolver"),
            help: ArgumentHelp("Which value of a concurrent overwrite stays: keep-winner (the larger stamp's) or use-loser (saved again for every peer).",
                               valueName: "resolver"))
    var importResolver: Name = .keepWinner

    /// Sets the configuration's resolver; `keep-winner` is the peer's own behaviour without one.
    func adjust(_ configuration: inout PeerConfiguration) {
        if importResolver == .useLoser { configuration.importResolver = { _ in .useLoser } }
    }
}
