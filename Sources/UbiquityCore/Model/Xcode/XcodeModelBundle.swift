import Foundation
import UbiquityBase
import UbiquityPlist

/// An Xcode versioned model (`.xcdatamodeld`): a folder of model versions (`.xcdatamodel`
/// folders) and `.xccurrentversion`, a property list whose `_XCCurrentVersionName` names the
/// version the app uses.
public struct XcodeModelBundle: Sendable {
    public let path: String
    /// The versions' names (folder names without `.xcdatamodel`), in Xcode's natural order
    /// (`MyApp`, `MyApp 2`, `MyApp 10`).
    public let versions: [String]
    /// The version `.xccurrentversion` names (the only version when there is no such file);
    /// when it names none (Xcode writes `<dict/>` until a current version is picked), the last
    /// version in natural order, with a note.
    public let currentVersion: String
    /// What was noted about the bundle itself (a current version chosen by the rule above).
    public let notes: [ModelNote]

    /// Opens the bundle at `path`; its versions are read when asked for.
    public init(path: String) throws(ModelError) {
        self.path = path
        let names = DirectoryEntry.list(path).filter { $0.isDirectory && $0.name.hasSuffix(".xcdatamodel") }.map(\.name)
        guard !names.isEmpty else { throw .unreadableFile(path, "a versioned model (.xcdatamodeld) with no .xcdatamodel version in it") }
        versions = names.map { String($0.dropLast(".xcdatamodel".count)) }.sorted(by: Self.naturallyPrecedes)
        var notes: [ModelNote] = []
        let marker = path + "/.xccurrentversion"
        if DirectoryEntry.at(marker) != nil {
            let plist: PlistValue
            do { plist = try PlistSeam.decode(try AtomicFile.read(marker, limit: 1 << 20, followingLinks: true)) } catch { throw .unreadableFile(marker, "\(error)") }
            guard plist.dictionaryValue != nil else { throw .unreadableFile(marker, "not a dictionary") }
            guard let named = plist["_XCCurrentVersionName"]?.stringValue, !named.isEmpty else {
                currentVersion = versions[versions.count - 1]
                if versions.count > 1 {
                    notes.append(ModelNote(.warning, file: marker, "names no current version (no _XCCurrentVersionName): using '\(currentVersion)', the last of \(versions.joined(separator: ", ")) in Xcode's order"))
                }
                self.notes = notes
                return
            }
            let version = named.hasSuffix(".xcdatamodel") ? String(named.dropLast(".xcdatamodel".count)) : named
            guard versions.contains(version) else {
                throw .unreadableFile(marker, "names version '\(named)', which the bundle does not hold (it holds \(versions.joined(separator: ", ")))")
            }
            currentVersion = version
        } else {
            guard versions.count == 1 else {
                throw .unreadableFile(path, "no .xccurrentversion says which of its \(versions.count) versions is current")
            }
            currentVersion = versions[0]
        }
        self.notes = notes
    }

    /// Xcode's natural order of names, as Finder sorts them: runs of digits compare as numbers
    /// (`Model 2` before `Model 10`), other text case-insensitively, a name before its
    /// continuations (`Model` before `Model 2`).
    public static func naturallyPrecedes(_ lhs: String, _ rhs: String) -> Bool {
        func runs(_ text: String) -> [(isNumber: Bool, text: String)] {
            var result: [(Bool, String)] = []
            for character in text {
                let digit = character.isASCII && character.isNumber
                if let last = result.last, last.0 == digit { result[result.count - 1].1.append(character) } else { result.append((digit, String(character))) }
            }
            return result
        }
        let left = runs(lhs), right = runs(rhs)
        for (a, b) in zip(left, right) {
            if a.isNumber && b.isNumber {
                let x = a.text.drop { $0 == "0" }, y = b.text.drop { $0 == "0" }
                if x.count != y.count { return x.count < y.count }
                if x != y { return x < y }
            } else {
                let x = a.text.lowercased(), y = b.text.lowercased()
                if x != y { return x < y }
            }
        }
        if left.count != right.count { return left.count < right.count }
        return lhs < rhs
    }

