import Foundation
@_spi(Layouts) import InstarModel
import InstarPlanner
import Testing
import InstarTestSupport
@testable import InstarCLI

/// A plan and its model files in a temporary folder.
private struct PlanFixture {
    let directory: URL
    let path: String

    /// `models` maps file names (in `models/`) to YAML; `plan` is the plan file's text.
    init(models: [String: String], plan: String) throws {
        directory = try temporaryDirectory()
        let folder = directory.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, yaml) in models {
            try yaml.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        path = directory.appendingPathComponent("plan.yaml").path
        try plan.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    func read() throws -> Plan { try PlanFileReader.read(path: path) }
}

/// An entity `Item` with the given attribute lines (short form), as a model named `name`.
private func itemModel(_ name: String, _ attributes: [String]) -> String {
    "name: '\(name.replacingOccurrences(of: "'", with: "''"))'\nentities:\n  Item:\n    attributes:\n"
        + attributes.map { "      \($0)\n" }.joined()
}

/// Four versions that only add attributes: every step and every skip is lightweight.
private let growingModels = [
    "v1.yaml": itemModel("G1", ["title: string"]),
    "v2.yaml": itemModel("G2", ["title: string", "a: string?"]),
    "v3.yaml": itemModel("G3", ["title: string", "a: string?", "b: string?"]),
    "v4.yaml": itemModel("G4", ["title: string", "a: string?", "b: string?", "c: string?"]),
]

/// A quote and spaces in a version name; a custom stage; a type change nothing covers.
private let mixedModels = [
    "v1.yaml": itemModel("Shop \"one\"", ["title: string", "price: string?"]),
    "v2.yaml": itemModel("Shop 2", ["title: string", "price: string?", "note: string?"]),
    "v3.yaml": itemModel("Shop 3", ["title: string", "price: string?", "note: string?", "count: int32 = 0"]),
    "v4.yaml": itemModel("Shop 4", ["title: string", "price: double?", "note: string?", "count: int32 = 0"]),
]

private let mixedPlan = """
    name: mixed
    versions: [models/v1.yaml, models/v2.yaml, models/v3.yaml, models/v4.yaml]
    stages:
      - from: Shop 2
        to: Shop 3
        after: [fill]
    hooks:
      fill:
        sql: UPDATE "Item" SET "count" = 1
    """

// MARK: - Structural checks of the output languages

/// Graphviz well-formedness without Graphviz: quoted strings close (with `\"` escapes), braces
/// balance outside strings, one `digraph` whose body statements end in `;`.
private func dotIsWellFormed(_ text: String) -> Bool {
    var depth = 0
    var inString = false
    var escaped = false
    for c in text {
        if inString {
            if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
            if c == "\n" { return false }  // a raw newline inside a label
            continue
        }
        switch c {
        case "\"": inString = true
        case "{": depth += 1
        case "}":
            depth -= 1
            if depth < 0 { return false }
        default: break
        }
    }
    let lines = text.split(separator: "\n")
    guard !inString, depth == 0, lines.first?.hasPrefix("digraph ") == true, lines.last == "}" else { return false }
    return lines.dropFirst().dropLast().allSatisfy { $0.hasSuffix(";") }
}

/// `dot` itself, when this machine has it (never required).
private func dotBinary() -> String? {
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = "\(folder)/dot"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

private func dotAccepts(_ text: String, binary: String) throws -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = ["-Tsvg", "-o", "/dev/null"]
    let input = Pipe()
    process.standardInput = input
    process.standardError = Pipe()
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    return process.terminationStatus == 0
}

private func matches(_ text: String, _ pattern: String) -> [String] {
    guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else { return [] }
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } }
}

private struct DotEdge {
    var from: String
    var to: String
    var attributes: String
}

