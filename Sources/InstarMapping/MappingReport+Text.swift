/// The report as plain text for a terminal: one block per entity mapping, then the hooks.
extension MappingReport {
    package func renderText() -> String {
        var lines: [String] = []
        let basis = match.map { $0 == .named ? " (versions named by the file)" : " (matched by \($0 == .entityHashes ? "entity hashes" : "structure"))" } ?? ""
        lines.append("Mapping model \(mappingModel): \(source ?? "?") → \(destination ?? "?")\(basis)")
        lines.append("  \(translatedCount) expression(s) translate, \(hookedExpressionCount) need a hook")
        for entity in entities {
            let from = entity.source ?? "(new)", to = entity.destination ?? "(removed)"
            lines.append("")
            lines.append("  \(entity.name) [\(entity.kind)] \(from) → \(to)")
            if let policy = entity.policy { lines.append("    custom policy: \(policy)") }
            if let filter = entity.filter { lines.append("    filter: " + Self.describe(filter)) }
            for property in entity.attributes { lines.append("    \(property.name) = " + Self.describe(property)) }
            for property in entity.relationships { lines.append("    \(property.name) = " + Self.describe(property)) }
        }
        if !hooks.isEmpty {
            lines.append("")
            lines.append("  Hooks needed:")
            for hook in hooks { lines.append("    \(hook.name): \(hook.reason)") }
        }
        if !functions.isEmpty {
            lines.append("")
            lines.append("  SQL functions to register: " + functions.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func describe(_ property: PropertyReport) -> String {
        guard let expression = property.expression else { return "(default value)" }
        if let sql = property.sql {
            let arguments = property.arguments.map { "  [" + $0.map(\.description).joined(separator: ", ") + "]" } ?? ""
            return "\(expression)  →  \(sql)\(arguments)"
        }
        if let mapping = property.relationshipMapping {
            return "\(expression)  →  rows made by \(mapping) from $source.\(property.sourceKeyPath ?? "")"
        }
        if let hook = property.hook { return "\(expression)  →  hook \(hook) (\(property.reason ?? ""))" }
        return expression
    }
}
