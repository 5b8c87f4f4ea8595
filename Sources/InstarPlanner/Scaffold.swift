import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO

/// The files `instar plan … --scaffold <dir>` writes for proposed decompositions: each intermediate
/// model and each target with renaming identifiers as an Instar YAML model file, and `hooks.yaml`, a
/// snippet with the `versions:`, `stages:` and `hooks:` entries to paste into the plan.
package enum Scaffold {
    package struct File: Sendable, Hashable {
        /// The file's path: `directory` joined with its name.
        package var path: String
        package var contents: String
        /// What the file is, for the command's output.
        package var role: String

        package init(path: String, contents: String, role: String) {
            self.path = path
            self.contents = contents
            self.role = role
        }
    }

    package static let snippetName = "hooks.yaml"

    /// The files for `proposals` of `plan`, to be written into `directory`.
    package static func files(for proposals: [Decomposition], plan: Plan, directory: String) -> [File] {
        let folder = URL(fileURLWithPath: directory)
        var files: [File] = []
        var fileOf: [String: String] = [:]  // version name → path as written in the plan
        let planFolder = URL(fileURLWithPath: plan.file).deletingLastPathComponent()
        var used = Set<String>()
        func name(_ base: String) -> String {
            var candidate = slug(base) + ".yaml"
            var n = 1
            while used.contains(candidate) || candidate == snippetName {
                n += 1
                candidate = slug(base) + "-\(n).yaml"
            }
            used.insert(candidate)
            return candidate
        }
        for proposal in proposals {
            if let intermediate = proposal.intermediate {
                let url = folder.appendingPathComponent(name(intermediate.name))
                files.append(
                    File(
                        path: url.path,
                        contents: ModelFileWriter.yaml(
                            intermediate,
                            comment:
                                "Intermediate version between \(proposal.from) and \(proposal.to), scaffolded by Instar.\nIt is \(proposal.from) plus temporary properties (all optional), filled by the hooks in \(snippetName)."
                        ),
                        role: "intermediate version \(intermediate.name)"))
                fileOf[intermediate.name] = relativePath(of: url, from: planFolder)
            }
            if let final = proposal.final {
                let url = folder.appendingPathComponent(name(final.name))
                let renamed = proposal.recipes.compactMap(\.temporary).map { "'\($0)'" }.joined(separator: ", ")
                files.append(
                    File(
                        path: url.path,
                        contents: ModelFileWriter.yaml(
                            final,
                            comment:
                                "\(final.name) with renaming identifiers (\(renamed)), scaffolded by Instar.\nSame version as \(final.name) (renaming identifiers are not part of the version hashes): use it in place of \(final.name)'s file in the plan."
                        ),
                        role: "\(final.name) with renaming identifiers"))
                fileOf[final.name] = relativePath(of: url, from: planFolder)
            }
        }
        files.append(
            File(
                path: folder.appendingPathComponent(snippetName).path,
                contents: snippet(for: proposals, plan: plan, planFolder: planFolder, fileOf: fileOf),
                role: "plan snippet (versions, stages, hooks)"))
        return files
    }

    /// The `hooks.yaml` text.
    static func snippet(for proposals: [Decomposition], plan: Plan, planFolder: URL, fileOf: [String: String]) -> String {
        var lines = [
            "# Scaffolded by Instar for plan '\(plan.name)' (\(plan.file)).",
            "# Paste into the plan:",
            "#   - 'versions:' replaces the plan's list (or its 'bundle:'/'order:'): it inserts each intermediate",
            "#     version and uses each staged target in place of the target's file (the same version: renaming",
            "#     identifiers are not part of the version hashes);",
            "#   - add the entries under 'stages:' and 'hooks:' to the plan's own.",
            "# Hooks marked TEMPLATE fail until their placeholder (\(Decomposition.fillPlaceholder) or \(Decomposition.expressionPlaceholder)) is replaced.",
        ]
        for proposal in proposals {
            lines.append("#")
            lines.append("# \(proposal.from) → \(proposal.to): \(proposal.versions.joined(separator: " → "))")
            for recipe in proposal.recipes {
                lines += wrap("\(recipe.change.subject): \(recipe.summary)", prefix: "#   - ")
            }
            for risk in proposal.risks {
                let count = risk.count.map { " (\($0) in the store)" } ?? ""
                lines += wrap("risk: \(risk.message)\(count)", prefix: "#   ! ")
            }
            for note in proposal.notes { lines += wrap("note: \(note)", prefix: "#   ") }
        }
        // versions: the plan's, with insertions and replacements.
        var versions: [String] = []
        for model in plan.versions {
            let replaced = fileOf[model.name]
            versions.append(replaced ?? reference(to: model, from: planFolder))
            if let proposal = proposals.first(where: { $0.from == model.name }), let intermediate = proposal.intermediate,
                let path = fileOf[intermediate.name]
            {
                versions.append(path)
            }
        }
        lines.append("versions:")
        lines += versions.map { "  - \(YAMLText.scalar($0))" }
        let stages = proposals.flatMap(\.stages)
        lines.append(stages.isEmpty ? "stages: []" : "stages:")
        for stage in stages {
            lines.append("  - from: \(YAMLText.scalar(stage.from))")
            lines.append("    to: \(YAMLText.scalar(stage.to))")
            if !stage.before.isEmpty { lines.append("    before: \(YAMLText.flowList(stage.before))") }
            if !stage.after.isEmpty { lines.append("    after: \(YAMLText.flowList(stage.after))") }
        }
        let hooks = proposals.flatMap(\.hooks)
        lines.append(hooks.isEmpty ? "hooks: {}" : "hooks:")
        for hook in hooks {
            lines += wrap("\(hook.phase) \(hook.step): \(hook.purpose)", prefix: "  # ")
            lines.append("  \(YAMLText.key(hook.name)):")
            switch hook.definition {
            case .sql(let statements):
                lines.append("    sql:")
                for statement in statements {
                    lines.append("      - |-")
                    lines += statement.split(separator: "\n", omittingEmptySubsequences: false).map { "        \($0)" }
                }
            default:
                lines.append("    # (only SQL hooks are scaffolded)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// How the plan names a version: its model file relative to the plan, or `Bundle.xcdatamodeld#Name`.
    static func reference(to model: Model, from planFolder: URL) -> String {
        guard let source = model.source else { return model.name }
        var url = URL(fileURLWithPath: source)
        if url.lastPathComponent == "contents" { url.deleteLastPathComponent() }
        if url.pathExtension == "xcdatamodel" {
            let bundle = url.deletingLastPathComponent()
            if bundle.pathExtension == "xcdatamodeld" {
                return relativePath(of: bundle, from: planFolder) + "#" + model.name
            }
        }
        return relativePath(of: url, from: planFolder)
    }

    /// `file` relative to `folder` (`../x/y.yaml`), or absolute when they share nothing but the root.
    package static func relativePath(of file: URL, from folder: URL) -> String {
        let a = file.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let b = folder.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        var common = 0
        while common < min(a.count, b.count), a[common] == b[common] { common += 1 }
        if common <= 1 { return file.standardizedFileURL.path }
        let ups = Array(repeating: "..", count: b.count - common)
        return (ups + a[common...]).joined(separator: "/")
    }

    /// `Shop 1 (prepare Shop 2)` → `shop-1-prepare-shop-2`.
    package static func slug(_ name: String) -> String {
        var out = ""
        for c in name.lowercased() {
            if c.isLetter || c.isNumber {
                out.append(c)
            } else if !out.isEmpty, out.last != "-" {
                out.append("-")
            }
        }
        while out.last == "-" { out.removeLast() }
        return out.isEmpty ? "version" : out
    }

    static func wrap(_ text: String, prefix: String, width: Int = 110) -> [String] {
        var lines: [String] = []
        var current = ""
        let continuation: String
        if let hash = prefix.firstIndex(of: "#") {
            let rest = prefix.distance(from: prefix.index(after: hash), to: prefix.endIndex)
            continuation = String(prefix[...hash]) + String(repeating: " ", count: rest)
        } else {
            continuation = String(repeating: " ", count: prefix.count)
        }
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let lead = lines.isEmpty ? prefix : continuation
            if !current.isEmpty, lead.count + current.count + 1 + word.count > width {
                lines.append(lead + current)
                current = String(word)
            } else {
                current += (current.isEmpty ? "" : " ") + word
            }
        }
        lines.append((lines.isEmpty ? prefix : continuation) + current)
        return lines
    }
}
