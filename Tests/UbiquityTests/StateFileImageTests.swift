import Foundation
import Testing
@testable import Ubiquity
@testable import UbiquityCore
import UbiquityTestSupport

/// A baseline roll builds the merge state in memory (`stateFileImage`) instead of writing the
/// state file: the bytes must be a database holding exactly what the file holds.
@Suite("The state built in memory is the state file")
struct StateFileImageTests {
    /// Every table's schema and rows, in a fixed order, of the SQLite file at `path`.
    static func contents(_ path: String) throws -> [String] {
        let database = try SQLiteDatabase(path: path, readOnly: true)
        let tables = try database.statement("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
            .rows { (name: $0.string(0) ?? "", sql: $0.string(1) ?? "") }
        var lines = tables.map(\.sql)
        for table in tables where table.sql.hasPrefix("CREATE TABLE") {
            let rows = try database.statement("SELECT * FROM \(SQLiteDatabase.quote(table.name))").rows { row in
                (0..<row.columnCount).map { "\(row.value($0))" }.joined(separator: "|")
            }
            lines += rows.sorted().map { table.name + ": " + $0 }
        }
        return lines
    }

    @Test(arguments: SeededGenerator.testSeeds([4, 5]))
    func imageHoldsWhatTheFileHolds(seed: UInt64) throws {
        let cloud = try TestCloud(model: RandomNotesWorkload.model, contentName: "Random")
        let peers = try cloud.peers(3)
        var workload = RandomNotesWorkload(seed: seed)
        for _ in 0..<200 { _ = try workload.step(on: workload.pick(peers)!) }
        for _ in 0..<2 { for peer in peers { _ = try peer.sync() } }
        let peer = peers[0]
        let filePath = cloud.root + "/state-file.sqlite", imagePath = cloud.root + "/state-image.sqlite"
        let fileKnowledge = try peer.store.writeStateFile(to: filePath)
        let (image, imageKnowledge) = try peer.store.stateFileImage()
        try image.withUnsafeBytes { try AtomicFile.write(Array($0), to: imagePath) }
        #expect(imageKnowledge == fileKnowledge, "seed \(seed)")
        let fileContents = try Self.contents(filePath)
        #expect(fileContents.count > 20, "seed \(seed): the state holds rows")
        #expect(try Self.contents(imagePath) == fileContents, "seed \(seed)")
        // And a newcomer joining the image ends where the store is.
        let joiner = try cloud.peer("joiner", policy: nil)
        _ = try joiner.store.joinStateFile(at: imagePath, knowledge: imageKnowledge)
        _ = try joiner.sync()
        #expect(try joiner.mergeStateText() == peer.mergeStateText(), "seed \(seed)")
    }
}
