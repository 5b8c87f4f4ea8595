@_spi(Layouts) import InstarModel
import SwiftSyntax

/// Turns a schema's `@Model` classes into Instar entities: attributes through ``AttributeMapper``,
/// relationships with SwiftData's defaults and inverse inference, `#Unique`/`.unique` as uniqueness
/// constraints, `#Index` as fetch indexes.
struct EntityBuilder {
    let declarations: Declarations
    var diagnostics: [SwiftDataDiagnostic] = []
    var locations: [String: SourceLocation] = [:]

    init(declarations: Declarations) {
        self.declarations = declarations
    }

    /// A declared relationship before inverses are settled.
    struct PendingRelationship {
        var relationship: Relationship
        let explicitInverse: (root: String?, property: String)?
        /// Declared with `@Relationship(...)` but no `inverse:`: SwiftData leaves it one-sided rather than
        /// pair it by inference (PegaseUIData EntityRubric.categorie; see ``settleInverses(_:)``).
        var declaredOneSided = false
        let location: SourceLocation
    }

    /// Entities for the given classes (qualified names), or nil when any of them cannot be read exactly.
    mutating func entities(for classes: [String]) -> [Entity]? {
        let before = diagnostics.filter { $0.severity == .error }.count
        let entityNames = Dictionary(classes.map { ($0, declarations.modelClasses[$0]!.name) }, uniquingKeysWith: { a, _ in a })
        var entities: [Entity] = []
        var pending: [String: [PendingRelationship]] = [:]
        for qualified in classes {
            let decl = declarations.modelClasses[qualified]!
            if entities.contains(where: { $0.name == decl.name }) {
                error("two @Model classes named '\(decl.name)' in one schema: SwiftData names entities by the bare class name", at: decl.location, subject: qualified)
                continue
            }
            if let entity = entity(decl, entityNames: entityNames, pending: &pending) {
                entities.append(entity)
            }
        }
        settleInverses(&pending)
        for index in entities.indices {
            entities[index].relationships = (pending[entities[index].name] ?? []).map(\.relationship)
        }
        let after = diagnostics.filter { $0.severity == .error }.count
        return after == before ? entities : nil
    }

    /// The listed classes, then every `@Model` class they reach through relationships, as SwiftData's
    /// `Schema` and `ModelContainer(for:)` include them (each addition is a warning: no store in the corpus
    /// shows a schema whose list left one out).
    mutating func addingReachable(_ classes: [String]) -> [String] {
        var result = classes
        var index = 0
        while index < result.count {
            let decl = declarations.modelClasses[result[index]]!
            var reader = ClassMemberReader(file: decl.file, owner: decl.name)
            let scope = decl.scope + [decl.name]
            // Diagnostics of this pass are dropped: building the entity reports them once.
            for var property in reader.read(decl.node.memberBlock).properties {
                if declarations.settle(&property, scope: scope) != nil { continue }
                var (target, _) = property.type.unwrapped
                if case .array(let element) = target { target = element.unwrapped.type }
                guard let reached = modelClass(target, scope: scope), !result.contains(reached) else { continue }
                // A relationship's destination is an entity *name* in SwiftData's schema (as in Core Data):
                // `SchemaV2.Tag.item` of type `SchemaV2.Item`, reached from a schema that lists its own
                // `Item`, leads to that listed entity (fit-iq's SchemaV4 aliases V3's classes, which lead to
                // V2's); ``relationship(_:scope:entityNames:owner:)`` links it so.
                let bare = declarations.modelClasses[reached]!.name
                if classes.contains(where: { declarations.modelClasses[$0]?.name == bare }) { continue }
                result.append(reached)
                diagnostics.append(SwiftDataDiagnostic(
                    .warning, "\(reached) is not listed in the schema's models but '\(property.name)' leads to it: added, as SwiftData adds reachable models",
                    at: property.location, subject: decl.name, finding: .reachableModelAdded(model: reached, property: property.name)))
            }
            index += 1
        }
        return result
    }

    mutating func error(
        _ message: String, at location: SourceLocation, subject: String?, finding: SwiftDataDiagnostic.Finding? = nil
    ) {
        diagnostics.append(SwiftDataDiagnostic(.error, message, at: location, subject: subject, finding: finding))
    }

    private mutating func entity(
        _ decl: Scoped<ClassDeclSyntax>, entityNames: [String: String], pending: inout [String: [PendingRelationship]]
    ) -> Entity? {
        if let places = declarations.conflicts[decl.qualifiedName] {
            error("class \(decl.qualifiedName) is declared \(places.count) times (\(places.map(\.description).joined(separator: ", "))): read one app target's sources at a time", at: decl.location, subject: decl.name)
            return nil
        }
        var reader = ClassMemberReader(file: decl.file, owner: decl.name)
        let members = reader.read(decl.node.memberBlock)
        diagnostics += reader.diagnostics
        for inherited in decl.node.inheritanceClause?.inheritedTypes ?? [] {
            let name = inherited.type.trimmedText
            if let parent = declarations.resolve(name, from: decl.scope), declarations.modelClasses[parent] != nil {
                error("@Model class inherits from @Model class '\(name)': SwiftData model inheritance (iOS 26) is not verified by any store", at: decl.location, subject: decl.name)
            }
        }
        var entity = Entity(name: decl.name)
        locations[decl.name] = decl.location
        var mapper = AttributeMapper(declarations: declarations, owner: decl.name)
        let scope = decl.scope + [decl.name]
        for var property in members.properties {
            locations["\(decl.name).\(property.name)"] = property.location
            if let problem = declarations.settle(&property, scope: scope) {
                error(problem, at: property.location, subject: decl.name)
                continue
            }
            if isModelReference(property.type, scope: scope) {
                if let relationship = relationship(property, scope: scope, entityNames: entityNames, owner: decl.name) {
                    pending[decl.name, default: []].append(relationship)
                }
            } else if property.relationship != nil {
                error("@Relationship on '\(property.name)', whose type `\(property.type)` is not a @Model class of these sources (or an array of one)", at: property.location, subject: decl.name)
            } else if let attribute = mapper.attribute(for: property, scope: scope) {
                entity.attributes.append(attribute)
            }
            if property.attribute.isUnique || property.relationship?.isUnique == true {
                entity.uniquenessConstraints.append([property.name])
            }
        }
        diagnostics += mapper.diagnostics
        let names = Set(members.properties.map(\.name))
        for group in members.uniqueness + members.indexes {
            for name in group where !names.contains(name) {
                error("#Unique/#Index names '\(name)', which is not a stored property of \(decl.name)", at: decl.location, subject: decl.name)
            }
        }
        entity.uniquenessConstraints += members.uniqueness
        entity.indexes = members.indexes.map { group in
            // SwiftData names a #Index after its properties (MetaCocktails SwiftDataIndexOnBinarycocktailName).
            FetchIndex(name: "SwiftDataIndexOnBinary" + group.joined(), elements: group.map { FetchIndex.Element(property: $0) })
        }
        return entity
    }

    func modelClass(_ type: SwiftType, scope: [String]) -> String? {
        let resolved: String?
        switch type {
        case .named(let name): resolved = declarations.resolve(name, from: scope)
        case .declared(let qualified): resolved = qualified
        default: resolved = nil
        }
        guard let resolved, declarations.modelClasses[resolved] != nil else { return nil }
        return resolved
    }

    private func isModelReference(_ type: SwiftType, scope: [String]) -> Bool {
        let (bare, _) = type.unwrapped
        if case .array(let element) = bare { return modelClass(element.unwrapped.type, scope: scope) != nil }
        return modelClass(bare, scope: scope) != nil
    }
}
