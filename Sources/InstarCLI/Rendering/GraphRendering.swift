@_spi(Layouts) import Instar

/// What `instar graph` draws: a plan's versions and every step the runtime could take between them.
struct GraphPicture {
    struct Node {
        /// A safe identifier: `v0`, `v1`, … in plan order.
        var id: String
        var name: String
        /// The first 8 characters of Core Data's `versionChecksum`.
        var checksum: String
        var isStore = false
        var isTarget = false
    }

    enum EdgeKind: String {
        /// Inferred, no app code: consecutive or a safe skip.
        case lightweight
        /// A declared stage with hooks.
        case custom
        /// A consecutive pair that cannot be inferred and has no stage.
        case blocked
    }

    struct Edge {
        var from: Int
        var to: Int
        var kind: EdgeKind
        /// For a custom stage: `before: a, b; after: c`.
        var hooks: String?
        /// Why the step cannot be inferred (shortened): for blocked pairs, and for custom stages whose
        /// step between the hooks is not inferable either (they fail at run time).
        var blockedBy: String?
        /// Part of the chain chosen for the store.
        var inChain = false

        var isSkip: Bool { to > from + 1 }
    }

    var plan: String
    var nodes: [Node]
    var edges: [Edge]
    /// The store given with `--store`, its version and the chosen chain (version names).
    var storePath: String?
    var storeVersion: String?
    var chain: [String]?
}

/// Renders the version graph as Graphviz dot, Mermaid (`flowchart LR`) and plain text.
enum GraphRendering {
    /// Collects the nodes and edges. Every consecutive pair appears (as a step or as blocked); skips
    /// appear when ``VersionGraph/step(_:_:)`` allows them, up to `options.maxSkip` versions ahead,
    /// except skips over a pinned version or a stage's end, which no chain takes.
    static func picture(plan: Plan, graph: VersionGraph, chain: Chain?, storeVersion: String?, storePath: String?)
        -> GraphPicture
    {
        let count = plan.versions.count
        let target = plan.targetVersion
        let nodes = plan.versions.enumerated().map { i, model in
            GraphPicture.Node(
                id: "v\(i)", name: model.name, checksum: String(graph.hashes[i].versionChecksum.prefix(8)),
                isStore: model.name == storeVersion, isTarget: model.name == target)
        }
        var chainPairs = Set<[Int]>()
        for step in chain?.steps ?? [] {
            if let a = graph.index(of: step.from), let b = graph.index(of: step.to) { chainPairs.insert([a, b]) }
        }
        // Pairs to look at: within maxSkip, plus every declared stage (a stage may span further) and the
        // chain's steps; taken version by version, so that each version's skips are forgotten once drawn.
        let maxSkip = max(1, plan.options.maxSkip)
        var further: [Int: Set<Int>] = [:]
        for stage in plan.stages {
            if let a = graph.index(of: stage.from), let b = graph.index(of: stage.to), a < b { further[a, default: []].insert(b) }
        }
        // (A bundle's chain may go to an older index.)
        for pair in chainPairs { further[pair[0], default: []].insert(pair[1]) }
        // Chains stop at pinned versions and at both ends of every stage: a skip over one is never taken.
        // nextWaypoint[i]: the first waypoint after i (count when none), so a pair's test is one comparison.
        var isWaypoint = [Bool](repeating: false, count: count)
        for p in plan.pinned.compactMap(graph.index(of:)) { isWaypoint[p] = true }
        for stage in plan.stages {
            for name in [stage.from, stage.to] { if let w = graph.index(of: name) { isWaypoint[w] = true } }
        }
        var nextWaypoint = [Int](repeating: count, count: count)
        for i in stride(from: count - 2, through: 0, by: -1) { nextWaypoint[i] = isWaypoint[i + 1] ? i + 1 : nextWaypoint[i + 1] }
        var edges: [GraphPicture.Edge] = []
        // Most skips are judged entity pair by entity pair, each pair once, rather than by diffing
        // both whole versions of every skip (the same edges; SkipVerdicts says when it cannot tell).
        let skips = SkipVerdicts(graph: graph)
        for i in 0..<count {
            // Nothing asks for a step from i again: chains were found before, traces start later.
            defer { graph.forgetSteps(from: i) }
            var trace = ChainTrace(from: i, in: graph)
            for j in further[i, default: []].union((i + 1)..<min(count, i + maxSkip + 1)).sorted() {
            let pair = [i, j]
            let inChain = chainPairs.contains(pair)
            let crossesWaypoint = nextWaypoint[i] < j
            if crossesWaypoint && !inChain && !graph.isFixed(i, j) { continue }
            if let isStep = skips.isStep(i, j, following: &trace) {
                if isStep { edges.append(GraphPicture.Edge(from: i, to: j, kind: .lightweight, inChain: inChain)) }
                continue
            }
            if let step = graph.step(i, j, following: &trace) {
                switch step.kind {
                case .custom:
                    let diff = step.diff
                    edges.append(
                        GraphPicture.Edge(
                            from: i, to: j, kind: .custom, hooks: step.stage.map(hookLabel),
                            blockedBy: diff.isInferable ? nil : blockingLabel(diff.blockingChanges), inChain: inChain))
                case .mapping:
                    edges.append(
                        GraphPicture.Edge(
                            from: i, to: j, kind: .custom, hooks: step.mapping.map { "mapping model \($0.model.name)" },
                            inChain: inChain))
                case .lightweight, .synthesized:
                    edges.append(GraphPicture.Edge(from: i, to: j, kind: .lightweight, inChain: inChain))
                }
            } else if j == i + 1 {
                edges.append(
                    GraphPicture.Edge(
                        from: i, to: j, kind: .blocked, blockedBy: blockingLabel(graph.diff(i, j).blockingChanges),
                        inChain: inChain))
            }
            }
        }
        return GraphPicture(
            plan: plan.name, nodes: nodes, edges: edges, storePath: storePath, storeVersion: storeVersion,
            chain: chain.map { $0.steps.isEmpty ? storeVersion.map { [$0] } ?? [] : $0.versions })
    }

