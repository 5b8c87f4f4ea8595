import Foundation
@_spi(Layouts) import InstarModel
import SwiftParser
import SwiftSyntax

/// Reads SwiftData schema sources — `@Model` classes, `VersionedSchema` types, `Schema([...])` calls and
/// `SchemaMigrationPlan`s — into Instar models whose version hashes equal those SwiftData writes into its
/// stores, without compiling or running the app.
///
/// Reading is static: what depends on values only the running app knows (a `Date()` default, a type from
/// another module) is reported as a ``SwiftDataDiagnostic`` at its `file:line:column`; a schema that
/// needs something the reader cannot resolve is left out rather than guessed.
package struct SwiftDataReader: Sendable {
    /// Creates a reader.
    package init() {}

    /// Reads `.swift` files and folders (recursively, files in name order).
    /// - Throws: ``SwiftDataReadError`` when a path does not exist or a file is not UTF-8 text.
    package func read(paths: [String]) throws(SwiftDataReadError) -> SwiftDataSources {
        var files: [(path: String, text: String)] = []
        for path in paths {
            for file in try Self.swiftFiles(at: path) {
                if let refusal = FileKind.refusal(file, what: "a Swift source") {
                    throw SwiftDataReadError([SwiftDataDiagnostic(.error, refusal.message, at: SourceLocation(file: file))])
                }
                guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                    throw SwiftDataReadError([SwiftDataDiagnostic(.error, "cannot read this file as UTF-8 text", at: SourceLocation(file: file))])
                }
                files.append((file, text))
            }
        }
        return read(files: files)
    }

    /// Reads sources given as text; `path` is what diagnostics show.
    ///
    /// A file that nests deeper than ``SourceLimits`` allow is not parsed: an error at the place where
    /// it crosses the limit, and the schemas that need its declarations are left out.
    package func read(files: [(path: String, text: String)]) -> SwiftDataSources {
        read(files: files, chunks: SourceChunks(), cache: SyntaxTreeCache())
    }

    /// ``read(files:)`` with large files cut by `chunks` and their trees kept by `cache`: tests cut every
    /// file and keep one tree to show the reading does not depend on either.
    package func read(files: [(path: String, text: String)], chunks: SourceChunks, cache: SyntaxTreeCache) -> SwiftDataSources {
        let files = files.map { FileText(path: $0.path, text: $0.text) }
        // The cache is used by one thread at a time: this one hands it over and waits.
        let handOver = Unchecked(value: (chunks, cache))
        return SourceLimits.onLargeStack {
            Self.readOnThisThread(files, chunks: handOver.value.0, cache: handOver.value.1)
        }.value
    }

    private struct FileText: Sendable {
        let path: String
        let text: String
    }

    private struct Unchecked<T>: @unchecked Sendable {
        let value: T
    }

    private static func readOnThisThread(
        _ files: [FileText], chunks: SourceChunks, cache: SyntaxTreeCache
    ) -> Unchecked<SwiftDataSources> {
        var declarations = Declarations()
        var diagnostics: [SwiftDataDiagnostic] = []
        for item in files {
            let bytes = Array(item.text.utf8)
            let scan = SourceLimits.scan(bytes, path: item.path)
            if let problem = scan.problem {
                diagnostics.append(problem)
                continue
            }
            let pieces = chunks.pieces(of: bytes, topLevelLineStarts: scan.topLevelLineStarts)
            var outcome = collect(item, bytes: bytes, pieces: pieces, into: declarations, cache: cache)
            if case .cutBadly = outcome {
                // A cut may be what broke the syntax: the whole file, as it is, decides.
                let whole = [SourceChunks.Piece(bytes: 0..<bytes.count, firstLine: 1)]
                outcome = collect(item, bytes: bytes, pieces: whole, into: declarations, cache: cache)
            }
            switch outcome {
            case .read(let found, let warning):
                declarations = found
                if let warning { diagnostics.append(warning) }
            case .refused(let problem):
                diagnostics.append(problem)
            case .cutBadly:
                preconditionFailure("a file read whole is never cut badly")
            }
        }
        declarations.placeExtensionsOfAliases()
        return Unchecked(value: SwiftDataSources(
            declarations: declarations, files: files.map(\.path), readDiagnostics: diagnostics))
    }
    private enum Collected {
        /// The declarations with the file's, and a warning when it has syntax errors.
        case read(Declarations, warning: SwiftDataDiagnostic?)
        /// The file nests too deeply to be read.
        case refused(SwiftDataDiagnostic)
        /// A piece of a cut file has syntax errors: read it whole instead.
        case cutBadly
    }

    /// Parses a file's pieces in order and collects their declarations on top of `declarations`.
    private static func collect(
        _ item: FileText, bytes: [UInt8], pieces: [SourceChunks.Piece], into declarations: Declarations,
        cache: SyntaxTreeCache
    ) -> Collected {
        var found = declarations
        var warning: SwiftDataDiagnostic?
        for piece in pieces {
            let text = pieces.count == 1 ? item.text : String(decoding: bytes[piece.bytes], as: UTF8.self)
            let file = ParsedFile(path: item.path, text: text, firstLine: piece.firstLine, cache: cache)
            let tree = file.tree
            if tree.hasError {
                if pieces.count > 1 { return .cutBadly }
                warning = SwiftDataDiagnostic(
                    .warning, "the file has syntax errors; declarations around them may be missed", at: file.location(of: tree))
            }
            if let problem = SourceLimits.deepestNodeProblem(in: file) { return .refused(problem) }
            let collector = DeclarationCollector(file: file, into: found)
            collector.walk(tree)
            found = collector.found
        }
        return .read(found, warning: warning)
    }

    static func swiftFiles(at path: String) throws(SwiftDataReadError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SwiftDataReadError([SwiftDataDiagnostic(.error, "no such file or folder", at: SourceLocation(file: path))])
        }
        guard isDirectory.boolValue else { return [path] }
        let enumerator = FileManager.default.enumerator(atPath: path)
        var found: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            if relative.hasSuffix(".swift") { found.append((path as NSString).appendingPathComponent(relative)) }
        }
        return found.sorted()
    }
}

