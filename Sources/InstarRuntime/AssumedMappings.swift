import Foundation
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore

/// A migration refused because the schema or version hashes it would write rest on a SwiftData type
/// mapping that no real store shows (`CGFloat` → Double, `UInt64` → Integer 64, `Set<String>` →
/// Transformable): nothing was written.
///
/// Instar reads SwiftData sources and derives the model SwiftData builds from them. Where no real store
/// shows how SwiftData stores a Swift type, the reader assumes the natural Core Data type and says so
/// (docs/swiftdata.md lists every mapping with its evidence). Analysis goes on with the assumption; a
/// migration does not, because a wrong guess would write version hashes SwiftData then fails to
/// recognise ("unknown model version") — on a user's device, where it cannot be undone.
///
/// An assumption is **proven** when the store's own metadata, written by SwiftData, records the entity
/// with exactly the hash computed under it: those entities pass. For the rest the app either accepts the
/// assumptions (``Migrator/acceptsAssumedMappings``, `instar migrate --accept-assumed-types`), having
/// checked on a device that SwiftData opens the migrated store, or declares the property with a type
/// whose mapping a store shows.
public struct AssumedMappingError: InstarError, CustomStringConvertible {
    /// One property whose mapping is assumed and that the store does not prove.
    public struct Assumption: Sendable, Hashable, Codable {
        /// The version whose schema would be written.
        public var version: String
        /// The entity (the `@Model` class).
        public var entity: String
        /// The property.
        public var property: String
        /// The mapping assumed, as `CGFloat → Double`.
        public var mapping: String
        /// `file:line:column` of the property's declaration, when the model knows it.
        public var location: String?
    }

    /// The store that was not written.
    public var path: String
    /// Every unproven assumption the chain would write, in chain order.
    public var assumptions: [Assumption]

    public var description: String {
        let lines = assumptions.map { item in
            "  \(item.location.map { "\($0): " } ?? "")\(item.version) \(item.entity).\(item.property): \(item.mapping)"
        }
        return "\(path): the migration would write a schema resting on \(assumptions.count) assumed SwiftData type mapping(s) "
            + "that this store does not prove; nothing was changed:\n" + lines.joined(separator: "\n")
            + "\nhint: check on a device that SwiftData opens a store migrated with them, then accept them "
            + "(migrate --accept-assumed-types, Migrator.acceptsAssumedMappings), or declare the properties with types "
            + "whose mapping a store shows (docs/swiftdata.md)"
    }
}

extension Migrator {
    /// Refuses a chain whose versions carry assumed mappings the store does not prove
    /// (``AssumedMappingError``), unless the app accepts them.
    func checkAssumedMappings(_ steps: [Step], store: SQLiteStore) throws {
        guard !settings.acceptsAssumedMappings else { return }
        let versions = steps.compactMap { step in plan.versions.first { $0.name == step.to } }
        guard versions.contains(where: Self.hasAssumptions) else { return }
        let recorded = try StoreError.wrapping(path: store.path, doing: .readingMetadata) {
            try store.withDatabase { db in try CoreDataMetadata.read(db)?.entityHashes } ?? [:]
        }
        let unproven = Self.unprovenAssumptions(in: versions, recorded: recorded)
        if !unproven.isEmpty { throw AssumedMappingError(path: store.path, assumptions: unproven) }
    }

    package static func hasAssumptions(_ model: Model) -> Bool {
        model.entities.contains { entity in
            entity.attributes.contains { $0.userInfo[SwiftDataUserInfo.assumedMapping] != nil }
        }
    }

    /// The assumptions of `versions` whose entity's computed hash is not the one the store records:
    /// an equal hash means SwiftData itself wrote that entity with exactly this shape.
    package static func unprovenAssumptions(in versions: [Model], recorded: [String: Data]) -> [AssumedMappingError.Assumption] {
        var found: [AssumedMappingError.Assumption] = []
        var seen: Set<String> = []
        for model in versions where hasAssumptions(model) {
            let hashes = model.versionHashes.entityHashes
            for entity in model.entities {
                if let stored = recorded[entity.name], stored == hashes[entity.name] { continue }
                for attribute in entity.attributes {
                    guard let mapping = attribute.userInfo[SwiftDataUserInfo.assumedMapping],
                        seen.insert("\(entity.name).\(attribute.name)|\(mapping)").inserted
                    else { continue }
                    found.append(
                        AssumedMappingError.Assumption(
                            version: model.name, entity: entity.name, property: attribute.name, mapping: mapping,
                            location: model.locations["\(entity.name).\(attribute.name)"]?.description))
                }
            }
        }
        return found
    }
}

extension DryRun {
    /// The assumptions ``Migrator`` would refuse on this chain, one risk each, so that the dry run
    /// predicts the run (without a store nothing proves them).
    static func assumedMappings(_ steps: [Step], plan: Plan, store: SQLiteStore?) throws -> [DryRunReport.Risk] {
        let versions = steps.compactMap { step in plan.versions.first { $0.name == step.to } }
        guard versions.contains(where: Migrator.hasAssumptions) else { return [] }
        let recorded = try store?.withDatabase { db in try CoreDataMetadata.read(db)?.entityHashes } ?? [:]
        return Migrator.unprovenAssumptions(in: versions, recorded: recorded).map { item in
            let step = steps.first { $0.to == item.version }.map { "\($0.from) → \($0.to)" }
            return DryRunReport.Risk(
                kind: .assumedMapping, step: step,
                message: "\(item.entity).\(item.property): \(item.mapping) is assumed (no real store shows it) and "
                    + (store == nil ? "no store was given to prove it" : "this store does not prove it")
                    + "; migrate refuses it unless --accept-assumed-types\(item.location.map { " (\($0))" } ?? "")",
                count: nil)
        }
    }
}
