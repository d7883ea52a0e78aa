import Foundation
import Ubiquity

/// The same work with the content encrypted and not: saves (commit and export of logs of 100
/// objects), a fresh peer's import of them, a baseline roll, and a newcomer joining the
/// baseline. The ratio is what sealing and opening cost (AES-256-GCM, chunked; the scrypt
/// derivation happens once per device and is left out).
struct EncryptionFigures {
    let save: Measurement
    let importing: Measurement
    let roll: Measurement
    let join: Measurement
    let cloudBytes: Int64

    static let passphrase = "bench passphrase"

    static func measure(encrypted: Bool, count: Int, runs: Int) throws -> EncryptionFigures {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let cloud = BenchCloud(root: scratch.path)
        let rows = NoteRow.make(count)
        let writer = try cloud.peer("writer")
        defer { writer.close() }
        if encrypted { try writer.enableEncryption(passphrase: passphrase, parameters: .fast) }
        func newPeer(_ prefix: String) throws -> (String, UbiquityPeer) {
            let name = BenchCloud.freshName(prefix)
            let peer = try cloud.peer(name)
            if encrypted { try peer.unlockEncryption(passphrase: passphrase) }
            return (name, peer)
        }

        // Saves: the rows in `runs` parts, each timed per transaction of 100.
        var saveSamples: [Double] = []
        let parts = rows.chunks(of: max(100, count / runs))
        for part in parts {
            let chunks = part.chunks(of: 100)
            let time = try seconds { for chunk in chunks { try writer.write(inserted: chunk.map(\.insertRecord)) } }
            saveSamples.append(time / Double(chunks.count))
        }

        var importSamples: [Double] = [], rollSamples: [Double] = []
        for run in 0..<runs {
            let (name, reader) = try newPeer("reader")
            let logs = Int(writer.store.knowledge[writer.peerID])   // the saves, and one change per roll before
            var applied = 0
            importSamples.append(try seconds { applied = try reader.importAvailable().applied.count })
            guard applied == logs, try reader.store.count(FetchRequest(entity: "Note")) == count else {
                throw BenchmarkError("the reader imported \(applied) of \(logs) logs")
            }
            reader.close()
            cloud.removeDevice(name)
            try? FileManager.default.removeItem(atPath: reader.location!.ubiquityRoot + "/" + reader.peerID)
            // Each roll covers one change more.
            try writer.write(updated: [rows[run].updateRecord])
            var decision: BaselineDecision?
            rollSamples.append(try seconds { decision = try writer.rollBaseline(force: true) })
            guard case .rolled = decision else { throw BenchmarkError("no baseline rolled: \(decision?.reason ?? "")") }
        }
        var cloudBytes: Int64 = 0
        if let walker = FileManager.default.enumerator(atPath: cloud.cloud) {
            while let relative = walker.nextObject() as? String { cloudBytes += DirectoryEntry.at(cloud.cloud + "/" + relative)?.size ?? 0 }
        }

        // Join: the logs hidden, a newcomer can only start from the baseline.
        let logDirectory = cloud.logDirectory(of: writer), hidden = scratch.path + "/hidden"
        guard rename(logDirectory, hidden) == 0 else { throw BenchmarkError("cannot hide the logs") }
        defer { _ = rename(hidden, logDirectory) }
        var joinSamples: [Double] = []
        for _ in 0..<runs {
            let (name, newcomer) = try newPeer("newcomer")
            var summary: SyncSummary?
            joinSamples.append(try seconds { summary = try newcomer.sync() })
            guard summary?.adoptedBaseline == writer.peerID, try newcomer.store.count(FetchRequest(entity: "Note")) == count else {
                throw BenchmarkError("the newcomer did not start from the baseline")
            }
            newcomer.close()
            cloud.removeDevice(name)
            try? FileManager.default.removeItem(atPath: newcomer.location!.ubiquityRoot + "/" + newcomer.peerID)
        }
        return EncryptionFigures(save: Measurement(samples: saveSamples), importing: Measurement(samples: importSamples),
                                 roll: Measurement(samples: rollSamples), join: Measurement(samples: joinSamples), cloudBytes: cloudBytes)
    }
}

enum EncryptionBenchmarks {
    static func run(_ options: BenchmarkOptions) throws -> String {
        let count = options.smoke ? 1_000 : 20_000
        let runs = options.smoke ? 1 : 3
        let plain = try EncryptionFigures.measure(encrypted: false, count: count, runs: runs)
        let sealed = try EncryptionFigures.measure(encrypted: true, count: count, runs: runs)
        var table = MarkdownTable("Encryption on vs off", ["what", "objects", "not encrypted", "encrypted", "time ratio"])
        for (what, objects, off, on) in [("save, per transaction of 100", 100, plain.save, sealed.save),
                                         ("import by a fresh peer", count, plain.importing, sealed.importing),
                                         ("baseline roll", count, plain.roll, sealed.roll),
                                         ("join of the baseline by a newcomer", count, plain.join, sealed.join)] {
            table.add([what, Measurement.grouped(objects), off.text, on.text, Comparison(ours: on, reference: off).times])
        }
        table.add(["bytes in the cloud after the rolls", Measurement.grouped(count), Measurement.grouped(Int(plain.cloudBytes)),
                   Measurement.grouped(Int(sealed.cloudBytes)), String(format: "%.2f×", Double(sealed.cloudBytes) / Double(max(1, plain.cloudBytes)))])
        table.notes = [
            "The same fixture twice, once with `enableEncryption` (scrypt at `ScryptParameters.fast`, derived once and left out of every figure): the writer saves N objects",
            "as logs of 100 (commit and export: each log sealed), a fresh peer imports them all (each opened), the writer rolls a baseline (the zip made on the device,",
            "then sealed into the cloud as it streams) after one change, and a newcomer whose logs are hidden syncs from the baseline (opened into the device, then joined).",
            "Median of \(runs) run(s), (min–max).",
        ]
        return table.text
    }
}