    /// The model of `version` (with or without `.xcdatamodel`); the current one when `nil`.
    public func model(version: String? = nil) throws(ModelError) -> ObjectModel {
        let name = version.map { $0.hasSuffix(".xcdatamodel") ? String($0.dropLast(".xcdatamodel".count)) : $0 } ?? currentVersion
        guard versions.contains(name) else {
            throw .unreadableFile(path, "no version '\(name)' (versions: \(versions.joined(separator: ", ")))")
        }
        var model = try ObjectModel.loadXcodeModel(at: path + "/" + name + ".xcdatamodel")
        if version == nil { model.notes = notes + model.notes }
        return model
    }
}

extension ObjectModel {
    /// Loads a model file in any form the library reads:
    /// - an Xcode versioned model (`.xcdatamodeld`): its current version, or `version`;
    /// - an Xcode model version (`.xcdatamodel`, a folder holding `contents`), or its `contents` file;
    /// - a property-list model file (binary or XML, `ubiq model write` makes one).
    public static func load(contentsOf path: String, version: String? = nil) throws(ModelError) -> ObjectModel {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let entry = DirectoryEntry.at(trimmed) else { throw .unreadableFile(path, "no such file or folder") }
        if entry.isDirectory {
            if trimmed.hasSuffix(".xcdatamodeld") || DirectoryEntry.at(trimmed + "/.xccurrentversion") != nil {
                return try XcodeModelBundle(path: trimmed).model(version: version)
            }
            guard version == nil else { throw .unreadableFile(path, "a single model version has no versions to choose from") }
            return try loadXcodeModel(at: trimmed)
        }
        guard version == nil else { throw .unreadableFile(path, "a model file has no versions to choose from (give an .xcdatamodeld)") }
        let bytes: [UInt8]
        do { bytes = try AtomicFile.read(trimmed, limit: 16 << 20, followingLinks: true) } catch { throw .unreadableFile(path, error.message) }
        if looksLikeXcodeContents(bytes) {
            let folder = (trimmed as NSString).deletingLastPathComponent
            return try XcodeModelReader(file: trimmed).read(bytes, name: modelName(ofVersionFolder: folder))
        }
        return try loadPlist(contentsOf: trimmed)
    }

    /// Loads one Xcode model version: the `contents` file in the `.xcdatamodel` folder.
    static func loadXcodeModel(at folder: String) throws(ModelError) -> ObjectModel {
        let contents = folder + "/contents"
        guard DirectoryEntry.at(contents) != nil else {
            if DirectoryEntry.at(folder + "/elements") != nil {
                throw .unreadableFile(folder, "an Xcode 3 model (a binary 'elements' archive, no 'contents'): open and save it in Xcode 4 or later")
            }
            throw .unreadableFile(folder, "no 'contents' file: not an Xcode model version")
        }
        let bytes: [UInt8]
        do { bytes = try AtomicFile.read(contents, limit: 16 << 20, followingLinks: true) } catch { throw .unreadableFile(contents, error.message) }
        return try XcodeModelReader(file: contents).read(bytes, name: modelName(ofVersionFolder: folder))
    }

    private static func modelName(ofVersionFolder folder: String) -> String {
        let last = (folder as NSString).lastPathComponent
        return last.hasSuffix(".xcdatamodel") ? String(last.dropLast(".xcdatamodel".count)) : "Model"
    }

    /// Whether a file is XML whose root element is `<model>` (a plist's is `<plist>`).
    private static func looksLikeXcodeContents(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        guard let model = head.range(of: "<model") else { return false }
        return head.range(of: "<plist").map { model.lowerBound < $0.lowerBound } ?? true
    }
}

extension XcodeModelBundle {
    /// Every version's model in Xcode's order: what a store on any of them walks through to
    /// the version it is opened with (`ModelVersions.steps(from:to:)`).
    public func modelVersions() throws(ModelError) -> ModelVersions {
        var models: [ObjectModel] = []
        for name in versions { models.append(try model(version: name)) }
        return ModelVersions(models)
    }
}
