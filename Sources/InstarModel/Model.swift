import Foundation

/// One version of a data model: its entities, validated and with inheritance resolved.
///
/// A `Model` can only be built through its throwing initializer, so every `Model` in the program is
/// known to be consistent: destinations exist, inverses point back, hierarchies have no cycles and no
/// property is declared twice. Everything downstream (hashing, inference, layouts) relies on that.
public struct Model: Sendable {
    /// The version name (an `.xcdatamodel` folder name without extension, or a model file's `name`).
    public let name: String
    /// Xcode's "Identifier" (`userDefinedModelVersionIdentifier`); stored in Core Data metadata.
    public let versionIdentifier: String?
    /// Core Data's `versionIdentifiers`: this version's identifier (`""` when none), or for a model
    /// merged from several, each part's, without repeats (Core Data keeps them in a set: a store written
    /// through three merged models, two without an identifier, records `["", "3"]`).
    @_spi(Layouts) public let versionIdentifiers: [String]
    /// Entities in declaration order.
    public private(set) var entities: [Entity]
    /// Where each entity (`"Entity"`) and property (`"Entity.property"`) was declared, when known.
    @_spi(Layouts) public let locations: DeclarationLocations
    /// The file or folder the model was read from, when known.
    public let source: String?
    /// Schema objects the model cannot express, kept verbatim (``RawSQL``), in creation order.
    public let rawSQL: [RawSQL]
    /// What validation let through as warnings (``ModelValidation/xcode``), for the user to see.
    public let warnings: [ModelProblem]

    private let entityIndex: [String: Int]
    /// Resolved properties of the entities that inherit some; an entity without a parent has exactly
    /// its own, read from it when asked. Keeping a second copy of every property for every entity took
    /// about 40% of the memory of a 100-version bundle.
    private let resolvedProperties: [String: [ResolvedProperty]]
    private let hashCache = Locked<VersionHashes?>(nil)
    /// What other layers derive from this very model and ask for again and again (a layout's storage
    /// map: `instar test` asked for each one hundreds of times per version), by the deriver's key.
    private let derivedValues = Locked<[String: any Sendable]>([:])

    /// Validates and resolves the given entities.
    ///
    /// - Parameter validatesDefaultValues: reject defaults that do not parse for their type. Instar's
    ///   own files are strict; Xcode models are not, because Xcode saves such defaults without
    ///   complaint (real models ship `defaultValueString="YES"` on integer attributes) and Core Data
    ///   reads them leniently, so refusing them would refuse real apps' models.
    /// - Throws: ``ModelError`` listing every problem found.
    public init(
        name: String,
        versionIdentifier: String? = nil,
        entities: [Entity],
        locations: [String: SourceLocation] = [:],
        source: String? = nil,
        validatesDefaultValues: Bool = true,
        validation: ModelValidation = .strict,
        versionIdentifiers: [String]? = nil,
        rawSQL: [RawSQL] = []
    ) throws(ModelError) {
        self.name = name
        self.rawSQL = rawSQL
        self.versionIdentifier = versionIdentifier
        self.versionIdentifiers = versionIdentifiers ?? [versionIdentifier ?? ""]
        self.entities = entities
        self.locations = DeclarationLocations(locations)
        self.source = source

        var validator = ModelValidator(
            entities: entities, locations: locations, source: source,
            validatesDefaultValues: validatesDefaultValues || validation == .xcode)
        let result = validator.run()
        var errors: [ModelProblem] = []
        // The version's name and identifier name files, plan stages and journal records.
        for (what, text) in [("version name", name), ("version identifier", versionIdentifier ?? "")] {
            if let message = NameRule.violation(what, text) {
                errors.append(ModelProblem(
                    .invalidName, message, location: source.map { SourceLocation(file: $0) }, hint: NameRule.hint))
            }
        }
        var warnings: [ModelProblem] = []
        for var problem in result.problems {
            if validation.isWarning(problem.kind) {
                problem.severity = .warning
                warnings.append(problem)
            } else {
                errors.append(problem)
            }
        }
        if !errors.isEmpty { throw ModelError(errors) }
        self.warnings = warnings
        self.entityIndex = result.entityIndex
        self.resolvedProperties = result.resolvedProperties.filter { name, _ in
            result.entityIndex[name].map { entities[$0].parent != nil } ?? false
        }
    }

    /// This model with each entity replaced by the equal one `share` returns, so that versions which
    /// repeat an entity unchanged hold one copy of its attributes (Swift shares equal arrays' storage
    /// once one is assigned from the other). A plan of thousands of versions keeps every model in
    /// memory, and the attribute and relationship arrays were two thirds of it.
    ///
    /// `share` must return an entity equal to the one it is given; the validation, resolved
    /// properties and memoised hashes of this model then hold for the result unchanged.
    package func sharingEntities(_ share: ([Entity]) -> [Entity]) -> Model {
        var copy = self
        let shared = share(entities)
        assert(shared == entities, "sharingEntities: a shared entity differs from the one it replaces")
        copy.entities = shared
        return copy
    }

