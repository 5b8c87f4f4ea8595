import Foundation
import InstarInference
@_spi(Layouts) import InstarModel

/// Proposes a chain across a gap that Core Data cannot infer (a "synthesized decomposition").
///
/// Recipes, per blocking change:
/// - **type change** (and Binary ↔ Transformable without the user-info key): `A′` adds
///   `<name>_new` of the new type; an `after` hook of `A → A′` converts the values (built-in
///   converters for String ↔ Integer/Double/Decimal/Date/Boolean/UUID, or a user expression, or a
///   template); `A″` (the target with `renamedFrom: <name>_new`) drops the old attribute and renames
///   the new one into place;
/// - **external storage turned off**: the same shape, with a copy hook;
/// - **to-many → to-one**: `A′` adds the to-one `<name>_new`; a pick-one hook links each row to
///   one of its objects (the first of an ordered relationship, else the lowest primary key);
/// - **optional → required without a default**: a `before` hook template that fills NULLs, then
///   the tightening step itself;
/// - **a new required attribute without a default**: `A′` adds it optional, an `after` hook template
///   fills it, then `A′ → B` makes it required;
/// - anything else (merging hierarchies, renaming conflicts): a manual recipe in words.
///
/// Several changes in one gap share one `A′`/`A″` pair. Pure: it reads two models and returns values;
/// the hooks' table and column names come from `naming`, which the store layer provides per layout.
package struct Decomposer {
    /// Storage names of a model version in the target layout (nil: the Instar layout's conventions).
    package var naming: (Model) -> (any StorageNaming)?
    /// User conversions by `Entity.attribute` (target names): SQL in which `{value}` stands for the
    /// old value. They replace the built-in converters.
    package var expressions: [String: String]

    package init(naming: @escaping (Model) -> (any StorageNaming)? = { _ in nil }, expressions: [String: String] = [:]) {
        self.naming = naming
        self.expressions = expressions
    }

    /// The version name of the intermediate model: `"<A> (prepare <B>)"`.
    package static func intermediateName(from a: String, to b: String) -> String { "\(a) (prepare \(b))" }

    package func decompose(from a: Model, to b: Model, diff: ModelDiff? = nil) -> Decomposition {
        var work = DecompositionWork(a: a, b: b, diff: diff ?? ModelDiff(from: a, to: b), naming: naming, expressions: expressions)
        work.run()
        return work.result
    }
}

// MARK: - The work of one decomposition

/// The state of one decomposition while it is being built (recipes in Decomposer+Recipes.swift).
struct DecompositionWork {
    let a: Model
    let b: Model
    let diff: ModelDiff
    let naming: (Model) -> (any StorageNaming)?
    let expressions: [String: String]

    var recipes: [Decomposition.Recipe] = []
    var risks: [Decomposition.Risk] = []
    var notes: [String] = []
    /// Temporary properties to add to `A′`, by declaring entity (A's names).
    var temporaryAttributes: [String: [Attribute]] = [:]
    var temporaryRelationships: [String: [Relationship]] = [:]
    /// Properties of `B` to rename from a temporary: (declaring entity in B, property) → temporary.
    var renames: [Pending] = []
    /// The temporary attribute standing in for a subject (`Entity.property` in B), with its entity in A.
    var temporaries: [String: (entity: String, name: String)] = [:]
    /// Hooks, generated once `A′` exists (their names depend on its storage).
    var afterHooks: [(Model, any StorageNaming) -> Decomposition.Hook] = []
    var fillHooks: [(Model, any StorageNaming) -> Decomposition.Hook] = []
    var result: Decomposition

    struct Pending {
        var entity: String
        var property: String
        var temporary: String
    }

    init(a: Model, b: Model, diff: ModelDiff, naming: @escaping (Model) -> (any StorageNaming)?, expressions: [String: String]) {
        self.a = a
        self.b = b
        self.diff = diff
        self.naming = naming
        self.expressions = expressions
        self.result = Decomposition(
            from: a.name, to: b.name, recipes: [], intermediate: nil, final: nil, target: b, hooks: [], steps: [],
            risks: [], notes: [])
    }

    func names(_ model: Model) -> any StorageNaming { naming(model) ?? ConventionalNaming(model: model) }