/// What ``SwiftDataReader`` found in a set of sources.
package struct SwiftDataSources {
    /// The files read, in order.
    package let files: [String]
    /// Every schema that could be built exactly: `VersionedSchema` types in source order, then `Schema([...])` calls.
    package internal(set) var schemas: [SwiftDataSchema] = []
    /// Every `SchemaMigrationPlan` that could be read.
    package internal(set) var plans: [SwiftDataMigrationPlan] = []
    /// Every `SchemaMigrationPlan` declared but refused: never to be mistaken for sources without a plan.
    package internal(set) var refusedPlans: [RefusedMigrationPlan] = []
    /// Every `@Model` class of the sources, qualified, in source order.
    package let modelClasses: [String]
    /// Errors and warnings, each at its position; an error means some schema (or plan) was left out.
    package internal(set) var diagnostics: [SwiftDataDiagnostic] = []
    let declarations: Declarations

    init(declarations: Declarations, files: [String], readDiagnostics: [SwiftDataDiagnostic]) {
        self.declarations = declarations
        self.files = files
        self.modelClasses = declarations.modelClassOrder
        diagnostics = readDiagnostics
        readVersionedSchemas()
        for call in declarations.schemaCalls { readSchemaCall(call) }
        var planReader = MigrationPlanReader(declarations: declarations)
        plans = planReader.plans()
        refusedPlans = planReader.refused
        note(planReader.diagnostics)
    }

    /// The errors among ``diagnostics``.
    package var errors: [SwiftDataDiagnostic] { diagnostics.filter { $0.severity == .error } }

    /// The schema of `Schema([A.self, B.self])` for model classes the sources do not list in a literal
    /// (an app that builds the list at run time): classes by bare or qualified name.
    /// - Throws: ``SwiftDataReadError`` when a class is unknown or the schema cannot be built exactly.
    package func schema(ofModelClasses names: [String], versionIdentifier: String = "1.0.0") throws(SwiftDataReadError) -> SwiftDataSchema {
        var classes: [String] = []
        for name in names {
            let matches = modelClasses.filter { $0 == name || $0.hasSuffix(".\(name)") }
            guard matches.count == 1 else {
                let what = matches.isEmpty ? "no @Model class" : "\(matches.count) @Model classes (\(matches.joined(separator: ", ")))"
                throw SwiftDataReadError([SwiftDataDiagnostic(.error, "'\(name)' names \(what); use a qualified name", at: SourceLocation(file: files.first ?? "<sources>"))])
            }
            classes.append(matches[0])
        }
        var copy = self
        copy.diagnostics = []
        let location = classes.first.flatMap { declarations.modelClasses[$0]?.location } ?? SourceLocation(file: "<sources>")
        guard let schema = copy.build(name: "Schema", version: versionIdentifier, versioned: false, classes: classes, at: location) else {
            throw SwiftDataReadError(copy.errors)
        }
        return schema
    }

    mutating func note(_ more: [SwiftDataDiagnostic]) {
        for diagnostic in more where !diagnostics.contains(diagnostic) { diagnostics.append(diagnostic) }
    }

    /// - Parameter interner: shares entities equal to ones an earlier schema built (``EntityInterner``).
    mutating func build(
        name: String, version: String, versioned: Bool, classes: [String], at location: SourceLocation,
        sharing interner: EntityInterner? = nil
    ) -> SwiftDataSchema? {
        var builder = EntityBuilder(declarations: declarations)
        let classes = builder.addingReachable(classes)
        let built = builder.entities(for: classes)
        note(builder.diagnostics)
        guard let built else { return nil }
        let entities = interner?.intern(built) ?? built
        do {
            let model = try Model(
                name: name, versionIdentifier: version, entities: entities, locations: builder.locations,
                source: location.file)
            return SwiftDataSchema(
                name: name, versionIdentifier: version, isVersioned: versioned, modelClasses: classes, model: model,
                location: location)
        } catch {
            note(error.problems.map { problem in
                SwiftDataDiagnostic(.error, problem.message, at: problem.location ?? location, subject: name)
            })
            return nil
        }
    }
}
