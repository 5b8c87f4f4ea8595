import InstarInference
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// A proposed way across a gap that no chain of inferable steps crosses: intermediate versions,
/// the hooks that move the data between them, and what could go wrong.
///
/// The shape follows Core Data's staged migration: `A → A′` is an inferable step that only *adds*
/// temporary properties (so both the old and the new shape exist at once) and runs hooks that fill
/// them; `A′ → A″` is an inferable step that drops the old properties and renames the temporary ones
/// into place. `A″` is the target version `B` with renaming identifiers on the renamed properties;
/// renaming identifiers are not part of Core Data's version hashes, so `A″` *is* version `B` to Core
/// Data and to every store.
package struct Decomposition: Sendable {
    /// What a blocking change gets.
    package enum RecipeKind: String, Sendable {
        /// A type change: a temporary attribute of the new type, a conversion hook, drop and rename.
        case typeConversion
        /// External storage turned off: a temporary in-store attribute, a copy hook, drop and rename.
        case externalStorageCopy
        /// To-many becomes to-one: a temporary to-one, a pick-one hook, drop and rename.
        case pickOne
        /// Optional becomes required without a default: a fill hook (a template), then the tightening.
        case fillNulls
        /// A new required attribute without a default: added optional first, filled (a template), then tightened.
        case fillNewRequired
        /// No mechanical recipe: what to do, in words.
        case manual
    }

    /// How one blocking (or conditional) change is handled.
    package struct Recipe: Sendable {
        /// Which recipe handles the change.
        package var kind: RecipeKind
        /// The change, with Core Data's verdict and the reason it blocks.
        package var change: Change
        /// One or two sentences: what the recipe does.
        package var summary: String
        /// The temporary property added in `A′`, if any.
        package var temporary: String?
        /// The hook that moves the data, if any.
        package var hook: String?
    }

    /// A hook the proposal needs, ready to add to the plan's `hooks:`.
    package struct Hook: Sendable {
        package var name: String
        /// What the hook runs (SQL), to paste into the plan's `hooks:`; a template must be completed first.
        package var definition: HookDefinition
        /// `before` (runs on the old shape of its step) or `after` (on the new shape).
        package var phase: String
        /// The step it belongs to, as `"from → to"`.
        package var step: String
        /// True when the SQL holds a placeholder (``Decomposition/fillPlaceholder`` or
        /// ``Decomposition/expressionPlaceholder``) that the user must replace: as written it fails.
        package var isTemplate: Bool
        /// What the hook does, and what happens to values it cannot handle.
        package var purpose: String
    }

    /// One step of the proposed chain. Steps with hooks become custom stages in the plan.
    package struct ProposedStep: Sendable {
        /// The version the step starts at.
        package var from: String
        /// The version the step ends at.
        package var to: String
        /// Always ``Step/Kind/synthesized``: Instar proposed it, the user adds it to the plan.
        package var kind: Step.Kind
        /// The custom stage to declare, when the step runs hooks.
        package var stage: CustomStage?
        /// True when `from → to` is inferable (conditions allowed), as checked by ``ModelDiff``.
        package var isInferable: Bool
    }

    /// Something that can lose or block data when the proposal runs.
    package struct Risk: Sendable {
        /// Which sort of loss or block it is, so that tools and tests can tell risks apart without the prose.
        package enum Kind: String, Sendable, Hashable {
            /// Values that do not convert to the new type become NULL.
            case lossyConversion
            /// A value that becomes NULL blocks a later step, the attribute being required without a default.
            case nullBlocksStep
            /// Externally stored binary values (Core Data's `_EXTERNAL_DATA` files) that SQL cannot copy.
            case externalStorage
            /// Rows get the value written into a template hook, which must be edited first.
            case templateFill
            /// Links beyond what a to-one keeps are dropped.
            case droppedLinks
        }

        /// Which sort of risk it is.
        package var kind: Kind
        /// What is at risk, as `Entity.property` or `Entity`.
        package var subject: String
        /// What can go wrong, in a sentence.
        package var message: String
        /// `SELECT count(*) …` over the store at version `from`, counting the rows concerned.
        package var countSQL: String?
        /// The count, once a dry run evaluated `countSQL` on a store.
        package var count: Int?
    }

    /// Written where the user must supply a value, in fill hooks.
    package static let fillPlaceholder = "<FILL VALUE>"
    /// Written where the user must supply a conversion, in hooks without a built-in converter.
    package static let expressionPlaceholder = "<SQL EXPRESSION>"

    /// The version at the start of the gap (`A`).
    package var from: String
    /// The version at the end of the gap (`B`).
    package var to: String
    /// Every change that blocks inference, and the conditional ones the proposal resolves.
    package var recipes: [Recipe]
    /// `A′`: the source version plus temporary properties; nil when no temporary is needed.
    package var intermediate: Model?
    /// `A″`: the target version with renaming identifiers on renamed-into-place properties; nil when
    /// the target version is used as it is.
    package var final: Model?
    /// The target version as the plan has it.
    package var target: Model
    /// The hooks the proposed steps run.
    package var hooks: [Hook]
    /// The proposed chain from ``from`` to ``to``, in order.
    package var steps: [ProposedStep]
    /// What can lose or block data when the proposal runs, for the user to check before running it.
    package var risks: [Risk]
    /// Further facts: checks that failed, conditions left to run time.
    package var notes: [String]

    /// The versions of the proposed chain: `[A, A′, A″]`, `[A, A′, B]` or `[A, B]`.
    package var versions: [String] { steps.isEmpty ? [] : [steps[0].from] + steps.map(\.to) }

    /// The manual recipes, in words; nil when every change has a mechanical recipe.
    package var manualRecipe: String? {
        let texts = recipes.filter { $0.kind == .manual }.map { "\($0.change.subject): \($0.summary)" }
        return texts.isEmpty ? nil : texts.joined(separator: "\n")
    }

    /// True when the proposed chain covers every blocking change (no manual recipe is left) and each
    /// step checks as inferable.
    package var isComplete: Bool { manualRecipe == nil && !steps.isEmpty && steps.allSatisfy(\.isInferable) }

    /// True when a hook holds a placeholder the user must edit.
    package var hasTemplates: Bool { hooks.contains(where: \.isTemplate) }

    /// Hook definitions by name, as a plan's `hooks:` wants them.
    package var hookDefinitions: [String: HookDefinition] {
        Dictionary(hooks.map { ($0.name, $0.definition) }, uniquingKeysWith: { a, _ in a })
    }

    /// The custom stages to declare in the plan.
    package var stages: [CustomStage] { steps.compactMap(\.stage) }

    /// The models of the proposed chain, oldest first, as a plan's `versions:` wants them (the first
    /// is the source version, which the caller supplies).
    package func models(from source: Model) -> [Model] {
        var models = [source]
        if let intermediate { models.append(intermediate) }
        if !steps.isEmpty { models.append(final ?? target) }
        return models
    }
}

