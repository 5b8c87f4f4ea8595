@_spi(Layouts) import Instar

/// Renders a ``ModelDiff`` for people (text); its `Encodable` conformance is the same for programs.
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
