@_spi(Layouts) import Instar

/// Renders a ``ModelDiff`` for people (text); ``DiffJSON`` is the same for programs.
enum DiffRendering {
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

/// `instar diff --format json`, and each change wherever JSON output lists changes (plan steps, gaps,
/// proposals' recipes).
struct DiffJSON: Codable, Sendable, Equatable {
    var from: String
    var to: String
    var inferable: Bool
    var changes: [ChangeJSON]
    var warnings: [WarningJSON]

    init(_ diff: ModelDiff) {
        from = diff.fromVersion
        to = diff.toVersion
        inferable = diff.isInferable
        changes = diff.changes.map(ChangeJSON.init)
        warnings = diff.warnings.map(WarningJSON.init)
    }
}

/// One change between two versions, with Core Data's verdict on it.
struct ChangeJSON: Codable, Sendable, Equatable {
    var kind: String
    var entity: String
    var property: String?
    var oldName: String?
    var before: String?
    var after: String?
    var inferable: Bool
    var reason: String
    /// What the data must satisfy for an inferable-if change.
    var condition: DataConditionJSON?
    var dropsData: Bool

    init(_ change: Change) {
        kind = change.kind.rawValue
        entity = change.entity
        property = change.property
        oldName = change.oldName
        before = change.before
        after = change.after
        inferable = change.isInferable
        reason = change.verdict.reason
        condition = change.verdict.condition.map(DataConditionJSON.init)
        dropsData = change.dropsData
    }
}

/// A condition on the data (`noNulls`, `noRows`, `unique`, `linked`), with its words in `text`.
struct DataConditionJSON: Codable, Sendable, Equatable {
    var kind: String
    var entity: String
    var property: String?
    var properties: [String]?
    var owner: String?
    var relationship: String?
    var text: String

    init(_ condition: DataCondition) {
        text = condition.description
        switch condition {
        case .noNulls(let entity, let property):
            (kind, self.entity, self.property) = ("noNulls", entity, property)
        case .noRows(let entity):
            (kind, self.entity) = ("noRows", entity)
        case .unique(let entity, let properties):
            (kind, self.entity, self.properties) = ("unique", entity, properties)
        case .linked(let entity, let owner, let relationship):
            (kind, self.entity, self.owner, self.relationship) = ("linked", entity, owner, relationship)
        }
    }
}

/// A likely mistake the diff points at (a rename without a renaming identifier, dropped data).
struct WarningJSON: Codable, Sendable, Equatable {
    var kind: String
    var message: String
    var entity: String?
    var property: String?

    init(_ warning: Warning) {
        kind = warning.kind.rawValue
        message = warning.message
        entity = warning.entity
        property = warning.property
    }
}
