import Instar

/// Renders a ``ModelDiff`` for people (text) and for programs (JSON).
enum DiffRendering {
    static func json(_ diff: ModelDiff) -> [String: Any] {
        [
            "from": diff.fromVersion,
            "to": diff.toVersion,
            "inferable": diff.isInferable,
            "changes": diff.changes.map(json),
            "warnings": diff.warnings.map(json),
        ]
    }

    static func json(_ change: Change) -> [String: Any] {
        var object: [String: Any] = [
            "kind": change.kind.rawValue,
            "entity": change.entity,
            "inferable": change.isInferable,
            "reason": change.verdict.reason,
            "dropsData": change.dropsData,
        ]
        if let property = change.property { object["property"] = property }
        if let oldName = change.oldName { object["oldName"] = oldName }
        if let before = change.before { object["before"] = before }
        if let after = change.after { object["after"] = after }
        if let condition = change.verdict.condition { object["condition"] = json(condition) }
        return object
    }

    static func json(_ condition: DataCondition) -> [String: Any] {
        switch condition {
        case .noNulls(let entity, let property):
            ["kind": "noNulls", "entity": entity, "property": property, "text": condition.description]
        case .noRows(let entity):
            ["kind": "noRows", "entity": entity, "text": condition.description]
        case .unique(let entity, let properties):
            ["kind": "unique", "entity": entity, "properties": properties, "text": condition.description]
        case .linked(let entity, let owner, let relationship):
            ["kind": "linked", "entity": entity, "owner": owner, "relationship": relationship, "text": condition.description]
        }
    }

    static func json(_ warning: Warning) -> [String: Any] {
        var object: [String: Any] = ["kind": warning.kind.rawValue, "message": warning.message]
        if let entity = warning.entity { object["entity"] = entity }
        if let property = warning.property { object["property"] = property }
        return object
    }

    static func text(_ diff: ModelDiff) -> String {
        var lines: [String] = []
        let verdict: String
        if !diff.isInferable {
            verdict = "NOT inferable: \(diff.blockingChanges.count) change(s) need a custom stage"
        } else if !diff.conditions.isEmpty {
            verdict = "inferable if the data allows: " + diff.conditions.map(\.description).joined(separator: "; ")
        } else {
            verdict = "inferable (lightweight)"
        }
        lines.append("\(diff.fromVersion) → \(diff.toVersion): \(verdict)")
        if diff.changes.isEmpty {
            lines.append("  no changes")
        }
        for change in diff.changes {
            let mark =
                switch change.verdict {
                case .inferable: "  ok "
                case .conditional: "  if "
                case .notInferable: "  NO "
                }
            var head = "\(mark) \(change.kind.rawValue) \(change.subject)"
            if let before = change.before, let after = change.after {
                head += ": \(before) → \(after)"
            } else if let after = change.after {
                head += ": \(after)"
            }
            lines.append(head)
            lines.append("       \(change.verdict.reason)")
        }
        if !diff.warnings.isEmpty {
            lines.append("warnings:")
            for warning in diff.warnings {
                lines.append("  - \(warning.message)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
