@_spi(Layouts) import InstarLayouts

/// Fusing consecutive steps: two programs become one, so each table is rewritten at most once.
///
/// A step's target columns are expressions over its source row; the next step's expressions read
/// the first step's target columns. Substituting the first step's expressions into the second's gives
/// the second step's target straight from the first step's source: `ADD COLUMN` and renames stay
/// plain copies (so the fused table can still be altered in place), and a table that both steps
/// would rebuild is rebuilt once.
///
/// Fusion is refused (nil) where the composition could differ from running the steps one after the
/// other: a value read from another table (a lookup) whose table the first step replaces, positions
/// numbered before a later filter removes rows, positions numbered after an earlier step removed rows
/// (and with them links from the numbered table), a per-entity choice over a renumbered discriminator,
/// or a data condition of the second step (it must be checked on the data as the first step leaves it).
/// Why two consecutive steps were not fused, for the dry run (each table they both rewrite is then
/// rewritten twice in the same transaction).
package enum FusionRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The second step's data conditions must be checked on the data the first step leaves.
    case conditions
    /// The steps are not consecutive versions.
    case notConsecutive
    /// A table the second step reads was not produced by the first (`table`).
    case unknownSource(String)
    /// A value looked up in another table while the first step replaces or filters it (`table`).
    case lookup(String)
    /// Positions (ordered relationships) numbered around rows the other step removes (`table`).
    case positions(String)
    /// A per-entity choice over an entity number the first step computes (`table`).
    case discriminator(String)

    package var description: String {
        switch self {
        case .conditions: "the second step has data conditions, checked on the data the first step leaves"
        case .notConsecutive: "the steps are not consecutive"
        case .unknownSource(let table): "\(table) is read by the second step but not written by the first"
        case .lookup(let table): "\(table) takes a value from another table that the first step rewrites or filters"
        case .positions(let table): "\(table) numbers ordered positions around rows the other step removes"
        case .discriminator(let table): "\(table) chooses per entity by an entity number the first step recomputes"
        }
    }
}

extension StepProgram {
    package func fused(with next: StepProgram, nextHasConditions: Bool = false) -> StepProgram? {
        try? fusion(with: next, nextHasConditions: nextHasConditions).get()
    }

    /// The two programs as one, or why they cannot be composed exactly.
    package func fusion(with next: StepProgram, nextHasConditions: Bool = false) -> Result<StepProgram, FusionRefusal> {
        if nextHasConditions { return .failure(.conditions) }
        guard next.fromVersion == toVersion else { return .failure(.notConsecutive) }
        let byTarget = Dictionary(transformations.map { ($0.target.name, $0) }, uniquingKeysWith: { a, _ in a })
        var composed: [TableTransformation] = []
        let firstRemovesRows = transformations.contains { !$0.filter.isEmpty }
        for second in next.transformations {
            guard let source = second.source else {
                composed.append(second)
                continue
            }
            guard let first = byTarget[source] else { return .failure(.unknownSource(source)) }
            guard let firstSource = first.source else {
                // The first step created this table empty: the second reads no rows either.
                var empty = second
                empty.source = nil
                empty.columns = [:]
                empty.filter = []
                empty.continuesSource = false
                composed.append(empty)
                continue
            }
            let table = second.target.name
            if first.columns.values.contains(where: \.containsLookup) && !second.filter.isEmpty { return .failure(.lookup(table)) }
            if second.columns.values.contains(where: \.containsLookup) { return .failure(.lookup(table)) }
            // Positions number the rows that are there: when the first step removes rows of some table,
            // it also removes the links to them (from this table too), before the second step numbers.
            if firstRemovesRows && second.columns.values.contains(where: \.containsPosition) { return .failure(.positions(table)) }
            if first.columns.values.contains(where: \.containsPosition) && !second.filter.isEmpty { return .failure(.positions(table)) }
            let replacement: (String) -> ColumnValueExpression = { first.columns[$0] ?? .null }
            var chooseSafe = true
            var columns: [String: ColumnValueExpression] = [:]
            for (column, expression) in second.columns {
                if expression.chooseDiscriminators.contains(where: { replacement($0).copiedColumn == nil }) {
                    chooseSafe = false
                }
                columns[column] = expression.substituting(replacement)
            }
            guard chooseSafe else { return .failure(.discriminator(table)) }
            composed.append(
                TableTransformation(
                    target: second.target, role: second.role, source: firstSource, columns: columns,
                    filter: first.filter + second.filter.map { $0.substituting(replacement) },
                    continuesSource: first.continuesSource && second.continuesSource))
        }
        // Entities that survive both steps.
        var survivors: [SurvivingEntity] = []
        for a in survivingEntities {
            guard let b = next.survivingEntities.first(where: { $0.sourceEntity == a.destinationEntity }) else { continue }
            survivors.append(
                SurvivingEntity(
                    sourceEntity: a.sourceEntity, sourceTable: a.sourceTable, sourceDiscriminator: a.sourceDiscriminator,
                    destinationEntity: b.destinationEntity, destinationTable: b.destinationTable,
                    destinationDiscriminator: b.destinationDiscriminator))
        }
        let continued = Set(composed.filter(\.continuesSource).compactMap(\.source))
        let sourceTables = Set(transformations.compactMap(\.source)).union(droppedTables)
        return .success(
            StepProgram(
                fromVersion: fromVersion, toVersion: next.toVersion, transformations: composed,
                droppedTables: sourceTables.subtracting(continued).sorted(), targetSchema: next.targetSchema,
                survivingEntities: survivors))
    }
}

extension ColumnValueExpression {
    /// Whether the value reads another table's row (a lookup): such a copy cannot be fused past a filter,
    /// sliced, or moved across a hook. SPI only because the store module reads it on an SPI type.
    @_spi(Layouts) public var containsLookup: Bool {
        switch self {
        case .lookup: true
        case .column, .value: false
        case .cast(let e, _), .boolean(let e), .mapping(let e, _), .prefixed(let e, _): e.containsLookup
        case .coalesce(let a, let b), .choose(_, _, let a, let b): a.containsLookup || b.containsLookup
        case .position(let p, let o, _): p.containsLookup || o.contains(where: \.containsLookup)
        }
    }

    /// Whether the value numbers rows (an ordered relationship's position), which depends on the
    /// whole table and so on copying it in one go.
    @_spi(Layouts) public var containsPosition: Bool {
        switch self {
        case .position: true
        case .column, .value, .lookup: false
        case .cast(let e, _), .boolean(let e), .mapping(let e, _), .prefixed(let e, _): e.containsPosition
        case .coalesce(let a, let b), .choose(_, _, let a, let b): a.containsPosition || b.containsPosition
        }
    }

    /// Discriminator columns that `choose` expressions test.
    var chooseDiscriminators: [String] {
        switch self {
        case .choose(let d, _, let a, let b): [d] + a.chooseDiscriminators + b.chooseDiscriminators
        case .column, .value, .lookup: []
        case .cast(let e, _), .boolean(let e), .mapping(let e, _), .prefixed(let e, _): e.chooseDiscriminators
        case .coalesce(let a, let b): a.chooseDiscriminators + b.chooseDiscriminators
        case .position(let p, let o, _): p.chooseDiscriminators + o.flatMap(\.chooseDiscriminators)
        }
    }
}