    static func hookLabel(_ stage: CustomStage) -> String {
        var parts: [String] = []
        if !stage.before.isEmpty { parts.append("before: " + stage.before.joined(separator: ", ")) }
        if !stage.after.isEmpty { parts.append("after: " + stage.after.joined(separator: ", ")) }
        return parts.isEmpty ? "custom stage" : parts.joined(separator: "; ")
    }

    /// The first blocking change, `Entity.property: reason`, shortened, with how many more there are.
    static func blockingLabel(_ changes: [Change], limit: Int = 60) -> String {
        guard let first = changes.first else { return "not inferable" }
        let more = changes.count > 1 ? " (+\(changes.count - 1) more)" : ""
        return shorten("\(first.subject): \(first.verdict.reason)", to: limit) + more
    }

    /// Cuts `text` at a word boundary before `limit` characters and adds an ellipsis.
    static func shorten(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        let cut = text.prefix(limit - 1)
        let atWord = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return atWord.trimmingTrailing(while: { $0 == " " || $0 == "," || $0 == ";" || $0 == ":" }) + "…"
    }

    // MARK: - Graphviz

    static let chainColor = "#1f77b4"
    static let blockedColor = "#d62728"

    static func dot(_ p: GraphPicture) -> String {
        var lines = ["digraph \(dotQuoted(p.plan)) {"]
        lines.append("  rankdir=LR;")
        lines.append("  labelloc=b;")
        lines.append("  label=\(dotQuoted(legend(p)));")
        lines.append("  node [shape=box, style=rounded, fontname=\"Helvetica\"];")
        lines.append("  edge [fontname=\"Helvetica\", fontsize=10];")
        for node in p.nodes {
            var attributes = ["label=\(dotQuoted("\(node.name)\n\(node.checksum)"))"]
            if node.isStore { attributes += ["style=\"rounded,filled\"", "fillcolor=\"#ffe9a8\""] }
            if node.isTarget { attributes.append("peripheries=2") }
            lines.append("  \(node.id) [\(attributes.joined(separator: ", "))];")
        }
        for edge in p.edges {
            var attributes: [String] = []
            var styles: [String]
            var label: String?
            switch edge.kind {
            case .lightweight:
                styles = ["solid"]
            case .custom:
                styles = ["dashed"]
                label = edge.hooks
                if let blocked = edge.blockedBy {
                    label = (label.map { $0 + "\n" } ?? "") + "NOT inferable: " + blocked
                    attributes += ["color=\"\(blockedColor)\"", "fontcolor=\"\(blockedColor)\""]
                }
            case .blocked:
                styles = ["dotted"]
                label = "not inferable: " + (edge.blockedBy ?? "")
                attributes += ["color=\"\(blockedColor)\"", "fontcolor=\"\(blockedColor)\"", "arrowhead=tee"]
            }
            if edge.inChain {
                styles.append("bold")
                attributes += ["color=\"\(chainColor)\"", "penwidth=3"]
            }
            attributes.insert("style=\"\(styles.joined(separator: ","))\"", at: 0)
            if let label { attributes.append("label=\(dotQuoted(label))") }
            // Skips do not decide the left-to-right order of versions; consecutive edges do.
            if edge.isSkip { attributes.append("constraint=false") }
            lines.append("  v\(edge.from) -> v\(edge.to) [\(attributes.joined(separator: ", "))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// A Graphviz double-quoted string: `"` and `\` escaped, line breaks as `\n` (centred lines).
    static func dotQuoted(_ text: String) -> String {
        var out = "\""
        for c in text {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": break
            default: out.append(c)
            }
        }
        return out + "\""
    }

    static func legend(_ p: GraphPicture) -> String {
        var text = "plan \(p.plan): solid = lightweight step, dashed = custom stage (hooks), red dotted = not inferable"
        if let version = p.storeVersion {
            switch p.chain?.count ?? 0 {
            case 0: text += "\nthe store is at \(version): no chain reaches the target"
            case 1: text += "\nthe store is at \(version), the target: nothing to do"
            default: text += "\nbold blue = chain from the store's version (\(version))"
            }
        }
        return text
    }

    // MARK: - Mermaid

    static func mermaid(_ p: GraphPicture) -> String {
        var lines = ["flowchart LR"]
        lines.append("  %% " + legend(p).replacingOccurrences(of: "\n", with: "; "))
        for node in p.nodes {
            lines.append("  \(node.id)[\"\(mermaidEscaped(node.name))<br/>\(mermaidEscaped(node.checksum))\"]")
        }
        var chainLinks: [Int] = []
        var blockedLinks: [Int] = []
        for (index, edge) in p.edges.enumerated() {
            let link: String
            var label: String?
            switch edge.kind {
            case .lightweight:
                link = edge.inChain ? "==>" : "-->"
            case .custom:
                link = "-.->"
                var parts = edge.hooks.map { [mermaidEscaped($0)] } ?? []
                if let blocked = edge.blockedBy {
                    parts.append(mermaidEscaped("NOT inferable: " + blocked))
                    blockedLinks.append(index)
                }
                label = parts.isEmpty ? nil : parts.joined(separator: "<br/>")
            case .blocked:
                link = "-.-x"
                label = mermaidEscaped("not inferable: " + (edge.blockedBy ?? ""))
                blockedLinks.append(index)
            }
            if edge.inChain { chainLinks.append(index) }
            let text = label.map { "|\"\($0)\"|" } ?? ""
            lines.append("  v\(edge.from) \(link)\(text) v\(edge.to)")
        }
        if !blockedLinks.isEmpty {
            lines.append(
                "  linkStyle \(blockedLinks.map(String.init).joined(separator: ",")) stroke:\(blockedColor),color:\(blockedColor)")
        }
        if !chainLinks.isEmpty {
            lines.append("  linkStyle \(chainLinks.map(String.init).joined(separator: ",")) stroke:\(chainColor),stroke-width:4px")
        }
        lines.append("  classDef store fill:#ffe9a8,stroke:#b8860b")
        lines.append("  classDef target stroke-width:3px")
        if let store = p.nodes.first(where: \.isStore) { lines.append("  class \(store.id) store") }
        if let target = p.nodes.first(where: { $0.isTarget && !$0.isStore }) { lines.append("  class \(target.id) target") }
        return lines.joined(separator: "\n")
    }

    /// Text inside a Mermaid `"…"` label: characters Mermaid or HTML would interpret become entity
    /// codes (`#34;` for a double quote).
    static func mermaidEscaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "\"": out += "#34;"
            case "#": out += "#35;"
            case "&": out += "#38;"
            case "<": out += "#60;"
            case ">": out += "#62;"
            case "|": out += "#124;"
            case "`": out += "#96;"
            case "\n", "\r": out += " "
            default: out.append(c)
            }
        }
        return out
    }

