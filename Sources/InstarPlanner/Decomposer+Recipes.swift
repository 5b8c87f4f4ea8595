import Foundation
import InstarInference
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// The staged recipes: temporary attributes with converters, and the pick-one recipe for to-many → to-one.
extension DecompositionWork {
    // MARK: Attribute recipes

    mutating func stageAttribute(_ change: Change) {
        guard let (sourceEntity, s, d) = pair(change), let old = s.property.attribute, let new = d.property.attribute
        else {
            recipes.append(.init(kind: .manual, change: change, summary: "the attribute could not be found in both versions"))
            return
        }
        let typeChanges = old.type != new.type
        let temporary = temporaryName(for: new.name, sourceEntity: sourceEntity, destinationEntity: change.entity)
        var attribute = Attribute(name: temporary, type: new.type, isOptional: true)
        attribute.allowsExternalBinaryDataStorage = new.allowsExternalBinaryDataStorage
        attribute.userInfo = new.userInfo
        temporaryAttributes[s.declaringEntity, default: []].append(attribute)
        renames.append(Pending(entity: d.declaringEntity, property: new.name, temporary: temporary))
        temporaries[change.subject] = (s.declaringEntity, temporary)

        let hookName = Self.hookName(typeChanges ? "convert" : "copy", change.entity, new.name)
        let subject = change.subject
        let declaring = s.declaringEntity
        let key = "\(change.entity).\(new.name)"
        let userExpression = expressions[key] ?? expressions["\(sourceEntity).\(old.name)"]
        let valueInA = names(a).column(of: old.name, in: declaring) ?? old.name
        let conversion: Converters.Conversion? =
            if let userExpression {
                Converters.Conversion(
                    expression: userExpression.replacingOccurrences(of: "{value}", with: SQLIdentifier.quoted(valueInA)),
                    lossy: "values for which your expression gives NULL")
            } else if typeChanges {
                Converters.conversion(
                    from: old.type, to: new.type, value: SQLIdentifier.quoted(valueInA), encoding: names(a).valueEncoding)
            } else {
                Converters.Conversion(expression: SQLIdentifier.quoted(valueInA), lossy: nil)
            }
        let kind: Decomposition.RecipeKind = typeChanges ? .typeConversion : .externalStorageCopy
        var summary =
            typeChanges
            ? "\(old.type.xcodeName) → \(new.type.xcodeName): \(intermediateName) adds '\(temporary)' (\(new.type.xcodeName)); hook '\(hookName)' converts the values"
            : "external storage turned off: \(intermediateName) adds '\(temporary)' stored in the store; hook '\(hookName)' copies the bytes"
        summary += "; then \(b.name) drops '\(old.name)' and renames '\(temporary)' into place (renaming identifier '\(temporary)')"
        if typeChanges, conversion == nil {
            summary += ". No built-in converter: write the conversion into the hook"
        }
        recipes.append(.init(kind: kind, change: change, summary: summary, temporary: temporary, hook: hookName))

        // Risks, counted on the store at version A.
        let tableA = names(a).table(of: declaring) ?? a.root(of: declaring)
        if let lossy = conversion?.lossy, let expression = conversion?.expression {
            risks.append(
                .init(
                    kind: .lossyConversion,
                    subject: subject,
                    message: "values of '\(subject)' that do not convert become NULL: \(lossy)",
                    countSQL:
                        "SELECT count(*) FROM \(SQLIdentifier.quoted(tableA)) WHERE \(SQLIdentifier.quoted(valueInA)) IS NOT NULL AND (\(expression)) IS NULL"
                ))
            if !new.isOptional && new.defaultValue == nil {
                risks.append(
                    .init(
                        kind: .nullBlocksStep,
                        subject: subject,
                        message:
                            "'\(subject)' is required in \(b.name) without a default: a value that becomes NULL blocks the step \(intermediateName) → \(b.name) (fix it in the hook, or give the attribute a default)"
                    ))
            }
        }
        if !typeChanges || old.allowsExternalBinaryDataStorage {
            risks.append(
                .init(
                    kind: .externalStorage,
                    subject: subject,
                    message:
                        "the Instar layout keeps binary values in the store, so '\(hookName)' copies them in SQL; a Core Data store keeps externally stored values in files (_EXTERNAL_DATA), which SQL cannot read: use a Swift or command hook there"
                ))
        }
        let hint = Converters.hint(
            from: old.type, to: new.type, value: SQLIdentifier.quoted(valueInA), encoding: names(a).valueEncoding)
        let oldName = old.name
        let newType = new.type
        let oldType = old.type
        let firstStep = self.firstStep
        afterHooks.append { model, names in
            let table = names.table(of: declaring) ?? declaring
            let source = SQLIdentifier.quoted(names.column(of: oldName, in: declaring) ?? oldName)
            let target = SQLIdentifier.quoted(names.column(of: temporary, in: declaring) ?? temporary)
            let expression: String
            var isTemplate = false
            if let userExpression {
                expression = userExpression.replacingOccurrences(of: "{value}", with: source)
            } else if typeChanges {
                if let c = Converters.conversion(from: oldType, to: newType, value: source, encoding: names.valueEncoding) {
                    expression = c.expression
                } else {
                    expression = Decomposition.expressionPlaceholder
                    isTemplate = true
                }
            } else {
                expression = source
            }
            var filter = "\(source) IS NOT NULL"
            if let rows = names.rowFilter(of: declaring) { filter += " AND \(rows)" }
            let sql = "UPDATE \(SQLIdentifier.quoted(table)) SET \(target) = \(expression) WHERE \(filter)"
            var purpose =
                typeChanges
                ? "fills '\(temporary)' (\(newType.xcodeName)) from '\(oldName)' (\(oldType.xcodeName))"
                : "copies '\(oldName)' into '\(temporary)', kept in the store"
            if isTemplate {
                purpose += "; TEMPLATE: replace \(Decomposition.expressionPlaceholder) with an SQL expression of \(source)"
                if let hint { purpose += " (\(hint))" }
            } else if let lossy = conversion?.lossy {
                purpose += "; NULL for \(lossy)"
            }
            return Decomposition.Hook(
                name: hookName, definition: .sql([sql]), phase: "after", step: firstStep,
                isTemplate: isTemplate, purpose: purpose)
        }
    }