    /// The property pair behind a change: (source, destination) resolved properties and entities.
    func pair(_ change: Change) -> (sourceEntity: String, source: ResolvedProperty, destination: ResolvedProperty)? {
        guard let property = change.property,
            let mapping = diff.mappings.first(where: { $0.destination == change.entity && $0.source != nil }),
            let sourceEntity = mapping.source,
            let p = mapping.properties.first(where: { $0.destination?.name == property && $0.source != nil }),
            let s = p.source, let d = p.destination
        else { return nil }
        return (sourceEntity, s, d)
    }

    mutating func run() {
        var handled = Set<String>()  // subjects with a temporary already
        for change in diff.changes {
            switch (change.kind, change.verdict) {
            case (.attributeTypeChanged, .notInferable), (.attributeExternalStorageChanged, .notInferable):
                guard !handled.contains(change.subject) else {
                    recipes.append(
                        .init(kind: change.kind == .attributeTypeChanged ? .typeConversion : .externalStorageCopy,
                            change: change, summary: "handled with the other change of \(change.subject)"))
                    continue
                }
                handled.insert(change.subject)
                stageAttribute(change)
            case (.relationshipCardinalityChanged, .notInferable):
                handled.insert(change.subject)
                stageToOne(change)
            case (.attributeOptionalityChanged, .conditional(_, .noNulls(let entity, let property))):
                fillNulls(change, entity: entity, property: property)
            case (.attributeAdded, .conditional(_, .noRows)):
                addRequiredLater(change)
            case (.hierarchyMerged, .notInferable):
                recipes.append(.init(kind: .manual, change: change, summary: hierarchyRecipe(change)))
            case (.renamingConflict, .notInferable):
                recipes.append(.init(kind: .manual, change: change, summary: conflictRecipe(change)))
            case (_, .notInferable(let reason)):
                recipes.append(
                    .init(
                        kind: .manual, change: change,
                        summary:
                            "no known recipe (\(reason)). Stage it by hand: an intermediate version that adds what the target needs beside what the source has, a hook that moves the data, then a version that removes the old parts"
                    ))
            case (_, .conditional(_, let condition)):
                notes.append("\(change.subject): \(condition) is checked when the step runs (\(change.verdict.reason))")
            default:
                break
            }
        }
        assemble()
    }

    // MARK: Temporary names

    /// `<name>_new`, or `<name>_new2`… when that name is taken anywhere it could clash: the entity's
    /// hierarchy in A (a property declared twice) or the entity in B (a second claim on the identifier).
    mutating func temporaryName(for name: String, sourceEntity: String, destinationEntity: String) -> String {
        var taken = Set<String>()
        let root = a.root(of: sourceEntity)
        for entity in a.hierarchy(below: root) {
            for p in a.properties(of: entity) { taken.insert(p.name) }
        }
        for p in b.properties(of: destinationEntity) {
            taken.insert(p.name)
            taken.insert(p.property.canonicalName)
        }
        for list in temporaryAttributes.values { taken.formUnion(list.map(\.name)) }
        for list in temporaryRelationships.values { taken.formUnion(list.map(\.name)) }
        var candidate = "\(name)_new"
        var suffix = 1
        while taken.contains(candidate) {
            suffix += 1
            candidate = "\(name)_new\(suffix)"
        }
        return candidate
    }

    var intermediateName: String { Decomposer.intermediateName(from: a.name, to: b.name) }
    var firstStep: String { "\(a.name) → \(intermediateName)" }

    // MARK: Manual recipes

