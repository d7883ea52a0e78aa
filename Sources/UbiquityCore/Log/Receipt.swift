import Foundation
import UbiquityBase
import UbiquityPlist

/// A peer's receipt (`receipt.0.cdt`): the knowledge it has imported, and when. Other peers
/// read receipts to know how far behind each peer is, and garbage collection to know what all
/// peers have passed.
public struct Receipt: Sendable, Equatable {
    public var peerID: String
    public var knowledge: KnowledgeVector
    /// Seconds since 1970.
    public var date: Double
    public var modelVersionHash: String
    /// The content epoch of the knowledge (`nil`: content never removed).
    public var contentEpoch: String?
    /// The knowledge of the baseline this peer saw as current (`nil`: none, or an older
    /// receipt). A file-sync tool can replace a baseline by a concurrent one that covers less,
    /// so a peer deletes its own logs only once every peer's baseline covers them too.
    public var baselineKnowledge: KnowledgeVector?

    public var plistValue: PlistValue {
        var fields: [String: PlistValue] = [
            "format": .integer(1),
            "peerID": .string(peerID),
            "kvStr": .string(knowledge.description),
            "date": .real(date),
            "modelVersionHash": .string(modelVersionHash),
        ]
        if let contentEpoch { fields["contentEpoch"] = .string(contentEpoch) }
        if let baselineKnowledge { fields["baselineKvStr"] = .string(baselineKnowledge.description) }
        return .dictionary(fields)
    }

    public init(peerID: String, knowledge: KnowledgeVector, date: Double, modelVersionHash: String, contentEpoch: String? = nil,
                baselineKnowledge: KnowledgeVector? = nil) {
        self.peerID = peerID
        self.knowledge = knowledge
        self.date = date
        self.modelVersionHash = modelVersionHash
        self.contentEpoch = contentEpoch
        self.baselineKnowledge = baselineKnowledge
    }

    public init(decoding bytes: [UInt8]) throws(LogError) {
        let plist: PlistValue
        do { plist = try PlistSeam.decode(bytes) } catch { throw .unparseable("\(error)") }
        guard plist["format"]?.int64Value == 1 else { throw .malformed("receipt: missing or unknown format") }
        guard let peer = plist["peerID"]?.stringValue, let kv = plist["kvStr"]?.stringValue.flatMap(KnowledgeVector.init(string:)),
              let hash = plist["modelVersionHash"]?.stringValue else {
            throw .malformed("receipt: missing peerID, kvStr or modelVersionHash")
        }
        let date = plist["date"]?.doubleValue ?? 0
        guard date.isFinite else { throw .malformed("receipt: 'date' is not a finite number") }
        self.init(peerID: peer, knowledge: kv, date: date, modelVersionHash: hash,
                  contentEpoch: plist["contentEpoch"]?.stringValue,
                  baselineKnowledge: plist["baselineKvStr"]?.stringValue.flatMap(KnowledgeVector.init(string:)))
    }
}
