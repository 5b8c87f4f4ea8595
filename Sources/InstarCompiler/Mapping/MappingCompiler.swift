import InstarMapping
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts

/// Compiles a resolved mapping model (``MappingModel/resolved(source:destination:)``) against a
/// layout's storage of its two versions into a ``MappingProgram``.
///
/// Keys: a destination table fed by entity mappings whose sources are distinct entities of one source
/// table (mappings without a source do not count) keeps the source keys (`Z_PK`, `_pk`, `id`), so object IDs survive as Core Data users expect;
/// any other destination table (one source row feeding it twice, or sources in several tables) gets
/// new keys after its highest one.
package struct MappingCompiler {
    let mapping: MappingModel
    let from: Model
    let to: Model
    let source: StorageMap
    let destination: StorageMap
    let resolver: StorageColumnResolver
    let layout: any StorageLayout
    var hooks: [MappingHookRequirement] = []
    var functions: Set<MappingSQLFunction> = []

    package init(mapping: MappingModel, from: Model, to: Model, layout: any StorageLayout) throws(MappingStepError) {
        self.mapping = mapping
        self.from = from
        self.to = to
        self.layout = layout
        do {
            source = try layout.storageMap(for: from)
            destination = try layout.storageMap(for: to)
        } catch {
            throw MappingStepError(mappingModel: mapping.name, message: error.description)
        }
        resolver = StorageColumnResolver(
            model: from, map: source, valueEncoding: layout.valueEncoding, table: MappingProgram.asideName)
    }

    package mutating func compile() throws(MappingStepError) -> MappingProgram {
        var instancePasses: [MappingPass] = []
        var relationshipPasses: [MappingPass] = []
        for entityMapping in mapping.entityMappings where entityMapping.kind != .remove {
            guard entityMapping.destinationEntity != nil else { continue }
            instancePasses.append(try instancePass(entityMapping))
        }
        for entityMapping in mapping.entityMappings where entityMapping.kind != .remove {
            guard entityMapping.destinationEntity != nil, entityMapping.sourceEntity != nil,
                !entityMapping.relationshipMappings.isEmpty
            else { continue }
            relationshipPasses.append(try relationshipPass(entityMapping))
        }
        return MappingProgram(
            mappingModel: mapping.name, from: from, to: to, sourceTables: source.schema.tables.map(\.name),
            destination: destination, instancePasses: instancePasses.filter { !$0.actions.isEmpty },
            relationshipPasses: relationshipPasses.filter { !$0.actions.isEmpty }, finishing: entityColumnUpdates(),
            hooks: hooks, functions: functions)
    }

    func prefix(_ entityMapping: EntityMapping) -> String { "\(mapping.name).\(entityMapping.name)" }

    func error(_ entityMapping: EntityMapping, _ property: String? = nil, _ message: String) -> MappingStepError {
        MappingStepError(mappingModel: mapping.name, entityMapping: entityMapping.name, property: property, message: message)
    }

    mutating func require(
        _ name: String, _ entityMapping: EntityMapping, property: String?, point: MappingHookRequirement.Point,
        reason: String
    ) -> MappingAction {
        let hook = MappingHookRequirement(
            name: name, mappingModel: mapping.name, entityMapping: entityMapping.name, property: property, point: point,
            reason: reason)
        hooks.append(hook)
        return .hook(hook)
    }

    /// Whether the destination table of `entity` keeps the source keys (see the type's documentation).
    func keepsKeys(destinationTable: String) -> Bool {
        // Mappings without a source (added entities) make no rows from the source: they do not count.
        let feeding = mapping.entityMappings.filter { m in
            m.kind != .remove && m.sourceEntity != nil
                && m.destinationEntity.flatMap { destination.entities[$0]?.table } == destinationTable
        }
        let sources = feeding.compactMap(\.sourceEntity)
        guard Set(sources).count == sources.count else { return false }
        let tables = Set(sources.compactMap { source.entities[$0]?.table })
        return tables.count == 1 && sources.allSatisfy { source.entities[$0] != nil }
    }
}
