/// What a mapping model asks for and how much of it SQL can do: one value per mapping model, for
/// `instar` to print as JSON or text and for the planner to decide which steps need app code.
///
/// Every property mapping with an expression ends up either as SQL, as a relationship lookup, or as a
/// named hook; nothing is dropped. Hook names are stable: `<MappingModel>.<EntityMapping>` for a custom
/// policy, `<MappingModel>.<EntityMapping>.<property>` for an expression, and
/// `<MappingModel>.<EntityMapping>.$filter` for a filter (`$` cannot start a property name).
package struct MappingReport: Sendable, Hashable, Codable {
    package var mappingModel: String
    package var file: String
    /// The source and destination versions: matched ones when a match was given, else as recorded.
    package var source: String?
    package var destination: String?
    /// How the versions were recognised (`entityHashes`, `structure`), nil when recorded names are shown.
    package var match: MappingVersionMatch.Basis?
    package var entities: [EntityReport]
    /// Every hook any entity needs, in entity order.
    package var hooks: [HookReport]
    /// SQL functions the translated SQL needs registered, by name.
    package var functions: [String]

    package struct EntityReport: Sendable, Hashable, Codable {
        package var name: String
        package var source: String?
        package var destination: String?
        package var kind: String
        package var filter: PropertyReport?
        package var policy: String?
        package var attributes: [PropertyReport]
        package var relationships: [PropertyReport]
        /// The names of the hooks this entity mapping needs.
        package var hooks: [String]
    }

    /// One property (or the filter): its expression and what it became.
    package struct PropertyReport: Sendable, Hashable, Codable {
        package var name: String
        /// Format text; nil when the destination property keeps its default.
        package var expression: String?
        /// `written`, `generated` (by Xcode's compiler), `pendingGeneration`, `none`.
        package var origin: String?
        package var sql: String?
        package var arguments: [MappingValue]?
        package var joins: [String]?
        /// For a relationship filled by following rows: the entity mapping and source key path.
        package var relationshipMapping: String?
        package var sourceKeyPath: String?
        package var hook: String?
        package var reason: String?
        /// ``HookReason/category`` of `reason`, for counting hooks by reason.
        package var reasonCategory: String?
    }

    package struct HookReport: Sendable, Hashable, Codable {
        package var name: String
        /// Stable category (``HookReason/category``) and the readable reason.
        package var category: String
        package var reason: String
    }

    /// Expressions (values and filters) that became SQL or a relationship lookup.
    package var translatedCount: Int {
        entities.flatMap { [$0.filter].compactMap { $0 } + $0.attributes + $0.relationships }
            .filter { $0.sql != nil || $0.relationshipMapping != nil }.count
    }

    /// Expressions that need a hook (custom policies are counted in ``hooks`` but are not expressions).
    package var hookedExpressionCount: Int {
        entities.flatMap { [$0.filter].compactMap { $0 } + $0.attributes + $0.relationships }
            .filter { $0.hook != nil }.count
    }
}

extension MappingReport {
    /// Builds the report.
    ///
    /// - Parameters:
    ///   - mapping: the mapping model, ideally ``MappingModel/resolved(source:destination:)`` so that
    ///     generated expressions and copy/transform kinds are known.
    ///   - match: the versions it was matched to, if any (named in the report).
    ///   - resolver: where the source row's values are; SQL is only as real as this resolver.
    package init(mapping: MappingModel, match: MappingVersionMatch? = nil, resolver: any MappingColumnResolver) {
        mappingModel = mapping.name
        file = mapping.file
        source = match?.source.name ?? mapping.source.versionName
        destination = match?.destination.name ?? mapping.destination.versionName
        self.match = match?.basis
        entities = []
        hooks = []
        var functions: Set<MappingSQLFunction> = []
        for entityMapping in mapping.entityMappings {
            let prefix = "\(mapping.name).\(entityMapping.name)"
            let translator = SQLTranslator(entity: entityMapping.sourceEntity ?? "", resolver: resolver)
            var entity = EntityReport(
                name: entityMapping.name, source: entityMapping.sourceEntity, destination: entityMapping.destinationEntity,
                kind: entityMapping.kind.name, filter: nil, policy: entityMapping.customPolicyClass,
                attributes: [], relationships: [], hooks: [])
            if let policy = entityMapping.customPolicyClass {
                entity.hooks.append(prefix)
                hooks.append(HookReport(name: prefix, reason: .customPolicy(className: policy)))
            }
            if let filter = entityMapping.filter {
                let translation = translator.translate(filter: filter, hookName: prefix + ".$filter")
                entity.filter = Self.property("$filter", filter.description, origin: nil, translation, &functions)
            }
            for property in entityMapping.attributeMappings + entityMapping.relationshipMappings {
                let translation = translator.translate(value: property.valueExpression, hookName: "\(prefix).\(property.name)")
                let report = Self.property(
                    property.name, property.valueExpressionText, origin: property.origin.rawValue, translation, &functions)
                if entityMapping.attributeMappings.contains(property) {
                    entity.attributes.append(report)
                } else {
                    entity.relationships.append(report)
                }
            }
            for report in [entity.filter].compactMap({ $0 }) + entity.attributes + entity.relationships {
                guard let hook = report.hook, let reason = report.reason else { continue }
                entity.hooks.append(hook)
                hooks.append(HookReport(name: hook, category: report.reasonCategory ?? "", reason: reason))
            }
            entities.append(entity)
        }
        self.functions = functions.map(\.rawValue).sorted()
    }

    static func property(
        _ name: String, _ expression: String?, origin: String?, _ translation: MappingTranslation,
        _ functions: inout Set<MappingSQLFunction>
    ) -> PropertyReport {
        var report = PropertyReport(name: name, expression: expression, origin: origin)
        switch translation {
        case .sql(let fragment):
            report.sql = fragment.sql
            report.arguments = fragment.arguments.isEmpty ? nil : fragment.arguments
            report.joins = fragment.joins.isEmpty ? nil : fragment.joins
            functions.formUnion(fragment.functions)
        case .relationshipFromMapping(let mappingName, let keyPath):
            report.relationshipMapping = mappingName
            report.sourceKeyPath = keyPath.joined(separator: ".")
        case .needsHook(let hook, let reason):
            report.hook = hook
            report.reason = reason.description
            report.reasonCategory = reason.category
        case .none:
            break
        }
        return report
    }
}

extension MappingReport.HookReport {
    init(name: String, reason: HookReason) {
        self.init(name: name, category: reason.category, reason: reason.description)
    }
}
