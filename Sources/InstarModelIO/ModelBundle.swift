import Foundation
@_spi(Layouts) import InstarModel

/// A versioned Xcode data model: an `.xcdatamodeld` folder with one `.xcdatamodel` folder per version.
///
/// Migration needs every version, not just the current one: a store on a user's device may have been
/// written by any earlier release, and a progressive migration walks from that version to the current
/// one. Xcode records which version is current (`.xccurrentversion`) but no order of the versions, so
/// they are ordered by natural name order ("Foo", "Foo 2", …, "Foo 10"), which matches how Xcode names
/// new versions. Callers that need another order can use the names; the hashes identify versions.
package struct ModelBundle: Sendable {
    /// The bundle's name: the folder name without `.xcdatamodeld`.
    package let name: String
    /// The path of the `.xcdatamodeld` folder as given.
    package let path: String
    /// Every version, in natural name order.
    package let versions: [Model]
    /// The version Xcode marks as current (from `.xccurrentversion`, without `.xcdatamodel`), if recorded.
    package let currentVersionName: String?

    /// Wraps versions already read; ``read(xcdatamodeld:)`` reads them from disk.
    package init(name: String, path: String, versions: [Model], currentVersionName: String?) {
        self.name = name
        self.path = path
        self.versions = versions
        self.currentVersionName = currentVersionName
    }

    /// The version of that name (the `.xcdatamodel` folder name without extension), or nil.
    package func version(named name: String) -> Model? {
        versions.first { $0.name == name }
    }

    /// The current version; the last in natural order when the bundle records none.
    package var currentVersion: Model? {
        if let currentVersionName { return version(named: currentVersionName) }
        return versions.last
    }

    /// Reads every version in the bundle and its current-version marker.
    ///
    /// A compiled `.momd` folder is read with ``read(momd:)``, so that every caller that opens a bundle
    /// (a plan's `bundle:`, the CLI) accepts the compiled models apps ship as well as their sources.
    /// - Throws: ``ModelError`` with the problems of all versions together, so one run shows them all.
    package static func read(xcdatamodeld url: URL) throws(ModelError) -> ModelBundle {
        if url.pathExtension.lowercased() == "momd" { return try read(momd: url) }
        let folder = url.standardizedFileURL
        let location = SourceLocation(file: folder.path)
        let entries = try listFolder(folder, what: "model bundle folder", hint: "pass the path of an .xcdatamodeld folder")
        let versionFolders = NaturalOrder.sorted(
            entries
                .filter { $0.hasSuffix(".xcdatamodel") && !$0.hasPrefix(".") }
                .filter { entry in
                    var isFolder: ObjCBool = false
                    return FileManager.default.fileExists(
                        atPath: folder.appendingPathComponent(entry).path, isDirectory: &isFolder) && isFolder.boolValue
                }
                .map { folder.appendingPathComponent($0, isDirectory: true) },
            byName: XcodeModelReader.modelName(ofFolder:))

        var problems: [ModelProblem] = []
        if versionFolders.isEmpty {
            problems.append(
                ModelProblem(
                    .unreadable, "the bundle contains no .xcdatamodel version", location: location,
                    hint: "an .xcdatamodeld folder holds one '<Name>.xcdatamodel' folder per model version"))
        }
        var versions: [Model] = []
        let interner = EntityInterner()
        for versionFolder in versionFolders {
            do {
                versions.append(try XcodeModelReader.read(xcdatamodel: versionFolder, sharing: interner))
            } catch {
                problems += error.problems
            }
        }

        var currentVersionName: String?
        do {
            currentVersionName = try readCurrentVersionName(in: folder)
        } catch {
            problems += error.problems
        }
        let names = versionFolders.map { XcodeModelReader.modelName(ofFolder: $0) }
        if let current = currentVersionName, !names.contains(current) {
            var problem = ModelProblem(
                .invalidValue, "the current version '\(current)' is not in the bundle",
                location: SourceLocation(file: folder.appendingPathComponent(".xccurrentversion").path),
                hint: names.isEmpty
                    ? nil : "versions present: " + names.map { "'\($0)'" }.joined(separator: ", "))
            problem.value = current
            problems.append(problem)
        }

        if !problems.isEmpty { throw ModelError(problems) }
        let bundleName = folder.lastPathComponent
        let suffix = ".xcdatamodeld"
        return ModelBundle(
            name: bundleName.hasSuffix(suffix) ? String(bundleName.dropLast(suffix.count)) : bundleName,
            path: url.path,
            versions: versions,
            currentVersionName: currentVersionName)
    }

    /// `_XCCurrentVersionName` from `.xccurrentversion` (an XML plist such as
    /// `{ _XCCurrentVersionName = "Foo 2.xcdatamodel" }`), without the extension; nil when the file or the
    /// key is absent, which Xcode treats as "no version chosen".
    static func readCurrentVersionName(in folder: URL) throws(ModelError) -> String? {
        let file = folder.appendingPathComponent(".xccurrentversion")
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let location = SourceLocation(file: file.path)
        let plist: Any
        do {
            let data = try RegularFile.read(file.path)
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw ModelError(
                ModelProblem(
                    .syntax, "cannot read the current-version marker: \(error.localizedDescription)",
                    location: location,
                    hint: "it should be a property list with the key _XCCurrentVersionName; "
                        + "choose the current version in Xcode to rewrite it"))
        }
        guard let dictionary = plist as? [String: Any] else {
            throw ModelError(
                ModelProblem(
                    .syntax, "the current-version marker is not a dictionary", location: location,
                    hint: "it should be a property list with the key _XCCurrentVersionName"))
        }
        guard let value = dictionary["_XCCurrentVersionName"] else { return nil }
        guard let text = value as? String else {
            throw ModelError(
                ModelProblem(.invalidValue, "_XCCurrentVersionName is not a string", location: location))
        }
        return XcodeModelReader.modelName(ofFolderNamed: text)
    }

    /// The entries of a bundle folder (source or compiled), or an error saying it is not one.
    static func listFolder(_ folder: URL, what: String, hint: String) throws(ModelError) -> [String] {
        let location = SourceLocation(file: folder.path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw ModelError(ModelProblem(.unreadable, "no such \(what)", location: location, hint: hint))
        }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw ModelError(
                ModelProblem(.unreadable, "cannot list the folder: \(error.localizedDescription)", location: location))
        }
    }
}
