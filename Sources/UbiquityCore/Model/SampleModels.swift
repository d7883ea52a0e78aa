extension ObjectModel {
    /// The built-in Notes model the CLI uses when no model file is given (its file is
    /// `containers/models/Notes.plist`).
    public static let notes: ObjectModel = {
        do {
            return try ObjectModel(name: "Notes", entities: [
                EntityDescription("Folder",
                    attributes: [AttributeDescription("name", .string, optional: false, default: .string(""))],
                    relationships: [RelationshipDescription("notes", destination: "Note", inverse: "folder", toMany: true, deleteRule: .cascade)]),
                EntityDescription("Note",
                    attributes: [
                        AttributeDescription("title", .string, optional: false, default: .string("")),
                        AttributeDescription("body", .string),
                        AttributeDescription("created", .date),
                        AttributeDescription("pinned", .boolean, optional: false, default: .boolean(false)),
                    ],
                    relationships: [
                        RelationshipDescription("folder", destination: "Folder", inverse: "notes"),
                        RelationshipDescription("tags", destination: "Tag", inverse: "notes", toMany: true),
                    ]),
                EntityDescription("Tag",
                    attributes: [AttributeDescription("name", .string, optional: false, default: .string(""))],
                    relationships: [RelationshipDescription("notes", destination: "Note", inverse: "tags", toMany: true)]),
            ])
        } catch {
            fatalError("the built-in Notes model is invalid: \(error)")
        }
    }()
}
