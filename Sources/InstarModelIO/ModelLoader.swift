import Foundation
@_spi(Layouts) import InstarModel

/// Opens any model reference a user can type: a YAML/JSON model file, an `.xcdatamodel` folder, an
/// `.xcdatamodeld` bundle (its current version, or a named one with `Bundle.xcdatamodeld#Version`), or
/// their compiled forms as shipped in apps: a `.mom` file and a `.momd` folder (`Bundle.momd#Version`).
public enum ModelLoader {
    /// Reads and validates the model that `reference` names (see the type's documentation for the forms).
    ///
    /// - Throws: ``ModelError``: `.unreadable` when nothing is at the path, or every problem the model has.
    public static func load(_ reference: String) throws(ModelError) -> Model {
        var path = reference
        var versionName: String?
        if let hash = reference.range(of: ".xcdatamodeld#") ?? reference.range(of: ".momd#") {
            path = String(reference[..<hash.upperBound].dropLast())
            versionName = String(reference[hash.upperBound...])
        }
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ModelError(
                ModelProblem(
                    .unreadable, "no such file or folder", location: SourceLocation(file: path),
                    hint: "pass a .yaml/.yml/.json model file, an .xcdatamodel folder, an .xcdatamodeld bundle, "
                        + "or a compiled .mom file or .momd folder"))
        }
        switch url.pathExtension.lowercased() {
        case "xcdatamodel":
            return try XcodeModelReader.read(xcdatamodel: url)
        case "xcdatamodeld":
            return try version(versionName, of: ModelBundle.read(xcdatamodeld: url), path: path)
        case "mom":
            return try CompiledModelReader.read(mom: url)
        case "momd":
            return try version(versionName, of: ModelBundle.read(momd: url), path: path)
        default:
            if isDirectory.boolValue {
                throw ModelError(
                    ModelProblem(
                        .unreadable, "a folder that is not an .xcdatamodel, .xcdatamodeld or .momd",
                        location: SourceLocation(file: path),
                        hint: "pass a model file, an .xcdatamodel folder, an .xcdatamodeld bundle or a .momd folder"))
            }
            return try ModelFileReader.read(path: path)
        }
    }

    /// The version named after `#`, or the bundle's current version.
    private static func version(_ versionName: String?, of bundle: ModelBundle, path: String) throws(ModelError)
        -> Model
    {
        if let versionName {
            guard let model = bundle.version(named: versionName) else {
                let names = bundle.versions.map(\.name)
                throw ModelError(
                    ModelProblem(
                        .unreadable, "the bundle has no version '\(versionName)'",
                        location: SourceLocation(file: path),
                        hint: (Spelling.suggestion(for: versionName, among: names).map { $0 + " " } ?? "")
                            + "versions: \(names.joined(separator: ", "))"))
            }
            return model
        }
        guard let current = bundle.currentVersion else {
            throw ModelError(
                ModelProblem(.unreadable, "the bundle holds no model version", location: SourceLocation(file: path)))
        }
        return current
    }
}