/// Where a layout keeps what a synthesized hook reads and writes, for one model version.
///
/// Read from a layout's storage map (``StorageMapNaming``), so hooks name exactly the tables and
/// columns a step makes.
package protocol StorageNaming {
    /// The table holding the entity's rows.
    func table(of entity: String) -> String?
    /// The primary-key column of the entity's table.
    func primaryKey(of entity: String) -> String?
    /// The column of an attribute or a to-one relationship of the entity (inherited ones included).
    func column(of property: String, in entity: String) -> String?
    /// A SQL condition selecting the entity's rows in a table shared with other entities
    /// (`"_entity" IN ('Car', 'Van')`), or nil when the table holds only this entity.
    func rowFilter(of entity: String) -> String?
    /// How a to-many relationship of the entity keeps its links.
    func links(of relationship: String, in entity: String) -> LinkStorage?
    /// How the layout stores dates and UUIDs, so that a conversion writes the layout's own form.
    var valueEncoding: ValueEncoding { get }
}

/// Where the links of a to-many relationship are, as seen from its owner.
package enum LinkStorage: Sendable, Hashable {
    /// The destination rows hold the owner's key in `column` (the inverse to-one's foreign key),
    /// with a position column when the relationship is ordered.
    case inverseForeignKey(table: String, column: String, primaryKey: String, position: String?)
    /// A link table: `ownerColumn` holds the owner's key, `destinationColumn` the destination's.
    case joinTable(name: String, ownerColumn: String, destinationColumn: String, position: String?)
}

/// Names by the Instar layout's conventions (table = root entity, column = property name, key
/// `_pk`), for a model the plan's layout cannot map (its storage map fails), so a decomposition can
/// still be proposed. It does not know where to-many links are kept.
package struct ConventionalNaming: StorageNaming {
    package let model: Model
    package init(model: Model) { self.model = model }
    package func table(of entity: String) -> String? { model.entity(named: entity) == nil ? nil : model.root(of: entity) }
    package func primaryKey(of entity: String) -> String? { InstarLayout.primaryKey }
    package func column(of property: String, in entity: String) -> String? { property }
    package func rowFilter(of entity: String) -> String? {
        let root = model.root(of: entity)
        guard model.hierarchy(below: root).count > 1 else { return nil }
        let kinds = model.hierarchy(below: entity).map(SQLLiteral.text).joined(separator: ", ")
        return "\(SQLIdentifier.quoted(InstarLayout.discriminator)) IN (\(kinds))"
    }
    package func links(of relationship: String, in entity: String) -> LinkStorage? { nil }
    package var valueEncoding: ValueEncoding { .instar }
}
