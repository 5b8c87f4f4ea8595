import Foundation
import InstarMapping
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarSQL
import InstarCompiler

/// An SQL template for a hook a mapping step needs (a custom policy, an expression or filter SQL cannot
/// compute): what `instar plan --scaffold` writes for each such hook the plan does not declare.
///
/// The template is named as the refusal names the hook, and says in comments at which point of the step
/// it runs, what it must produce there, and which tables it sees; its statement skeleton holds
/// ``Decomposition/expressionPlaceholder``, so it fails until edited.
package struct MappingHookTemplate: Sendable, Hashable {
    package var hook: String
    package var point: MappingHookRequirement.Point
    /// The whole template: comments and SQL.
    package var sql: String

    static func templates(for program: MappingProgram, mapping: MappingModel, layout: any StoreLayout)
        -> [MappingHookTemplate]
    {
        let source = try? StorageMapNaming(model: program.from, layout: layout)
        let destination = try? StorageMapNaming(model: program.to, layout: layout)
        return program.hooks.map { hook in
            let entityMapping = mapping.entityMapping(named: hook.entityMapping)
            return MappingHookTemplate(
                hook: hook.name, point: hook.point,
                sql: text(hook, entityMapping, source: source, destination: destination, step: "\(program.from.name) → \(program.to.name)"))
        }
    }

    static func text(
        _ hook: MappingHookRequirement, _ mapping: EntityMapping?, source: StorageMapNaming?, destination: StorageMapNaming?,
        step: String
    ) -> String {
        let q = SQLIdentifier.quoted
        let placeholder = Decomposition.expressionPlaceholder
        let em = SQLLiteral.text(hook.entityMapping)
        let sourceEntity = mapping?.sourceEntity, destinationEntity = mapping?.destinationEntity
        let sourceTable = sourceEntity.flatMap { source?.table(of: $0) }.map { MappingProgram.asideName($0) } ?? "<source table>"
        let sourcePK = sourceEntity.flatMap { source?.primaryKey(of: $0) } ?? "<source primary key>"
        let destinationTable = destinationEntity.flatMap { destination?.table(of: $0) } ?? "<destination table>"
        let destinationPK = destinationEntity.flatMap { destination?.primaryKey(of: $0) } ?? "<destination primary key>"
        var lines = [
            "-- Hook \(hook.name): scaffolded by Instar for the mapping step \(step).",
            "-- \(hook.description)",
            "--",
            "-- Declare it in the plan's hooks (or register a Swift hook of this name on the Migrator):",
            "--   hooks:",
            "--     \(hook.name):",
            "--       sql:",
            "--         - |",
            "--           <the statement below, edited>",
            "-- It runs inside the step's transaction. The source version's tables are set aside as",
            "-- \(MappingProgram.asideName("<table>")); the key map temp._instar_keymap (mapping, source_pk, destination_pk)",
            "-- pairs each source row of an entity mapping with its destination row.",
        ]
        if let sourceEntity { lines.append("-- Source rows of '\(hook.entityMapping)': \(sourceEntity) in \(q(sourceTable)), key \(q(sourcePK)).") }
        if let destinationEntity {
            lines.append("-- Destination rows: \(destinationEntity) in \(q(destinationTable)), key \(q(destinationPK)).")
        }
        lines.append("-- Replace \(placeholder); as written the statement fails, so the step cannot run by accident.")
        lines.append("")
        let keyMap = "SELECT \"destination_pk\" FROM \"temp\".\"_instar_keymap\" WHERE \"mapping\" = \(em)"
        switch hook.point {
        case .filter:
            lines.insert("-- Runs: after the key map holds every source row of '\(hook.entityMapping)', before any destination row exists.", at: 2)
            lines.insert("-- Must: delete the key-map rows of the source rows the filter rejects (those rows are not migrated).", at: 3)
            lines.append("DELETE FROM \"temp\".\"_instar_keymap\"")
            lines.append("WHERE \"mapping\" = \(em)")
            lines.append("  AND \"source_pk\" IN (SELECT \"src\".\(q(sourcePK)) FROM \(q(sourceTable)) AS \"src\" WHERE NOT (\(placeholder)));")
        case .attribute:
            let property = hook.property ?? "<attribute>"
            let column = destinationEntity.flatMap { destination?.column(of: property, in: $0) } ?? property
            lines.insert("-- Runs: after the destination rows of '\(hook.entityMapping)' exist (the column holds its default until then).", at: 2)
            lines.insert("-- Must: set '\(property)' of each of those rows from its source row (\"src\").", at: 3)
            lines.append("UPDATE \(q(destinationTable))")
            lines.append("SET \(q(column)) = (")
            lines.append("    SELECT \(placeholder)")
            lines.append("    FROM \"temp\".\"_instar_keymap\" AS \"km\" JOIN \(q(sourceTable)) AS \"src\" ON \"src\".\(q(sourcePK)) = \"km\".\"source_pk\"")
            lines.append("    WHERE \"km\".\"mapping\" = \(em) AND \"km\".\"destination_pk\" = \(q(destinationTable)).\(q(destinationPK)))")
            lines.append("WHERE \(q(destinationPK)) IN (\(keyMap));")
        case .policy:
            lines.insert("-- Runs: after the rows and attribute hooks of '\(hook.entityMapping)', before the relationship pass.", at: 2)
            lines.insert(
                "-- Must: do what the custom policy \(mapping?.customPolicyClass.map { "'\($0)' " } ?? "")does to those rows (its createDestinationInstances… and createRelationships… work), in SQL.",
                at: 3)
            lines.append("UPDATE \(q(destinationTable))")
            lines.append("SET \(placeholder)")
            lines.append("WHERE \(q(destinationPK)) IN (\(keyMap));")
        case .relationship:
            let property = hook.property ?? "<relationship>"
            lines.insert("-- Runs: in the relationship pass, after the relationships SQL could set.", at: 2)
            lines.insert(
                "-- Must: link the destination rows of '\(hook.entityMapping)' through '\(property)' to destination rows of other entity mappings (look them up in the key map by their mapping and source_pk).",
                at: 3)
            let toMany = destinationEntity.flatMap { destination?.model.property(property, of: $0)?.property.relationship?.isToMany }
            switch (toMany, destinationEntity.flatMap { destination?.links(of: property, in: $0) }) {
            case (true?, .joinTable(let name, let owner, let target, _)?):
                lines.append("INSERT INTO \(q(name)) (\(q(owner)), \(q(target)))")
                lines.append("SELECT \(placeholder);  -- (owner's destination key, linked row's destination key)")
            case (true?, .inverseForeignKey(let table, let column, let primaryKey, _)?):
                lines.append("UPDATE \(q(table))")
                lines.append("SET \(q(column)) = (\(placeholder))  -- the destination key of the owning row")
                lines.append("WHERE \(q(primaryKey)) IN (\(placeholder));")
            default:
                let column = destinationEntity.flatMap { destination?.column(of: property, in: $0) } ?? property
                lines.append("UPDATE \(q(destinationTable))")
                lines.append("SET \(q(column)) = (\(placeholder))  -- the destination key of the linked row")
                lines.append("WHERE \(q(destinationPK)) IN (\(keyMap));")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
