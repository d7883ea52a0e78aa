import Foundation
import Ubiquity

/// The objects the suites write: `Note` rows (title, body, created, pinned). Ubiquity and raw
/// SQLite get exactly the same values, so their times compare the same work.
struct NoteRow {
    let key: String
    let title: String
    let body: String
    let created: Double
    let pinned: Bool

    var gid: String { "Note/" + key }

    /// `count` rows with random UUID keys (so both sides insert in the same random key order).
    static func make(_ count: Int, from first: Int = 0) -> [NoteRow] {
        (first..<first + count).map { index in
            NoteRow(key: UUID().uuidString, title: "title \(index)", body: "body of note \(index)",
                    created: 1_700_000_000 + Double(index), pinned: index % 2 == 0)
        }
    }

    /// The title an update gives the row.
    var updatedTitle: String { title + " (edited)" }

    /// The record a context writes for this row as a new object: every attribute, every to-one.
    var insertRecord: ChangeRecord {
        ChangeRecord(id: try! GlobalID(entity: "Note", key: key),
                     values: ["title": .string(title), "body": .string(body), "created": .date(secondsSince1970: created),
                              "pinned": .boolean(pinned)],
                     relationships: ["folder": .toOne(nil)])
    }

    /// The record a context writes when only the title changed.
    var updateRecord: ChangeRecord {
        ChangeRecord(id: try! GlobalID(entity: "Note", key: key), values: ["title": .string(updatedTitle)])
    }

    /// Sets the row's values on a new object of a context (the save suite's path).
    func fill(_ note: ManagedObject) {
        note["title"] = .string(title)
        note["body"] = .string(body)
        note["created"] = .date(secondsSince1970: created)
        note["pinned"] = .boolean(pinned)
    }
}

extension RandomAccessCollection where Index == Int {
    /// Consecutive slices of at most `size` elements.
    func chunks(of size: Int) -> [SubSequence] {
        stride(from: startIndex, to: endIndex, by: Swift.max(1, size)).map { self[$0..<Swift.min(endIndex, $0 + Swift.max(1, size))] }
    }
}
