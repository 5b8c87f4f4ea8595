import Foundation
import InstarModel

/// Opens any model reference a user can type: a YAML/JSON model file, an `.xcdatamodel` folder, or an
/// `.xcdatamodeld` bundle (its current version, or a named one with `Bundle.xcdatamodeld#Version`).
public enum ModelLoader {
    public static func load(_ reference: String) throws(ModelError) -> Model {
        var path = reference
        var versionName: String?
        if let hash = reference.range(of: ".xcdatamodeld#") {
            path = String(reference[..<hash.upperBound].dropLast())
            versionName = String(reference[hash.upperBound...])
        }
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ModelError(
                ModelProblem(
                    .unreadable, "no such file or folder", location: SourceLocation(file: path),
                    hint: "pass a .yaml/.yml/.json model file, an .xcdatamodel folder or an .xcdatamodeld bundle"))
        }
        switch url.pathExtension.lowercased() {
        case "xcdatamodel":
            return try XcodeModelReader.read(xcdatamodel: url)
        case "xcdatamodeld":
            let bundle = try ModelBundle.read(xcdatamodeld: url)
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
        default:
            if isDirectory.boolValue {
                throw ModelError(
                    ModelProblem(
                        .unreadable, "a folder that is not an .xcdatamodel or .xcdatamodeld",
                        location: SourceLocation(file: path),
                        hint: "pass a model file, an .xcdatamodel folder or an .xcdatamodeld bundle"))
            }
            return try ModelFileReader.read(path: path)
        }
    }
}
