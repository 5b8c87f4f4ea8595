import Foundation
@_spi(Layouts) import InstarModel

/// Some versions of a compiled bundle: those a store's migration needs, found without decoding the others.
package struct CompiledSelection: Sendable {
    /// The bundle with only the versions decoded (in natural name order); its current version is the
    /// folder's, as a full read gives it.
    package var bundle: ModelBundle
    /// The version whose recorded hashes are the store's.
    package var storeVersion: String
    /// The version the chain goes to: the one asked for, else the bundle's current version.
    package var target: String
    /// How many versions the folder holds, decoded or not (the planner searches a bundle's versions
    /// for a lossless chain only up to a number of them).
    package var versionCount: Int
}

extension ModelBundle {
    /// Reads from a `.momd` folder only the store's version and the target, finding the store's version
    /// by the hashes momc recorded in `VersionInfo.plist` rather than by decoding every `.mom`: an app
    /// with 90 versions decodes 2 at launch.
    ///
    /// The versions decoded are checked against their recorded hashes exactly as ``read(momd:)`` checks
    /// them, so a version Instar would hash wrongly is still refused. Returns nil, for the caller to read
    /// every version, whenever the recorded facts cannot stand in for the full read: no `VersionInfo.plist`
    /// or no hashes in it, a recorded version without its `.mom` or a current version absent (which the
    /// full read refuses with its own words), an unknown target, or not exactly one version recorded
    /// with the store's hashes.
    /// - Parameters:
    ///   - storeHashes: the store's `NSStoreModelVersionHashes`.
    ///   - target: the version to migrate to; nil for the folder's current version.
    /// - Throws: ``ModelError`` when a version needed cannot be decoded or hashes otherwise than recorded.
    package static func read(momd url: URL, versionsOf storeHashes: [String: Data], to target: String?)
        throws(ModelError) -> CompiledSelection?
    {
        let folder = url.standardizedFileURL
        guard !storeHashes.isEmpty,
            let entries = try? listFolder(folder, what: "compiled model folder", hint: ""),
            case let files = versionFiles(among: entries, in: folder),
            case let names = files.map(CompiledModelReader.modelName(ofFile:)),
            let info = try? CompiledVersionInfo.read(in: folder), !info.entityHashes.isEmpty,
            Set(info.entityHashes.keys).isSubset(of: names),
            let current = info.currentVersionName ?? names.last, names.contains(current)
        else { return nil }
        let goal = target ?? current
        let matching = info.entityHashes.filter { $0.value == storeHashes }.map(\.key)
        guard matching.count == 1, names.contains(goal) else { return nil }
        let wanted: Set<String> = [matching[0], goal]
        var versions: [Model] = []
        var problems: [ModelProblem] = []
        let interner = EntityInterner()
        for file in files where wanted.contains(CompiledModelReader.modelName(ofFile: file)) {
            do {
                let model = try CompiledModelReader.read(mom: file, sharing: interner)
                let disagreements = info.disagreements(with: model, file: file.path)
                if disagreements.isEmpty { versions.append(model) } else { problems += disagreements }
            } catch {
                problems += error.problems
            }
        }
        if !problems.isEmpty { throw ModelError(problems) }
        let bundle = ModelBundle(
            name: compiledBundleName(of: folder), path: url.path, versions: versions,
            currentVersionName: info.currentVersionName)
        return CompiledSelection(bundle: bundle, storeVersion: matching[0], target: goal, versionCount: files.count)
    }
}
