import Foundation
@_spi(Layouts) import InstarModel

extension ModelBundle {
    /// Reads a compiled, versioned model: a `.momd` folder as found in an app bundle, with one `.mom`
    /// per version and `VersionInfo.plist`.
    ///
    /// Versions are in natural name order, as for an `.xcdatamodeld` (VersionInfo.plist records hashes
    /// per version in a dictionary, which has no order). The current version is the one VersionInfo.plist
    /// names. Each version's recomputed entity hashes (and checksum, when recorded) must equal those Xcode
    /// recorded: a version Instar would hash differently from Core Data is refused with the entities
    /// concerned rather than read into a model that matches no store. `.omo` files (an optimized form
    /// of the current version, written beside its `.mom`) are not read.
    /// - Throws: ``ModelError`` with the problems of all versions together.
    package static func read(momd url: URL) throws(ModelError) -> ModelBundle {
        let folder = url.standardizedFileURL
        let location = SourceLocation(file: folder.path)
        let entries = try listFolder(folder, what: "compiled model folder", hint: "pass the path of a .momd folder")
        let files = versionFiles(among: entries, in: folder)
        var problems: [ModelProblem] = []
        let info: CompiledVersionInfo?
        do {
            info = try CompiledVersionInfo.read(in: folder)
        } catch {
            info = nil
            problems += error.problems
        }
        var versions: [Model] = []
        let interner = EntityInterner()
        for file in files {
            do {
                let model = try CompiledModelReader.read(mom: file, sharing: interner)
                let disagreements = info?.disagreements(with: model, file: file.path) ?? []
                if disagreements.isEmpty { versions.append(model) } else { problems += disagreements }
            } catch {
                problems += error.problems
            }
        }
        let names = files.map(CompiledModelReader.modelName(ofFile:))
        problems += missingVersions(recorded: info, present: names, in: folder, entries: Set(entries))
        if files.isEmpty && problems.isEmpty {
            problems.append(
                ModelProblem(
                    .unreadable, "the folder contains no .mom version", location: location,
                    hint: "a .momd folder holds one '<Version>.mom' file per model version"))
        }
        if let current = info?.currentVersionName, !names.contains(current) {
            problems.append(
                ModelProblem(
                    .invalidValue, "the current version '\(current)' is not in the folder",
                    location: SourceLocation(file: folder.appendingPathComponent(CompiledVersionInfo.fileName).path),
                    hint: names.isEmpty ? nil : "versions present: " + names.map { "'\($0)'" }.joined(separator: ", ")))
        }
        if !problems.isEmpty { throw ModelError(problems) }
        return ModelBundle(
            name: compiledBundleName(of: folder), path: url.path, versions: versions,
            currentVersionName: info?.currentVersionName)
    }

    /// The `.mom` files of a `.momd` folder in natural order of their version names, which is the order
    /// of a bundle's versions whether all of them are read or only some.
    static func versionFiles(among entries: [String], in folder: URL) -> [URL] {
        // Each file's version name is taken and split once, not in every comparison.
        let files = entries.filter { $0.hasSuffix(".mom") && !$0.hasPrefix(".") }.map { folder.appendingPathComponent($0) }
        return NaturalOrder.sorted(files, byName: CompiledModelReader.modelName(ofFile:))
    }

    /// The bundle's name: the folder name without `.momd`.
    static func compiledBundleName(of folder: URL) -> String {
        let folderName = folder.lastPathComponent
        return folderName.hasSuffix(".momd") ? String(folderName.dropLast(5)) : folderName
    }

    /// Versions VersionInfo.plist lists without a `.mom` beside it: an app trimmed of old versions can no
    /// longer open stores of those versions, which a migration plan must know.
    private static func missingVersions(
        recorded info: CompiledVersionInfo?, present names: [String], in folder: URL, entries: Set<String>
    ) -> [ModelProblem] {
        guard let info else { return [] }
        // A missing current version is reported on its own, with the versions present.
        let absent = Set(info.entityHashes.keys).subtracting(names).subtracting([info.currentVersionName].compactMap { $0 })
        return absent.sorted(by: NaturalOrder.precedes).map { name in
            let hasOptimized = entries.contains(name + ".omo")
            return ModelProblem(
                .unreadable, "\(CompiledVersionInfo.fileName) lists version '\(name)' but '\(name).mom' is missing",
                location: SourceLocation(file: folder.path),
                hint: hasOptimized
                    ? "only the optimized '\(name).omo' is present, a format Instar does not read; "
                        + "use the .xcdatamodeld sources or a build that kept the .mom"
                    : nil)
        }
    }
}
