import Foundation
@_spi(Layouts) import InstarModel

/// Reads a compiled model version: a `.mom` file, as Xcode builds it into an app (inside `Foo.momd`, or
/// alone for an unversioned model).
///
/// Apps ship compiled models, not their `.xcdatamodeld` sources, so migrating a store from an app that
/// is already released often starts from the `.mom` files of each shipped build. A `.mom` is an
/// `NSKeyedArchiver` archive of an `NSManagedObjectModel`; it is decoded here without Core Data, into
/// the same ``Model`` the XML reader builds from the source, so the two hash identically (the corpus
/// tests compare them property by property and against the hashes Xcode recorded).
///
/// What the compiled form loses: the order of entities and properties (they are archived in
/// dictionaries; they are sorted as Xcode sorts its XML), whether a relationship with a maximum count
/// of 1 was declared to-many (Core Data has no to-many flag), source positions, and any default value
/// the XML could not express. It carries one flag the XML has no spelling for, read-only, which is read
/// because it feeds the property's version hash.
package enum CompiledModelReader {
    /// Reads `url`, a `.mom` file. The model's name is the file name without `.mom`.
    /// - Throws: ``ModelError``: `.unreadable` when the file cannot be read, `.syntax` when it is not
    ///   a well-formed keyed archive of a model, and the model's own problems otherwise.
    package static func read(mom url: URL) throws(ModelError) -> Model { try read(mom: url, sharing: nil) }

    /// Reads `url`, sharing entities equal to ones read before (``EntityInterner``): a `.momd` passes
    /// one for all its versions.
    package static func read(mom url: URL, sharing interner: EntityInterner?) throws(ModelError) -> Model {
        let file = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw ModelError(
                ModelProblem(
                    .unreadable, "no such compiled model file", location: SourceLocation(file: file.path),
                    hint: "pass the path of a .mom file"))
        }
        guard !isDirectory.boolValue else {
            throw ModelError(
                ModelProblem(
                    .unreadable, "a folder, not a compiled model file", location: SourceLocation(file: file.path),
                    hint: "a versioned compiled model is a '.momd' folder; pass it, or one of the .mom files inside"))
        }
        let data: Data
        do {
            data = try RegularFile.read(file.path)
        } catch {
            throw ModelError(
                ModelProblem(
                    .unreadable, "cannot read the file: \(error.localizedDescription)",
                    location: SourceLocation(file: file.path)))
        }
        return try parse(data: data, name: modelName(ofFile: file), file: file.path, sharing: interner)
    }

    /// Decodes the bytes of a `.mom` file. `name` becomes the model's name; `file` is used in messages.
    package static func parse(data: Data, name: String, file: String) throws(ModelError) -> Model {
        try parse(data: data, name: name, file: file, sharing: nil)
    }

    /// Decodes the bytes of a `.mom` file, sharing entities equal to ones read before.
    package static func parse(data: Data, name: String, file: String, sharing interner: EntityInterner?)
        throws(ModelError) -> Model
    {
        var interpreter = CompiledModelInterpreter(file: file)
        let entities: [Entity]
        let versionIdentifier: String?
        do throws(KeyedArchiveError) {
            (entities, versionIdentifier, _) = try decode(data: data, file: file, with: &interpreter)
        } catch {
            // An archive without entities lacks what makes it a model; anything else is a broken archive.
            let kind: ModelProblem.Kind = if case .noEntities = error.reason { .missingKey } else { .syntax }
            var failure = ModelError(
                ModelProblem(
                    kind, error.reason.description, location: SourceLocation(file: error.file),
                    hint: "this is not an intact compiled Core Data model (.mom); copy it again from the app"))
            failure.underlying = error
            throw failure
        }
        let model: Model
        do {
            // Defaults are not checked against their types, for the reason the XML reader gives.
            model = try Model(
                name: name, versionIdentifier: versionIdentifier, entities: interner?.intern(entities) ?? entities, source: file,
                validatesDefaultValues: false)
        } catch {
            throw ModelError(interpreter.problems + error.problems)
        }
        if !interpreter.problems.isEmpty { throw ModelError(interpreter.problems) }
        return model
    }

    /// The entities and version identifier of an archive, and how many references reading them followed.
    private static func decode(data: Data, file: String, with interpreter: inout CompiledModelInterpreter)
        throws(KeyedArchiveError) -> (entities: [Entity], versionIdentifier: String?, referencesFollowed: Int)
    {
        let archive = try KeyedArchive(data: data, file: file)
        let root = try archive.root()
        guard root.isKind(of: "NSManagedObjectModel") else {
            throw KeyedArchiveError(
                file: file, .malformed(at: root.label, problem: "the archive's root is not an NSManagedObjectModel"))
        }
        let entities = try readEntities(of: root, with: &interpreter)
        let versionIdentifier = try readVersionIdentifier(of: root)
        if entities.isEmpty {
            // An empty model would hash to nothing and "match" nothing silently; a real model always
            // has entities, so an archive without any is one this reader does not understand.
            throw try noEntities(in: root, archive: archive, file: file)
        }
        return (entities, versionIdentifier, archive.referencesFollowed)
    }

    /// How many archived values reading the model in `data` follows: the figure
    /// ``ArchiveLimits/decodedObjects`` bounds, measured on real models by the corpus tests.
    package static func referencesFollowed(reading data: Data, file: String) throws(KeyedArchiveError) -> Int {
        var interpreter = CompiledModelInterpreter(file: file)
        return try decode(data: data, file: file, with: &interpreter).referencesFollowed
    }

    /// `NSEntities`, a dictionary of name → `NSEntityDescription`, sorted as Xcode writes entities.
    private static func readEntities(of root: ArchivedObject, with interpreter: inout CompiledModelInterpreter)
        throws(KeyedArchiveError) -> [Entity]
    {
        guard let dictionary = try root.object("NSEntities") else { return [] }
        var entities: [Entity] = []
        for (_, value) in try dictionary.entries() {
            guard case .object(let object) = value, object.isKind(of: "NSEntityDescription") else {
                throw dictionary.malformed("an entry of NSEntities is \(value.kindName), not an NSEntityDescription")
            }
            entities.append(try interpreter.entity(from: object))
        }
        return entities.sorted { XcodeOrder.precedes($0.name, $1.name) }
    }

    /// The error for an archive of a model without entities, saying what `NSEntities` held instead.
    private static func noEntities(in root: ArchivedObject, archive: KeyedArchive, file: String)
        throws(KeyedArchiveError) -> KeyedArchiveError
    {
        let found: KeyedArchiveError.EntitiesFound
        if let dictionary = try root.object("NSEntities") {
            found = .emptyCollection(className: dictionary.className, keys: dictionary.fieldNames)
        } else {
            found = .noEntitiesKey(rootKeys: root.fieldNames)
        }
        return KeyedArchiveError(file: file, .noEntities(at: root.label, found: found))
    }

    /// `NSVersionIdentifiers`, a set; momc writes the one identifier of Xcode's model inspector (possibly
    /// empty). Should a hand-built archive hold several, the first in sorted order is taken.
    private static func readVersionIdentifier(of root: ArchivedObject) throws(KeyedArchiveError) -> String? {
        guard let set = try root.object("NSVersionIdentifiers") else { return nil }
        var identifiers: [String] = []
        for element in try set.elements() {
            switch element {
            case .string(let text): identifiers.append(text)
            case .integer(let number): identifiers.append(String(number))
            case .real(let number), .date(let number): identifiers.append(String(number))
            default: throw set.malformed("a version identifier is \(element.kindName)")
            }
        }
        return identifiers.sorted().first
    }

    /// The version name of a `.mom` file: its name without that exact extension (names contain dots).
    static func modelName(ofFile file: URL) -> String {
        let fileName = file.lastPathComponent
        return fileName.hasSuffix(".mom") && fileName.count > 4 ? String(fileName.dropLast(4)) : fileName
    }
}
