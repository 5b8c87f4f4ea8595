@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore

/// A model imported from an existing database, with everything it keeps verbatim or leaves out.
package struct ImportedModel: Sendable {
    package var model: Model
    package var notes: [AdoptionNote]
}

/// One schema object a model could not express as entities, or a detail it does not keep.
package struct AdoptionNote: Sendable, Hashable, CustomStringConvertible {
    package enum Effect: Sendable, Hashable {
        /// Kept as raw SQL and recreated around each step; nothing is blocked.
        case carried
        /// Kept as raw SQL; the steps described cannot be inferred or fail verification.
        case blocks(String)
        /// Not kept at all (a detail SQLite only has in the statement text); nothing is blocked.
        case notKept
    }

    package var kind: String
    package var name: String
    package var reasons: [String]
    package var effect: Effect

    package var blocksMigrations: Bool {
        if case .blocks = effect { return true }
        return false
    }

    package var description: String {
        let why = reasons.joined(separator: ", ")
        switch effect {
        case .carried: return "\(kind) \(name) (\(why)): kept as raw SQL and carried across steps; blocks nothing"
        case .blocks(let what): return "\(kind) \(name) (\(why)): kept as raw SQL; BLOCKS \(what)"
        case .notKept: return "\(kind) \(name): \(why); not kept by the model (blocks nothing)"
        }
    }
}
