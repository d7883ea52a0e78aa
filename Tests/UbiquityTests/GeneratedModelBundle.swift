import Foundation

/// An `.xcdatamodeld` of many versions written as Xcode writes one (`Garden`, `Garden 2` …,
/// each version's `contents` XML, `.xccurrentversion` naming the last), every version one
/// inferable change from the one before: an attribute added, one with a default, an attribute
/// renamed (its `elementID` naming the name it had), an entity added; and once each, an
/// entity renamed (`Bed` → `Plot` at 40, `Plant` → `Crop` at 50) and a relationship renamed
/// (`bed` → `plot` at 60). With `retypedAt`, that version turns `height` into a string: the
/// one step that cannot be inferred.
struct GeneratedModelBundle {
    let path: String
    let count: Int
    let retypedAt: Int?

    /// Writes the bundle into `folder`.
    init(in folder: String, versions count: Int, retypedAt: Int? = nil) throws {
        path = folder + "/Garden.xcdatamodeld"
        self.count = count
        self.retypedAt = retypedAt
        for version in 1...count {
            let directory = path + "/" + Self.name(of: version) + ".xcdatamodel"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(contents(of: version).utf8).write(to: URL(fileURLWithPath: directory + "/contents"))
        }
        let current = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>_XCCurrentVersionName</key>
            \t<string>\(Self.name(of: count)).xcdatamodel</string>
            </dict>
            </plist>

            """
        try Data(current.utf8).write(to: URL(fileURLWithPath: path + "/.xccurrentversion"))
    }

    /// Xcode's name of the `version`th version (the first has no number).
    static func name(of version: Int) -> String { version == 1 ? "Garden" : "Garden \(version)" }

    /// The names the bed and plant entities, and a plant's bed relationship, have at `version`.
    static func bedEntity(at version: Int) -> String { version >= 40 ? "Plot" : "Bed" }
    static func plantEntity(at version: Int) -> String { version >= 50 ? "Crop" : "Plant" }
    static func bedRelationship(at version: Int) -> String { version >= 60 ? "plot" : "bed" }

    /// The name version 1's `tag` attribute has at `version`: renamed at every version 3, 7, 11 ….
    static func tagName(at version: Int) -> String {
        let last = Array(stride(from: 3, through: version, by: 4)).last
        return last.map { "tag\($0)" } ?? "tag"
    }

    /// The versions that add a bed attribute required with default 7 (`count5`, `count9` …).
    static func countAttributes(at version: Int) -> [String] {
        stride(from: 5, through: version, by: 4).map { "count\($0)" }
    }

    /// The `contents` XML of `version`, as Xcode 16 writes it.
    func contents(of version: Int) -> String {
        let bed = Self.bedEntity(at: version), plant = Self.plantEntity(at: version), link = Self.bedRelationship(at: version)
        var entities: [(name: String, xml: String)] = []
        var bedLines = [attribute("label", optional: true, type: "String")]
        bedLines += Self.countAttributes(at: version).map { attribute($0, optional: false, type: "Integer 16", extra: #" defaultValueString="7" usesScalarValueType="YES""#) }
        bedLines.append(#"<relationship name="plants" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="\#(plant)" inverseName="\#(link)" inverseEntity="\#(plant)"/>"#)
        entities.append((bed, entity(bed, renamedFrom: version >= 40 ? "Bed" : nil, bedLines)))
        let retyped = retypedAt.map { version >= $0 } ?? false
        var plantLines = [attribute("name", optional: false, type: "String", extra: #" defaultValueString="""#),
                          attribute("height", optional: true, type: retyped ? "String" : "Integer 32", extra: retyped ? "" : #" usesScalarValueType="YES""#)]
        // Xcode keeps a renamed attribute's elementID: the name it had before its last renaming.
        let renamedAt = Array(stride(from: 3, through: version, by: 4)).last
        plantLines.append(attribute(Self.tagName(at: version), optional: true, type: "String",
                                    extra: renamedAt.map { #" elementID="\#(Self.tagName(at: $0 - 1))""# } ?? ""))
        plantLines += stride(from: 2, through: version, by: 4).map { attribute("extra\($0)", optional: true, type: "String") }
        plantLines.append(#"<relationship name="\#(link)" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="\#(bed)" inverseName="plants" inverseEntity="\#(bed)"\#(version >= 60 ? #" elementID="bed""# : "")/>"#)
        entities.append((plant, entity(plant, renamedFrom: version >= 50 ? "Plant" : nil, plantLines)))
        for tray in stride(from: 4, through: version, by: 4) {
            entities.append(("Tray\(tray)", entity("Tray\(tray)", renamedFrom: nil, [attribute("label", optional: true, type: "String")])))
        }
        let body = entities.sorted { $0.name < $1.name }.map(\.xml).joined()
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="23231" systemVersion="24A335" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            \(body)</model>

            """
    }

    private func attribute(_ name: String, optional: Bool, type: String, extra: String = "") -> String {
        #"<attribute name="\#(name)"\#(optional ? #" optional="YES""# : "") attributeType="\#(type)"\#(extra)/>"#
    }

    private func entity(_ name: String, renamedFrom: String?, _ lines: [String]) -> String {
        let id = renamedFrom.map { #" elementID="\#($0)""# } ?? ""
        return #"    <entity name="\#(name)" representedClassName="\#(name)"\#(id) syncable="YES" codeGenerationType="class">"# + "\n"
            + lines.map { "        " + $0 + "\n" }.joined() + "    </entity>\n"
    }
}