    /// Core Data's version identity of this model, computed once.
    @_spi(Layouts) public var versionHashes: VersionHashes {
        hashCache.memoized { VersionHashes(computing: self) }
    }

    /// A value derived from this model alone, computed once per model and `key` (which names the
    /// deriver and everything besides the model that the value depends on); failures are not kept.
    package func derived<T: Sendable, Failure: Error>(
        _ key: String, _ compute: () throws(Failure) -> T
    ) throws(Failure) -> T {
        if let value = derivedValues.withLock({ $0[key] }) as? T { return value }
        // Computed outside the lock (it may ask this model for other derived values); two threads
        // racing compute the same value.
        let value = try compute()
        derivedValues.withLock { $0[key] = value }
        return value
    }

    /// The value ``derived(_:_:)`` keeps under `key`, without computing it when it has none.
    package func derivedIfKept<T: Sendable>(_ key: String) -> T? {
        derivedValues.withLock { $0[key] } as? T
    }

    /// The entity of that name, or nil when this version has none.
    public func entity(named name: String) -> Entity? {
        entityIndex[name].map { entities[$0] }
    }

    /// Every property of the entity, inherited ones first (root down), each in declaration order.
    @_spi(Layouts) public func properties(of entity: String) -> [ResolvedProperty] {
        if let inherited = resolvedProperties[entity] { return inherited }
        guard let own = self.entity(named: entity) else { return [] }
        var properties: [ResolvedProperty] = []
        properties.reserveCapacity(own.attributes.count + own.relationships.count)
        for attribute in own.attributes { properties.append(ResolvedProperty(property: .attribute(attribute), declaringEntity: entity)) }
        for relationship in own.relationships {
            properties.append(ResolvedProperty(property: .relationship(relationship), declaringEntity: entity))
        }
        return properties
    }

    /// The property of that name, declared on the entity or inherited, or nil when it has none.
    @_spi(Layouts) public func property(_ name: String, of entity: String) -> ResolvedProperty? {
        if let inherited = resolvedProperties[entity] { return inherited.first { $0.name == name } }
        guard let own = self.entity(named: entity) else { return nil }
        if let attribute = own.attributes.first(where: { $0.name == name }) {
            return ResolvedProperty(property: .attribute(attribute), declaringEntity: entity)
        }
        return own.relationships.first { $0.name == name }.map { ResolvedProperty(property: .relationship($0), declaringEntity: entity) }
    }

    /// The entity's attributes, inherited ones included, in the order of `properties(of:)`.
    public func attributes(of entity: String) -> [Attribute] {
        if resolvedProperties[entity] == nil { return self.entity(named: entity)?.attributes ?? [] }
        return properties(of: entity).compactMap(\.property.attribute)
    }

    /// The entity's relationships, inherited ones included, in the order of `properties(of:)`.
    public func relationships(of entity: String) -> [Relationship] {
        if resolvedProperties[entity] == nil { return self.entity(named: entity)?.relationships ?? [] }
        return properties(of: entity).compactMap(\.property.relationship)
    }

    /// The chain from the entity up to its root: `[entity, parent, grandparent, …]`.
    @_spi(Layouts) public func ancestry(of entity: String) -> [String] {
        var chain: [String] = []
        var current: String? = entity
        while let name = current, let e = self.entity(named: name) {
            chain.append(name)
            current = e.parent
        }
        return chain
    }

    /// The top of the entity's hierarchy: the entity whose table a SQLite store keeps its rows in.
    @_spi(Layouts) public func root(of entity: String) -> String {
        ancestry(of: entity).last ?? entity
    }

    /// Direct sub-entities, in declaration order.
    @_spi(Layouts) public func subentities(of entity: String) -> [String] {
        entities.filter { $0.parent == entity }.map(\.name)
    }

    /// The entity and all its descendants, depth-first.
    @_spi(Layouts) public func hierarchy(below entity: String) -> [String] {
        [entity] + subentities(of: entity).flatMap { hierarchy(below: $0) }
    }

    /// Entities without a parent, in declaration order.
    @_spi(Layouts) public var rootEntities: [Entity] { entities.filter { $0.parent == nil } }

    /// True when `entity` is `ancestor` or descends from it.
    @_spi(Layouts) public func entity(_ entity: String, isKindOf ancestor: String) -> Bool {
        ancestry(of: entity).contains(ancestor)
    }

    /// Where the property (or, without one, the entity) was declared, falling back to the entity and then to
    /// the model's file; nil when the model was built in code.
    @_spi(Layouts) public func location(ofEntity entity: String, property: String? = nil) -> SourceLocation? {
        if let property, let loc = locations["\(entity).\(property)"] { return loc }
        return locations[entity] ?? source.map { SourceLocation(file: $0) }
    }
}