    // MARK: - Text

    static func text(_ p: GraphPicture) -> String {
        var lines = ["plan \(p.plan): \(p.nodes.count) version(s), \(p.edges.count) edge(s)"]
        lines.append("versions:")
        let width = p.nodes.map(\.name.count).max() ?? 0
        for node in p.nodes {
            var notes: [String] = []
            if node.isStore { notes.append("store") }
            if node.isTarget { notes.append("target") }
            let padded = node.name.padding(toLength: width, withPad: " ", startingAt: 0)
            let suffix = notes.isEmpty ? "" : "  (\(notes.joined(separator: ", ")))"
            lines.append("  \(node.id.padding(toLength: 4, withPad: " ", startingAt: 0))\(padded)  \(node.checksum)\(suffix)")
        }
        lines.append("edges:")
        for edge in p.edges {
            let mark = edge.inChain ? "* " : "  "
            let from = p.nodes[edge.from].name, to = p.nodes[edge.to].name
            var line: String
            switch edge.kind {
            case .lightweight:
                line = "\(from) → \(to)  lightweight"
                if edge.isSkip { line += " (skips \(edge.to - edge.from - 1))" }
            case .custom:
                line = "\(from) ⇢ \(to)  custom: \(edge.hooks ?? "")"
                if let blocked = edge.blockedBy { line += "; NOT inferable: \(blocked)" }
            case .blocked:
                line = "\(from) ✗ \(to)  NOT inferable: \(edge.blockedBy ?? "")"
            }
            lines.append(mark + line)
        }
        if let path = p.storePath {
            let version = p.storeVersion ?? "?"
            if let chain = p.chain {
                lines.append(
                    chain.count > 1
                        ? "* chain for store \(path) (at \(version)): \(chain.joined(separator: " → "))"
                        : "store \(path) is at \(version): already at the target")
            } else {
                lines.append("store \(path) is at \(version): no chain reaches the target")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension Substring {
    fileprivate func trimmingTrailing(while predicate: (Character) -> Bool) -> String {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return String(self[startIndex..<end])
    }
}
