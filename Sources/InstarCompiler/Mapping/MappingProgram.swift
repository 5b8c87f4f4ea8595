import InstarMapping
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// One statement of a mapping step: SQL text with `?` placeholders and the values bound to them.
package struct MappingStatement: Sendable, CustomStringConvertible {
    package var sql: String
    package var arguments: [SQLValue]
    /// What it does, for the dry run and for error messages.
    package var purpose: String

    package init(_ sql: String, arguments: [SQLValue] = [], purpose: String) {
        self.sql = sql
        self.arguments = arguments
        self.purpose = purpose
    }

    package var description: String {
        var text = "-- \(purpose)\n\(sql)"
        if !arguments.isEmpty { text += "\n-- bound: " + arguments.map(\.literal).joined(separator: ", ") }
        return text
    }
}

/// A statement, or the place where a hook runs.
package enum MappingAction: Sendable {
    case statement(MappingStatement)
    case hook(MappingHookRequirement)
}

/// What one entity mapping does in one pass of the step.
package struct MappingPass: Sendable {
    /// The entity mapping's name (`NoteToAttachment`).
    package var entityMapping: String
    package var actions: [MappingAction]
}

/// A mapping step compiled against the source and destination storage of a layout: every statement
/// it will run, in order, and the hooks it needs. Built once for the run and for the dry run, so the
/// dry run shows what runs.
///
/// Core Data's order is kept: every entity mapping creates its destination instances (in
/// `mappingnumber` order), then every entity mapping sets its relationships through the
/// source → destination instance map. Here the instance map is the temporary key map
/// `temp._instar_keymap(mapping, source_pk, destination_pk)`, and the source tables are set aside as
/// `_instar_source_<table>` while the destination version's tables are created, so that hooks can read
/// both.
package struct MappingProgram: Sendable {
    package var mappingModel: String
    package var from: Model
    package var to: Model
    /// The source version's tables (entity and join tables), set aside for the step.
    package var sourceTables: [String]
    /// The destination version's tables and indexes.
    package var destination: StorageMap
    /// Instance creation, one pass per entity mapping with a source and a destination.
    package var instancePasses: [MappingPass]
    /// Relationship setting, one pass per entity mapping that has relationship mappings.
    package var relationshipPasses: [MappingPass]
    /// Final pass: the columns holding a linked row's entity number (Core Data's `Z<n>_<REL>`).
    package var finishing: [MappingStatement]
    /// Every hook the step needs, in the order they run.
    package var hooks: [MappingHookRequirement]
    /// The SQL functions the statements call.
    package var functions: Set<MappingSQLFunction>

    /// The name a source table has while the step runs.
    package static func asideName(_ table: String) -> String { "_instar_source_" + table }

    /// The temporary table mapping source keys to destination keys, per entity mapping.
    package static let keyMap = "_instar_keymap"

    /// Every statement in the order it runs, hooks shown as comments: for the dry run.
    package var renderedSQL: [String] {
        var lines = sourceTables.map { "ALTER TABLE \($0.sqlQuoted) RENAME TO \(Self.asideName($0).sqlQuoted)" }
        lines += destination.schema.tables.map { $0.createSQL() }
        for pass in instancePasses + relationshipPasses {
            lines.append("-- entity mapping \(pass.entityMapping)")
            for action in pass.actions {
                switch action {
                case .statement(let statement): lines.append(statement.description)
                case .hook(let hook): lines.append("-- hook \(hook.name) (\(hook.point.rawValue)): \(hook.reason)")
                }
            }
        }
        lines += finishing.map(\.description)
        lines += destination.schema.indexes.map(\.createSQL)
        lines += sourceTables.map { "DROP TABLE \(Self.asideName($0).sqlQuoted)" }
        return lines
    }
}

extension MappingValue {
    /// The database value of a bound constant (Booleans and dates are already numbers here).
    package var sqlValue: SQLValue {
        switch self {
        case .null: .null
        case .bool(let flag): .integer(flag ? 1 : 0)
        case .integer(let value): .integer(value)
        case .real(let value), .date(let value): .real(value)
        case .string(let text): .text(text)
        case .data(let bytes): .blob(bytes)
        case .array, .dictionary: .null
        }
    }
}
