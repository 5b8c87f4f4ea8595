import InstarInference
@_spi(Layouts) import InstarModel

/// What a step can do with the raw objects (``RawSQL``) of an adopted database's model: views and
/// triggers are recreated as the new version writes them, a raw index is recreated with a rebuilt
/// table, a raw table or index the new version drops is dropped. What a step cannot do is write raw SQL
/// that the older version did not have for a table or index: a raw table or index added or written
/// differently is a blocker, reported when the step is compiled (at `instar plan`), not after it ran;
/// so is raw SQL that names a table or column the step renames or drops (``RawSQLReference``, which
/// `instar lint` reports too).
enum RawSQLSteps {
    static func blockers(from old: Model, to new: Model) -> [RawSQLBlocker] {
        let before = Dictionary(
            old.rawSQL.filter { $0.kind == .table || $0.kind == .index }.map { ("\($0.kind.rawValue) \($0.name)", $0) },
            uniquingKeysWith: { a, _ in a })
        var result: [RawSQLBlocker] = []
        for object in new.rawSQL where object.kind == .table || object.kind == .index {
            guard let previous = before["\(object.kind.rawValue) \(object.name)"] else {
                result.append(RawSQLBlocker(object: object, version: new.name, problem: .added))
                continue
            }
            if previous.sql != object.sql {
                result.append(RawSQLBlocker(object: object, version: new.name, problem: .rewritten))
            }
        }
        return result
    }
}

extension RawSQLReference {
    /// The reference as a blocker of the step to `version`, by its facts.
    func blocker(version: String) -> RawSQLBlocker {
        let renamed: String? = if case .renamed(let name) = change { name } else { nil }
        switch target {
        case .table(let table): return RawSQLBlocker(object: object, version: version, problem: .refersToTable(table, renamedTo: renamed))
        case .column(let table, let column):
            return RawSQLBlocker(object: object, version: version, problem: .refersToColumn(table: table, column: column, renamedTo: renamed))
        }
    }
}
