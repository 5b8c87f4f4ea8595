import Foundation
@_spi(Layouts) import InstarModel

/// `VersionInfo.plist` of a `.momd` folder: what momc recorded about the versions it compiled.
///
/// Core Data finds the current version here (`NSManagedObjectModel_CurrentVersionName`), and the entity
/// hashes Xcode computed for every version (`NSManagedObjectModel_VersionHashes`) are the ground truth a
/// store's metadata is compared with. Instar recomputes hashes from what it decoded; checking them
/// against these proves the decoding right for that very file, so a model whose hashes Instar would get
/// wrong is refused instead of silently failing to match the user's stores.
struct CompiledVersionInfo {
    static let fileName = "VersionInfo.plist"

    var currentVersionName: String?
    /// Version name → entity name → 32-byte SHA-256.
    var entityHashes: [String: [String: Data]] = [:]
    /// Version name → base64 `versionChecksum` (newer Xcode only).
    var checksums: [String: String] = [:]

    /// Reads `VersionInfo.plist` in `folder`; nil when there is none.
    static func read(in folder: URL) throws(ModelError) -> CompiledVersionInfo? {
        let file = folder.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let location = SourceLocation(file: file.path)
        let data: Data
        do {
            data = try RegularFile.read(file.path)
        } catch {
            throw ModelError(
                ModelProblem(
                    .unreadable, "cannot read the version list: \(error.localizedDescription)", location: location))
        }
        let plist: PlistNode
        do {
            plist = try PlistNode.parse(data)
        } catch {
            throw ModelError(ModelProblem(.syntax, "cannot read the version list: \(error)", location: location))
        }
        guard case .dictionary(let top) = plist else {
            throw ModelError(ModelProblem(.syntax, "the version list is not a dictionary", location: location))
        }
        var info = CompiledVersionInfo()
        var problems: [ModelProblem] = []
        func wrong(_ key: String, _ expected: String) {
            problems.append(ModelProblem(.invalidValue, "\(key) is not \(expected)", location: location))
        }
        func table(_ key: String) -> [String: PlistNode] {
            guard let value = top[key] else { return [:] }
            guard case .dictionary(let dictionary) = value else { wrong(key, "a dictionary"); return [:] }
            return dictionary
        }
        if let value = top["NSManagedObjectModel_CurrentVersionName"] {
            if case .string(let name) = value {
                info.currentVersionName = name
            } else {
                wrong("the current version name", "a string")
            }
        }
        for (version, value) in table("NSManagedObjectModel_VersionHashes") {
            guard case .dictionary(let entities) = value else {
                wrong("the hash list of '\(version)'", "a dictionary")
                continue
            }
            var hashes: [String: Data] = [:]
            for (entity, hash) in entities {
                guard case .data(let data) = hash else {
                    wrong("the hash of '\(version)'.'\(entity)'", "data")
                    continue
                }
                hashes[entity] = data
            }
            info.entityHashes[version] = hashes
        }
        for (version, value) in table("NSManagedObjectModel_VersionChecksums") {
            guard case .string(let checksum) = value else { wrong("the checksum of '\(version)'", "a string"); continue }
            info.checksums[version] = checksum
        }
        if !problems.isEmpty { throw ModelError(problems) }
        return info
    }

    /// Where `model`'s recomputed hashes differ from those recorded for its version (empty when they agree
    /// or nothing is recorded).
    func disagreements(with model: Model, file: String) -> [ModelProblem] {
        let location = SourceLocation(file: file)
        let hint = "Instar decoded this version differently from Core Data; please report it with the .momd"
        var problems: [ModelProblem] = []
        let computed = model.versionHashes
        if let recorded = entityHashes[model.name] {
            for name in Set(recorded.keys).union(computed.entityHashes.keys).sorted() {
                let (mine, theirs) = (computed.entityHashes[name], recorded[name])
                guard mine != theirs else { continue }
                let message =
                    switch (mine, theirs) {
                    case (nil, _):
                        "Xcode recorded a hash for entity '\(name)' of version '\(model.name)', which was not decoded"
                    case (_, nil): "entity '\(name)' of version '\(model.name)' has no hash in \(Self.fileName)"
                    default:
                        "entity '\(name)' of version '\(model.name)' hashes to \(mine!.base64EncodedString()) but "
                            + "\(Self.fileName) records \(theirs!.base64EncodedString())"
                    }
                problems.append(ModelProblem(.invalidValue, message, location: location, entity: name, hint: hint))
            }
        }
        if problems.isEmpty, let checksum = checksums[model.name], checksum != computed.versionChecksum {
            problems.append(
                ModelProblem(
                    .invalidValue,
                    "version '\(model.name)' has checksum \(computed.versionChecksum) "
                        + "but \(Self.fileName) records \(checksum)",
                    location: location, hint: hint))
        }
        return problems
    }
}