    func hierarchyRecipe(_ change: Change) -> String {
        let roots = (change.before ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let quoted = roots.map { "'\($0)'" }.joined(separator: " and ")
        return
            "Core Data cannot merge the tables of separate hierarchies (\(quoted)) into the one of '\(change.entity)'. By hand: "
            + "(1) add an intermediate version that keeps \(quoted) unchanged and adds the hierarchy of '\(change.entity)' under new entity names (for example '\(change.entity)_new' and its sub-entities, with their relationships); "
            + "(2) declare a custom stage to it with an after hook that copies the rows of \(quoted) into the new entities (INSERT … SELECT per entity, keeping a map from old to new primary keys for the links); "
            + "(3) in the next version remove \(quoted) and rename the new entities into place with renaming identifiers ('\(change.entity)' renamedFrom '\(change.entity)_new', and so on)."
    }

    func conflictRecipe(_ change: Change) -> String {
        let claimants = change.after ?? "the elements"
        return
            "\(claimants) claim the same renaming identifier, so Core Data cannot tell which inherits the data. By hand: keep the identifier on the one that inherits the values and give the others their own (or none); if several need the old values, add an intermediate version in which they are new, copy the values in an after hook, then remove the old element"
    }

    static func hookName(_ verb: String, _ entity: String, _ property: String) -> String {
        let raw = "\(verb)_\(entity)_\(property)"
        return String(raw.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    }

    // MARK: Assembly

    mutating func assemble() {
        var hooks: [Decomposition.Hook] = []
        var steps: [Decomposition.ProposedStep] = []
        let hasTemporaries = !temporaryAttributes.isEmpty || !temporaryRelationships.isEmpty

        var intermediate: Model?
        var final: Model?
        if hasTemporaries {
            var entities = a.entities
            for index in entities.indices {
                entities[index].attributes += temporaryAttributes[entities[index].name] ?? []
                entities[index].relationships += temporaryRelationships[entities[index].name] ?? []
            }
            do {
                intermediate = try Model(
                    name: intermediateName, versionIdentifier: nil, entities: entities, validatesDefaultValues: false)
            } catch {
                notes.append("the intermediate version is not a valid model: \(error.description)")
            }
            if !renames.isEmpty {
                var entities = b.entities
                for rename in renames {
                    guard let e = entities.firstIndex(where: { $0.name == rename.entity }) else { continue }
                    if let p = entities[e].attributes.firstIndex(where: { $0.name == rename.property }) {
                        entities[e].attributes[p].renamingIdentifier = rename.temporary
                    } else if let p = entities[e].relationships.firstIndex(where: { $0.name == rename.property }) {
                        entities[e].relationships[p].renamingIdentifier = rename.temporary
                    }
                }
                do {
                    final = try Model(
                        name: b.name, versionIdentifier: b.versionIdentifier, entities: entities,
                        validatesDefaultValues: false)
                } catch {
                    notes.append("the target with renaming identifiers is not a valid model: \(error.description)")
                }
            }
        }
        let end = final ?? b
        if let intermediate {
            let names = self.names(intermediate)
            let after = afterHooks.map { $0(intermediate, names) }
            let fills = fillHooks.map { $0(intermediate, names) }
            hooks += after + fills
            let first = ModelDiff(from: a, to: intermediate)
            steps.append(
                .init(
                    from: a.name, to: intermediate.name, kind: .synthesized,
                    stage: after.isEmpty ? nil : CustomStage(from: a.name, to: intermediate.name, after: after.map(\.name)),
                    isInferable: first.isInferable))
            let second = ModelDiff(from: intermediate, to: end)
            steps.append(
                .init(
                    from: intermediate.name, to: end.name, kind: .synthesized,
                    stage: fills.isEmpty ? nil : CustomStage(from: intermediate.name, to: end.name, before: fills.map(\.name)),
                    isInferable: second.isInferable))
            for (label, d) in [("\(a.name) → \(intermediate.name)", first), ("\(intermediate.name) → \(end.name)", second)] {
                for blocking in d.blockingChanges {
                    notes.append("\(label) is not inferable: \(blocking.subject): \(blocking.verdict.reason)")
                }
            }
        } else if !fillHooks.isEmpty {
            let names = self.names(a)
            let fills = fillHooks.map { $0(a, names) }
            hooks += fills
            let d = ModelDiff(from: a, to: b)
            let remaining = d.blockingChanges
            steps.append(
                .init(
                    from: a.name, to: b.name, kind: .synthesized,
                    stage: CustomStage(from: a.name, to: b.name, before: fills.map(\.name)),
                    isInferable: remaining.isEmpty))
        }
        if let final, VersionHashes(model: final) != VersionHashes(model: b) {
            notes.append("the target with renaming identifiers does not hash like \(b.name); report this as a bug")
        }
        result.recipes = recipes
        result.intermediate = intermediate
        result.final = final
        result.hooks = hooks
        result.steps = steps
        result.risks = risks
        result.notes = notes
    }
}
