import InstarModel

/// What a step can do with the raw objects (``RawSQL``) of an adopted database's model: views and
/// triggers are recreated as the new version writes them, a raw index is recreated with a rebuilt
/// table, a raw table or index the new version drops is dropped. What a step cannot do is write raw SQL
/// that the older version did not have for a table or index: a raw table or index added or written
/// differently is a blocker, reported when the step is compiled (at `instar plan`), not after it ran;
/// so is raw SQL that names a table or column the step renames or drops (``RawSQLReference``, which
/// `instar lint` reports too).
enum RawSQLSteps {
    static func blockers(from old: Model, to new: Model) -> [String] {
        let before = Dictionary(
            old.rawSQL.filter { $0.kind == .table || $0.kind == .index }.map { ("\($0.kind.rawValue) \($0.name)", $0) },
            uniquingKeysWith: { a, _ in a })
        var result: [String] = []
        for object in new.rawSQL where object.kind == .table || object.kind == .index {
            guard let previous = before["\(object.kind.rawValue) \(object.name)"] else {
                result.append("the raw \(object.kind.rawValue) '\(object.name)' is new in \(new.name): a step never creates raw SQL")
                continue
            }
            if previous.sql != object.sql {
                result.append("the raw \(object.kind.rawValue) '\(object.name)' is written differently in \(new.name): a step never rewrites raw SQL")
            }
        }
        return result
    }
}