    /// Optional → required without a default: fill the NULLs before the step (a template).
    mutating func fillNulls(_ change: Change, entity countEntity: String, property countProperty: String) {
        let hookName = Self.hookName("fill", change.entity, change.property ?? countProperty)
        // When the attribute is also staged, the NULLs to fill are in its temporary, where the values
        // that did not convert are NULL too.
        let staged = temporaries[change.subject]
        let entity = staged?.entity ?? countEntity
        let property = staged?.name ?? countProperty
        recipes.append(
            .init(
                kind: .fillNulls, change: change,
                summary:
                    "becomes required without a default: hook '\(hookName)' (a template: choose the value) fills the NULLs"
                    + (staged.map { " of '\($0.name)'" } ?? "") + " before the step that makes it required",
                hook: hookName))
        let namesA = names(a)
        let table = namesA.table(of: countEntity) ?? a.root(of: countEntity)
        let column = SQLIdentifier.quoted(namesA.column(of: countProperty, in: countEntity) ?? countProperty)
        var filter = "\(column) IS NULL"
        if let rows = namesA.rowFilter(of: countEntity) { filter += " AND \(rows)" }
        risks.append(
            .init(
                kind: .templateFill,
                subject: change.subject,
                message:
                    "rows with NULL in '\(countEntity).\(countProperty)'"
                    + (staged == nil ? "" : " (and those whose value does not convert)")
                    + " get the value written into hook '\(hookName)' (a template: the step fails until it is edited); with none, the hook can be left out",
                countSQL: "SELECT count(*) FROM \(SQLIdentifier.quoted(table)) WHERE \(filter)"))
        let target = b.name
        fillHooks.append { model, names in
            let table = names.table(of: entity) ?? entity
            let column = SQLIdentifier.quoted(names.column(of: property, in: entity) ?? property)
            var filter = "\(column) IS NULL"
            if let rows = names.rowFilter(of: entity) { filter += " AND \(rows)" }
            return Decomposition.Hook(
                name: hookName,
                definition: .sql([
                    "UPDATE \(SQLIdentifier.quoted(table)) SET \(column) = \(Decomposition.fillPlaceholder) WHERE \(filter)"
                ]),
                phase: "before", step: "\(model.name) → \(target)", isTemplate: true,
                purpose:
                    "TEMPLATE: replace \(Decomposition.fillPlaceholder) with the value (or an SQL expression) that '\(entity).\(property)' takes where it is NULL"
            )
        }
    }

