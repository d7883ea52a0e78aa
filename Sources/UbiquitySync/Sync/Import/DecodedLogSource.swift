import UbiquityBase
import UbiquityCore

/// Where the admit stage gets each candidate's decoded log: decoded ahead on a second core
/// (`LogDecodePipeline`) or on the calling thread when asked. Either way the logs are
/// admitted, ordered and merged by the same code.
protocol DecodedLogSource {
    /// Candidate `index`'s outcome, decoding it now or waiting for it.
    func outcome(at index: Int) -> Importer.DecodeOutcome
    /// Told once candidate `index` has been admitted (or turned away).
    func admitted(_ index: Int)
}

/// Logs decoded on a second core, ahead of the merge; its worker reports the progress.
struct PipelinedDecoding: DecodedLogSource {
    let pipeline: LogDecodePipeline<Importer.DecodeOutcome>

    func outcome(at index: Int) -> Importer.DecodeOutcome { pipeline.outcome(at: index) }
    func admitted(_ index: Int) {}
}

/// Logs decoded on the calling thread, one after the other, each as it is admitted.
struct InlineDecoding: DecodedLogSource {
    let candidates: [Importer.Candidate]
    let location: ContainerLocation
    let model: ObjectModel
    let maxLogBytes: Int
    let checks: AdmissionChecks
    let activity: ActivityReporter?

    func outcome(at index: Int) -> Importer.DecodeOutcome {
        Importer.decode(candidates[index], location: location, model: model, maxLogBytes: maxLogBytes, keepingBytes: true,
                        epoch: checks.epoch, now: checks.now)
    }

    func admitted(_ index: Int) { activity?.advance(bytes: candidates[index].entry.size) }
}
