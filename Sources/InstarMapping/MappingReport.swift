/// What a mapping model asks for and how much of it SQL can do: one value per mapping model, for
/// `instar` to print as JSON or text and for the planner to decide which steps need app code.
///
/// Every property mapping with an expression ends up either as SQL, as a relationship lookup, or as a
/// named hook; nothing is dropped. Hook names are stable: `<MappingModel>.<EntityMapping>` for a custom
/// policy, `<MappingModel>.<EntityMapping>.<property>` for an expression, and
/// `<MappingModel>.<EntityMapping>.$filter` for a filter (`$` cannot start a property name).
public struct MappingReport: Sendable, Hashable, Codable {
    public var mappingModel: String
    public var file: String
    /// The source and destination versions: matched ones when a match was given, else as recorded.
    public var source: String?
    public var destination: String?
    /// How the versions were recognised (`entityHashes`, `structure`), nil when recorded names are shown.
    public var match: MappingVersionMatch.Basis?
    public var entities: [EntityReport]
    /// Every hook any entity needs, in entity order.
    public var hooks: [HookReport]
    /// SQL functions the translated SQL needs registered, by name.
    public var functions: [String]

    public struct EntityReport: Sendable, Hashable, Codable {
        public var name: String
        public var source: String?
        public var destination: String?
        public var kind: String
        public var filter: PropertyReport?
        public var policy: String?
        public var attributes: [PropertyReport]
        public var relationships: [PropertyReport]
        /// The names of the hooks this entity mapping needs.
        public var hooks: [String]
    }

    /// One property (or the filter): its expression and what it became.
    public struct PropertyReport: Sendable, Hashable, Codable {
        public var name: String
        /// Format text; nil when the destination property keeps its default.
        public var expression: String?
        /// `written`, `generated` (by Xcode's compiler), `pendingGeneration`, `none`.
        public var origin: String?
        public var sql: String?
        public var arguments: [MappingValue]?
        public var joins: [String]?
        /// For a relationship filled by following rows: the entity mapping and source key path.
        public var relationshipMapping: String?
        public var sourceKeyPath: String?
        public var hook: String?
        public var reason: String?
        /// ``HookReason/category`` of `reason`, for counting hooks by reason.
        public var reasonCategory: String?
    }

    public struct HookReport: Sendable, Hashable, Codable {
        public var name: String
        /// Stable category (``HookReason/category``) and the readable reason.
        public var category: String
        public var reason: String
    }

    /// Expressions (values and filters) that became SQL or a relationship lookup.
    public var translatedCount: Int {
        entities.flatMap { [$0.filter].compactMap { $0 } + $0.attributes + $0.relationships }
            .filter { $0.sql != nil || $0.relationshipMapping != nil }.count
    }

    /// Expressions that need a hook (custom policies are counted in ``hooks`` but are not expressions).
    public var hookedExpressionCount: Int {
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
    public init(mapping: MappingModel, match: MappingVersionMatch? = nil, resolver: any MappingColumnResolver) {
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