    /// A new required attribute without a default: add it optional in `A′`, fill it, then tighten.
    mutating func addRequiredLater(_ change: Change) {
        guard let mapping = diff.mappings.first(where: { $0.destination == change.entity }),
            mapping.source != nil,
            let d = mapping.properties.first(where: { $0.destination?.name == change.property })?.destination,
            let attribute = d.property.attribute,
            let declaringInA = diff.source(ofEntity: d.declaringEntity)
        else {
            notes.append("\(change.subject): \(change.verdict.condition.map(\.description) ?? "a condition") is checked when the step runs (\(change.verdict.reason))")
            return
        }
        var optional = attribute
        optional.isOptional = true
        optional.renamingIdentifier = nil
        temporaryAttributes[declaringInA, default: []].append(optional)
        let hookName = Self.hookName("fill", change.entity, attribute.name)
        recipes.append(
            .init(
                kind: .fillNewRequired, change: change,
                summary:
                    "a new required attribute without a default: \(intermediateName) adds it optional, hook '\(hookName)' (a template: choose the value) fills it, then \(b.name) makes it required",
                temporary: attribute.name, hook: hookName))
        let name = attribute.name
        let firstStep = self.firstStep
        let subject = change.subject
        risks.append(
            .init(
                kind: .templateFill,
                subject: change.subject,
                message:
                    "'\(change.subject)' is new and required without a default: hook '\(hookName)' is a template; the step fails until it is edited"
            ))
        afterHooks.append { model, names in
            let table = names.table(of: declaringInA) ?? declaringInA
            let column = SQLIdentifier.quoted(names.column(of: name, in: declaringInA) ?? name)
            var filter = "\(column) IS NULL"
            if let rows = names.rowFilter(of: declaringInA) { filter += " AND \(rows)" }
            return Decomposition.Hook(
                name: hookName,
                definition: .sql([
                    "UPDATE \(SQLIdentifier.quoted(table)) SET \(column) = \(Decomposition.fillPlaceholder) WHERE \(filter)"
                ]),
                phase: "after", step: firstStep, isTemplate: true,
                purpose: "TEMPLATE: replace \(Decomposition.fillPlaceholder) with the value of '\(subject)' for existing rows")
        }
    }

    // MARK: To-many → to-one

