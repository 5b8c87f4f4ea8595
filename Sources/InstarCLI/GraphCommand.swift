import ArgumentParser
@_spi(Layouts) import Instar

/// Output formats of `instar graph`.
enum GraphFormat: String, ExpressibleByArgument, CaseIterable {
    case dot
    case mermaid
    case text
}

/// `instar graph <plan> [--format dot|mermaid|text] [--store <db>]`: the version graph as a picture.
struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw a plan's versions and every step between them (Graphviz dot, Mermaid or text).",
        discussion: """
            Each version is a node, labelled with its name and the first 8 characters of its Core Data \
            version checksum (two nodes with the same checksum are versions Core Data cannot tell \
            apart). Edges are the steps the planner may choose from:

              solid          a lightweight step: inferred by Core Data's rules, no app code. Besides \
            consecutive versions, a solid edge may skip versions when the direct step keeps every \
            entity and property the single steps keep (at most options.maxSkip versions ahead). Skips \
            over a pinned version or over either end of a stage are not drawn: chains stop there.
              dashed         a custom stage declared in the plan, labelled with its hooks.
              red dotted     consecutive versions whose change cannot be inferred and that no stage \
            covers, labelled with the first blocking change. A chain cannot cross it: add a stage, \
            or split the change into intermediate versions (see 'instar lint').

            With --store, the store's version is detected (read-only) and the chain 'instar migrate' \
            would run is highlighted: bold blue edges in dot, thick (==>) blue links in Mermaid, '*' in \
            text. The store's node is filled, the target's node has a double border. If no chain \
            reaches the target the graph is still drawn and the reason is printed on standard error.

            Node identifiers are v0, v1, … in plan order; names are only in labels, so any version \
            name is safe. Exit status 0 when the graph is drawn; 65/66 when the plan cannot be read; \
            1 when the store's version cannot be detected.

            Examples:
              instar graph Plans/garage/plan.yaml | dot -Tsvg > garage.svg
              instar graph Plans/garage/plan.yaml --format mermaid     # paste into Markdown
              instar graph Plans/garage/plan.yaml --format text --store garage.sqlite
            """
    )

    @Argument(help: "The plan file.")
    var plan: String

    @Option(help: "Output format: dot (Graphviz), mermaid (flowchart LR) or text.")
    var format: GraphFormat = .dot

    @OptionGroup var storeOption: ReadOnlyStoreOption
    var store: String? { storeOption.store }

    func run() throws {
        let plan = try loadPlan(plan)
        let graph = VersionGraph(plan: plan, costModel: NominalCostModel())
        var chain: Chain?
        var storeVersion: String?
        if let store {
            let opened = try openStore(store, readOnly: true)
            defer { try? opened.close() }
            let migrator = Migrator(plan: plan)
            do {
                storeVersion = try migrator.currentVersion(of: opened).0.name
                chain = try migrator.chain(for: opened, to: nil).chain
            } catch let error as StoreError {
                throw fail(error)
            } catch let error as NoChain {
                printError(error.description)
            } catch {
                printError("\(error)")
                throw InstarExit.failure
            }
        }
        let picture = GraphRendering.picture(
            plan: plan, graph: graph, chain: chain, storeVersion: storeVersion, storePath: store)
        switch format {
        case .dot: printOut(GraphRendering.dot(picture))
        case .mermaid: printOut(GraphRendering.mermaid(picture))
        case .text: printOut(GraphRendering.text(picture))
        }
    }
}