private func dotNodes(_ text: String) -> [String] { matches(text, #"^  v\d+ \[label=.*\];$"#) }

private func dotEdges(_ text: String) -> [DotEdge] {
    matches(text, #"^  v\d+ -> v\d+ \[.*\];$"#).map { line in
        let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 3).map(String.init)
        return DotEdge(from: parts[0], to: parts[2], attributes: parts[3])
    }
}

@Suite struct GraphAndLintTests {
    // MARK: - graph

    @Test func dotShowsStepsSkipsStagesAndBlockedPairs() throws {
        let fixture = try PlanFixture(models: mixedModels, plan: mixedPlan)
        defer { fixture.remove() }
        let result = try runInstar(["graph", fixture.path, "--format", "dot"])
        #expect(result.status == 0, "\(result.stderr)")
        let dot = result.stdout
        #expect(dotIsWellFormed(dot), "\(dot)")
        // Four versions, safe ids, name and checksum prefix in the label; the quote is escaped.
        let nodes = dotNodes(dot)
        #expect(nodes.count == 4)
        #expect(nodes[0].hasPrefix("  v0 [label=\"Shop \\\"one\\\"\\n"))
        let plan = try fixture.read()
        let checksum = String(VersionHashes(model: plan.versions[1]).versionChecksum.prefix(8))
        #expect(dot.contains("v1 [label=\"Shop 2\\n\(checksum)\""))
        // v0 → v1 solid; v1 → v2 the stage (dashed, with its hook); v2 → v3 blocked (red, dotted,
        // with the blocking change). No skip: each would cross the stage's ends, where chains stop.
        let edges = dotEdges(dot)
        #expect(edges.map { "\($0.from)>\($0.to)" } == ["v0>v1", "v1>v2", "v2>v3"])
        #expect(edges[0].attributes.contains("style=\"solid\""))
        #expect(edges[1].attributes.contains("style=\"dashed\""))
        #expect(edges[1].attributes.contains("label=\"after: fill\""))
        #expect(edges[2].attributes.contains("style=\"dotted\""))
        #expect(edges[2].attributes.contains("color=\"#d62728\""))
        #expect(edges[2].attributes.contains("not inferable: Item.price"))
        #expect(!dot.contains("penwidth"))  // no store, no chain
        if let binary = dotBinary() { #expect(try dotAccepts(dot, binary: binary)) }
    }

    @Test func skipEdgesAreDrawnWhenTheGraphAllowsThem() throws {
        let fixture = try PlanFixture(
            models: growingModels, plan: "versions: [models/v1.yaml, models/v2.yaml, models/v3.yaml, models/v4.yaml]\n")
        defer { fixture.remove() }
        let dot = try runInstar(["graph", fixture.path]).stdout  // dot is the default
        #expect(dotIsWellFormed(dot))
        let edges = dotEdges(dot)
        // Every pair: 3 consecutive steps and 3 skips, all solid; skips do not constrain the ranks.
        #expect(edges.count == 6)
        #expect(edges.allSatisfy { $0.attributes.contains("style=\"solid\"") })
        #expect(edges.filter { $0.attributes.contains("constraint=false") }.count == 3)
        // maxSkip bounds the skips.
        let bounded = try PlanFixture(
            models: growingModels,
            plan: "versions: [models/v1.yaml, models/v2.yaml, models/v3.yaml, models/v4.yaml]\noptions: {maxSkip: 1}\n")
        defer { bounded.remove() }
        #expect(dotEdges(try runInstar(["graph", bounded.path]).stdout).count == 3)
        // A pinned version is never skipped, so no edge jumps over it.
        let pinned = try PlanFixture(
            models: growingModels,
            plan: "versions: [models/v1.yaml, models/v2.yaml, models/v3.yaml, models/v4.yaml]\npinned: [G3]\n")
        defer { pinned.remove() }
        let pinnedEdges = dotEdges(try runInstar(["graph", pinned.path]).stdout).map { "\($0.from)>\($0.to)" }
        #expect(pinnedEdges == ["v0>v1", "v0>v2", "v1>v2", "v2>v3"])
    }

    @Test func mermaidIsAFlowchartWithEscapedLabels() throws {
        let fixture = try PlanFixture(models: mixedModels, plan: mixedPlan)
        defer { fixture.remove() }
        let result = try runInstar(["graph", fixture.path, "--format", "mermaid"])
        #expect(result.status == 0)
        let text = result.stdout
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "flowchart LR")
        // Nodes: v0…v3, labels quoted, the name's quote as an entity code.
        let nodes = matches(text, #"^  v\d+\["[^"]*"\]$"#)
        #expect(nodes.count == 4)
        #expect(matches(nodes[0], #"^  v0\["Shop #34;one#34;<br/>[^"]{8}"\]$"#).count == 1)
        // Links: solid, dotted stage with its hooks, dotted cross for the blocked pair.
        let links = matches(text, #"^  v\d+ (-->|==>|-\.->|-\.-x)(\|"[^"]*"\|)? v\d+$"#)
        #expect(links.count == 3)
        #expect(links[0] == "  v0 --> v1")
        #expect(links[1] == "  v1 -.->|\"after: fill\"| v2")
        #expect(links[2].hasPrefix("  v2 -.-x|\"not inferable: Item.price"))
        // The blocked link (index 2) is red.
        #expect(lines.contains("  linkStyle 2 stroke:#d62728,color:#d62728"))
        // Every other line is a comment, a style or a class statement.
        let known = Set(nodes + links + ["flowchart LR"])
        for line in lines where !known.contains(line) {
            #expect(
                line.hasPrefix("  %% ") || line.hasPrefix("  linkStyle ") || line.hasPrefix("  classDef ")
                    || line.hasPrefix("  class "), "\(line)")
        }
    }

    @Test func aStoreHighlightsTheChosenChain() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("garage.sqlite").path
        let garage = packageRoot.appendingPathComponent("Plans/garage")
        let created = try runInstar([
            "store", "create", garage.appendingPathComponent("models/v1.yaml").path, "--store", store,
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let plan = garage.appendingPathComponent("plan.yaml").path
        let before = try Data(contentsOf: URL(fileURLWithPath: store))

        // dot: Garage 1 → Garage 3 directly (the skip), bold and blue; the store's node is filled.
        let dot = try runInstar(["graph", plan, "--store", store])
        #expect(dot.status == 0, "\(dot.stderr)")
        #expect(dotIsWellFormed(dot.stdout))
        let edges = dotEdges(dot.stdout)
        #expect(edges.count == 3)
        let highlighted = edges.filter { $0.attributes.contains("penwidth=3") }.map { "\($0.from)>\($0.to)" }
        #expect(highlighted == ["v0>v2"])
        #expect(edges.first { $0.to == "v2" && $0.from == "v0" }?.attributes.contains("bold") == true)
        // The store's node's label and fill: pinned by the golden transcript cli/graph.txt.
        if let binary = dotBinary() { #expect(try dotAccepts(dot.stdout, binary: binary)) }

        // Mermaid: the chain's link is thick and styled.
        let mermaid = try runInstar(["graph", plan, "--store", store, "--format", "mermaid"]).stdout
        let links = matches(mermaid, #"^  v\d+ (-->|==>|-\.->|-\.-x)(\|"[^"]*"\|)? v\d+$"#)
        #expect(links == ["  v0 --> v1", "  v0 ==> v2", "  v1 --> v2"])
        #expect(mermaid.contains("  linkStyle 1 stroke:#1f77b4,stroke-width:4px"))
        #expect(mermaid.contains("  class v0 store"))

        // Text: '*' marks the chain.
        let text = try runInstar(["graph", plan, "--store", store, "--format", "text"]).stdout
        let starred = text.split(separator: "\n").filter { $0.hasPrefix("* ") }
        #expect(starred.count == 2)
        #expect(starred[0] == "* Garage 1 → Garage 3  lightweight (skips 1)")
        #expect(starred[1].contains("chain for store") && starred[1].hasSuffix("Garage 1 → Garage 3"))
        // Read-only: the store is unchanged.
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)

        // A missing store is reported with the documented exit code.
        #expect(try runInstar(["graph", plan, "--store", dir.appendingPathComponent("none.sqlite").path]).status == 66)
    }

    @Test func withoutAChainTheGraphIsStillDrawn() throws {
        let fixture = try PlanFixture(
            models: mixedModels, plan: "versions: [models/v1.yaml, models/v2.yaml, models/v3.yaml, models/v4.yaml]\n")
        defer { fixture.remove() }
        let store = fixture.directory.appendingPathComponent("shop.sqlite").path
        let created = try runInstar(["store", "create", fixture.directory.appendingPathComponent("models/v1.yaml").path, "--store", store])
        #expect(created.status == 0, "\(created.stderr)")
        let result = try runInstar(["graph", fixture.path, "--store", store])
        #expect(result.status == 0)
        #expect(!result.stderr.isEmpty, "the reason is printed on standard error")
        #expect(dotIsWellFormed(result.stdout))
        #expect(dotEdges(result.stdout).allSatisfy { !$0.attributes.contains("penwidth") }, "no chain is highlighted")
        let edges = dotEdges(result.stdout)
        #expect(edges.filter { $0.attributes.contains("style=\"dotted\"") }.map { "\($0.from)>\($0.to)" } == ["v2>v3"])
    }

    // MARK: - lint: clean plans

    @Test func theExamplePlanLintsClean() throws {
        let result = try runInstar(["lint", packageRoot.appendingPathComponent("Plans/garage/plan.yaml").path])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout == "0 error(s), 0 warning(s)\n")
        // A plan with a custom stage and its hook is clean too: no check fires.
        let fixture = try PlanFixture(models: mixedModels.filter { $0.key != "v4.yaml" }, plan: """
            versions: [models/v1.yaml, models/v2.yaml, models/v3.yaml]
            stages:
              - {from: Shop 2, to: Shop 3, after: [fill]}
            hooks:
              fill: {sql: UPDATE "Item" SET "count" = 1}
            """)
        defer { fixture.remove() }
        #expect(PlanLint.check(try fixture.read()).isEmpty)
        let json = try runInstar(["lint", fixture.path, "--format", "json"])
        #expect(json.status == 0)
        #expect(json.json?["errors"] as? Int == 0)
        #expect((json.json?["findings"] as? [Any])?.isEmpty == true)
    }

    // MARK: - lint: the reader's errors

    @Test func invalidPlansKeepTheReadersErrorsAndExit65() throws {
        let unknown = try PlanFixture(models: growingModels, plan: "versions: [models/v1.yaml, models/v2.yaml]\ntarget: G9\n")
        defer { unknown.remove() }
        let result = try runInstar(["lint", unknown.path, "--format", "json"])
        #expect(result.status == 65)
        let unknownVersion = try result.decoded(LintReport.self)
        #expect(unknownVersion.errors == 1 && unknownVersion.warnings == 0)
        let finding = try #require(unknownVersion.findings.first)
        #expect(finding.file == unknown.path && finding.line == 2 && finding.column == 1 && finding.severity == .error)
        #expect(finding.check == .invalidPlan && finding.value == "G9" && finding.hint != nil)

        let hookless = try PlanFixture(models: growingModels, plan: """
            versions: [models/v1.yaml, models/v2.yaml]
            stages:
              - {from: G1, to: G2, before: [fil]}
            hooks:
              fill: {sql: SELECT 1}
            """)
        defer { hookless.remove() }
        let missing = try runInstar(["lint", hookless.path, "--format", "json"])
        #expect(missing.status == 65)
        let findings = try #require(missing.json?["findings"] as? [[String: Any]])
        #expect(findings.contains { ($0["message"] as? String)?.contains("names hook 'fil', which is not defined") == true })
        #expect(findings.allSatisfy { $0["check"] as? String == "invalidPlan" && $0["line"] is Int })

        // A stage from a version to itself, and one going backwards.
        let loop = try PlanFixture(models: growingModels, plan: """
            versions: [models/v1.yaml, models/v2.yaml]
            stages:
              - {from: G2, to: G2}
              - {from: G2, to: G1}
            """)
        defer { loop.remove() }
        let loops = try runInstar(["lint", loop.path, "--format", "json"])
        #expect(loops.status == 65)
        let loopFindings = try loops.decoded(LintReport.self).findings
        #expect(loopFindings.count == 2 && loopFindings.allSatisfy { $0.check == .invalidPlan && $0.severity == .error })
        #expect(Set(loopFindings.compactMap(\.line)).count == 2, "each at its own stage's line")

        // A plan built in code gets the same checks.
        let versions = try [model(itemModel("G1", ["title: string"]), name: "G1")]
        let plan = Plan(name: "p", file: "p.yaml", versions: versions, stages: [CustomStage(from: "G1", to: "G1")])
        #expect(PlanLint.check(plan).contains { $0.check == .invalidPlan && $0.versions == ["G1", "G1"] })

        // A missing plan file cannot be read.
        #expect(try runInstar(["lint", unknown.directory.appendingPathComponent("none.yaml").path]).status == 66)
    }

    // MARK: - lint: errors

    @Test func anUnreachableTargetNamesEachBlockingGap() throws {
        let fixture = try PlanFixture(models: mixedModels, plan: mixedPlan)
        defer { fixture.remove() }
        let result = try runInstar(["lint", fixture.path, "--format", "json"])
        #expect(result.status == 1)
        // Shop 3 → Shop 4 changes price's type: every older version is stranded.
        let findings = PlanLint.check(try fixture.read())
        let unreachable = findings.filter { $0.check == .unreachableTarget }
        #expect(unreachable.count == 1)
        let finding = try #require(unreachable.first)
        #expect(finding.severity == .error)
        #expect(finding.versions == ["Shop 3", "Shop 4"])
        #expect(finding.blocking.contains { $0.entity == "Item" && $0.property == "price" })
        #expect(finding.stranded == ["Shop \"one\"", "Shop 2", "Shop 3"])
        // It points at the version that introduces the change (line 2 lists the versions).
        #expect(finding.location.line == 2)
        let printed = try result.decoded(LintReport.self)
        #expect(printed.errors == 1 && printed.warnings == 0)
        #expect(printed.findings.map(\.check) == [.unreachableTarget] && printed.findings[0].file == fixture.path)
        #expect(printed.findings[0].line == 2 && printed.findings[0].message == finding.message)
    }

    @Test func aCustomStageWhoseStepIsNotInferableMustBeSplit() throws {
        let fixture = try PlanFixture(models: mixedModels, plan: """
            name: mixed
            versions: [models/v1.yaml, models/v2.yaml, models/v3.yaml, models/v4.yaml]
            stages:
              - {from: Shop 2, to: Shop 3, after: [fill]}
              - {from: Shop 3, to: Shop 4, after: [fill]}
            hooks:
              fill: {sql: UPDATE "Item" SET "count" = 1}
            """)
        defer { fixture.remove() }
        let findings = PlanLint.check(try fixture.read())
        let stage = try #require(findings.first { $0.check == .customStageNotInferable })
        #expect(stage.severity == .error)
        #expect(stage.versions == ["Shop 3", "Shop 4"])
        #expect(stage.blocking.contains { $0.entity == "Item" && $0.property == "price" })
        #expect(stage.hint?.contains("split it into Shop 3 → Shop 3′ → Shop 3″") == true)
        #expect(stage.location.line == 5)
        // The stage covers the gap, so the target counts as reachable: one error, not two.
        #expect(!findings.contains { $0.check == .unreachableTarget })
        #expect(try runInstar(["lint", fixture.path]).status == 1)
    }

    @Test func duplicateAndUntakeableStagesAreErrors() throws {
        let fixture = try PlanFixture(models: growingModels, plan: """
            versions: [models/v1.yaml, models/v2.yaml, models/v3.yaml, models/v4.yaml]
            pinned: [G3]
            stages:
              - {from: G1, to: G2, after: [fill]}
              - {from: G1, to: G2, before: [fill]}
              - {from: G2, to: G4, after: [fill]}
            hooks:
              fill: {sql: SELECT 1}
            """)
        defer { fixture.remove() }
        let findings = PlanLint.check(try fixture.read())
        let duplicate = try #require(findings.first { $0.check == .duplicateStage })
        #expect(duplicate.versions == ["G1", "G2"])
        #expect(duplicate.earlier?.line == 4)
        #expect(duplicate.location.line == 5)
        let hidden = try #require(findings.first { $0.check == .unreachableStage })
        #expect(hidden.versions == ["G2", "G4"])
        #expect(hidden.stopsInside == [.pinned("G3")])
        #expect(findings.allSatisfy { $0.severity == .error })
        let result = try runInstar(["lint", fixture.path, "--format", "json"])
        #expect(result.status == 1)
        let printed = try result.decoded(LintReport.self)
        #expect(printed.errors == 2 && printed.warnings == 0)
        #expect(Set(printed.findings.map(\.check)) == [.duplicateStage, .unreachableStage])
    }

    // MARK: - lint: warnings

    @Test func warningsDoNotFailTheLint() throws {
        let fixture = try PlanFixture(
            models: [
                "v1.yaml": itemModel("W1", ["title: string", "color: string?"]),
                // Same schema as W1: identical checksums.
                "v2.yaml": itemModel("W2", ["title: string", "color: string?"]),
                // color removed, paint added, no renaming identifier.
                "v3.yaml": itemModel("W3", ["title: string", "paint: string?"]),
            ],
            plan: """
                versions: [models/v1.yaml, models/v2.yaml, models/v3.yaml]
                stages:
                  - {from: W1, to: W2, after: [used]}
                hooks:
                  used: {sql: SELECT 1}
                  spare: {sql: SELECT 2}
                  notify: {command: [echo, migrated]}
                """)
        defer { fixture.remove() }
        let findings = PlanLint.check(try fixture.read())
        #expect(findings.allSatisfy { $0.severity == .warning })
        let checks = findings.map(\.check)
        #expect(Set(checks) == [.duplicateChecksum, .probableRename, .unusedHook, .commandHook])

        let checksum = try #require(findings.first { $0.check == .duplicateChecksum })
        #expect(checksum.versions == ["W1", "W2"])
        #expect(checksum.hint?.contains("staged migration") == true)
        #expect(checksum.location.line == 1)

        let rename = try #require(findings.first { $0.check == .probableRename })
        #expect(rename.versions == ["W2", "W3"])
        // The finding is about the added attribute; the removed one is named only in the message.
        #expect(rename.entity == "Item" && rename.property == "paint")
        #expect(rename.dropped?.entity == "Item" && rename.dropped?.property == "color")
        // It points into the newer model file, at the added attribute.
        #expect(rename.location.file.hasSuffix("models/v3.yaml"))
        #expect(rename.location.line == 6)

        // Unused: 'spare' and 'notify'; 'notify' also needs --allow-commands.
        #expect(findings.filter { $0.check == .unusedHook }.compactMap(\.hook).sorted() == ["notify", "spare"])
        let command = try #require(findings.first { $0.check == .commandHook })
        #expect(command.hook == "notify")
        #expect(command.location.line == 7)

        let result = try runInstar(["lint", fixture.path])
        #expect(result.status == 0)
        let json = try runInstar(["lint", fixture.path, "--format", "json"])
        #expect(json.status == 0)
        let printed = try json.decoded(LintReport.self)
        #expect(printed.errors == 0 && printed.warnings == 5 && printed.findings.count == 5)
        let first = try #require(printed.findings.first)
        #expect(first.severity == .warning && first.hint != nil && first.column != nil)
        let notify = try #require(printed.findings.first { $0.check == .commandHook })
        #expect(notify.file == fixture.path && notify.line == 7 && notify.column == 3)
    }
}