    mutating func stageToOne(_ change: Change) {
        guard let (sourceEntity, s, d) = pair(change), let old = s.property.relationship, let new = d.property.relationship
        else {
            recipes.append(.init(kind: .manual, change: change, summary: "the relationship could not be found in both versions"))
            return
        }
        let declaring = s.declaringEntity
        let temporary = temporaryName(for: new.name, sourceEntity: sourceEntity, destinationEntity: change.entity)
        // The destination as A names it (the target's destination may have been renamed).
        let destination = diff.source(ofEntity: new.destination) ?? old.destination
        temporaryRelationships[declaring, default: []].append(
            Relationship(name: temporary, destination: destination, isToMany: false, isOptional: true))
        renames.append(Pending(entity: d.declaringEntity, property: new.name, temporary: temporary))
        let hookName = Self.hookName("pick", change.entity, new.name)
        let rule = old.isOrdered ? "the first object of the ordered set" : "the object with the lowest primary key"
        recipes.append(
            .init(
                kind: .pickOne, change: change,
                summary:
                    "to-many → to-one: \(intermediateName) adds the to-one '\(temporary)'; hook '\(hookName)' links each row to \(rule) among its '\(old.name)'; then \(b.name) drops '\(old.name)' and renames '\(temporary)' into place",
                temporary: temporary, hook: hookName))

        // Risks, on the store at A.
        let oldName = old.name
        var countSQL: String?
        if let links = names(a).links(of: oldName, in: declaring) {
            switch links {
            case .inverseForeignKey(let table, let column, _, _):
                countSQL =
                    "SELECT count(*) FROM (SELECT 1 FROM \(SQLIdentifier.quoted(table)) WHERE \(SQLIdentifier.quoted(column)) IS NOT NULL GROUP BY \(SQLIdentifier.quoted(column)) HAVING count(*) > 1)"
            case .joinTable(let name, let owner, _, _):
                countSQL =
                    "SELECT count(*) FROM (SELECT 1 FROM \(SQLIdentifier.quoted(name)) GROUP BY \(SQLIdentifier.quoted(owner)) HAVING count(*) > 1)"
            }
        }
        risks.append(
            .init(
                kind: .droppedLinks,
                subject: change.subject,
                message:
                    "'\(change.subject)' rows linked to several objects keep only \(rule); the other links are dropped",
                countSQL: countSQL))
        if !new.isOptional {
            risks.append(
                .init(
                    kind: .nullBlocksStep,
                    subject: change.subject,
                    message:
                        "'\(change.subject)' is required in \(b.name): rows without any link block the step \(intermediateName) → \(b.name)"
                ))
        }
        // The target's inverse, if it is a to-one: a one-to-one must agree on both sides.
        let inverseIsToOne =
            new.inverse.flatMap { b.property($0, of: new.destination)?.property.relationship }.map(\.isToOne) ?? false
        let firstStep = self.firstStep
        afterHooks.append { _, names in
            let table = names.table(of: declaring) ?? declaring
            let key = SQLIdentifier.quoted(names.primaryKey(of: declaring) ?? InstarLayout.primaryKey)
            let target = SQLIdentifier.quoted(names.column(of: temporary, in: declaring) ?? temporary)
            let owner = "\(SQLIdentifier.quoted(table)).\(key)"
            let link = SQLIdentifier.quoted("_link")
            var statements: [String] = []
            var isTemplate = false
            let subquery: String
            switch names.links(of: oldName, in: declaring) {
            case .inverseForeignKey(let linkTable, let column, let primaryKey, let position)?:
                let order = (position.map { "\(link).\(SQLIdentifier.quoted($0)), " } ?? "") + "\(link).\(SQLIdentifier.quoted(primaryKey))"
                subquery =
                    "(SELECT \(link).\(SQLIdentifier.quoted(primaryKey)) FROM \(SQLIdentifier.quoted(linkTable)) AS \(link) WHERE \(link).\(SQLIdentifier.quoted(column)) = \(owner) ORDER BY \(order) LIMIT 1)"
                statements.append(Self.updateStatement(table, target, subquery, names.rowFilter(of: declaring)))
                if inverseIsToOne {
                    // One-to-one: the destinations not picked no longer point back.
                    statements.append(
                        "UPDATE \(SQLIdentifier.quoted(linkTable)) SET \(SQLIdentifier.quoted(column)) = NULL WHERE \(SQLIdentifier.quoted(column)) IS NOT NULL AND \(SQLIdentifier.quoted(primaryKey)) NOT IN (SELECT \(target) FROM \(SQLIdentifier.quoted(table)) WHERE \(target) IS NOT NULL)"
                    )
                }
            case .joinTable(let name, let ownerColumn, let destinationColumn, let position)?:
                let order = (position.map { "\(link).\(SQLIdentifier.quoted($0)), " } ?? "") + "\(link).\(SQLIdentifier.quoted(destinationColumn))"
                subquery =
                    "(SELECT \(link).\(SQLIdentifier.quoted(destinationColumn)) FROM \(SQLIdentifier.quoted(name)) AS \(link) WHERE \(link).\(SQLIdentifier.quoted(ownerColumn)) = \(owner) ORDER BY \(order) LIMIT 1)"
                statements.append(Self.updateStatement(table, target, subquery, names.rowFilter(of: declaring)))
            case nil:
                isTemplate = true
                statements.append(
                    Self.updateStatement(table, target, Decomposition.expressionPlaceholder, names.rowFilter(of: declaring)))
            }
            var purpose = "links each '\(declaring)' row through '\(temporary)' to \(rule) among its '\(oldName)'"
            if inverseIsToOne { purpose += "; objects not picked lose their link back (the target is one-to-one)" }
            if isTemplate {
                purpose += "; TEMPLATE: the layout's link storage is unknown, replace \(Decomposition.expressionPlaceholder) with a subquery giving the primary key to keep"
            }
            return Decomposition.Hook(
                name: hookName, definition: .sql(statements), phase: "after", step: firstStep, isTemplate: isTemplate,
                purpose: purpose)
        }
    }

    static func updateStatement(_ table: String, _ target: String, _ value: String, _ filter: String?) -> String {
        "UPDATE \(SQLIdentifier.quoted(table)) SET \(target) = \(value)" + (filter.map { " WHERE \($0)" } ?? "")
    }
}
