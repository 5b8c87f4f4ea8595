import ArgumentParser
import Instar

/// `instar lint <plan>`: mistakes in a plan, found before any store is touched.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a plan for mistakes before any store is touched.",
        discussion: """
            Reads the plan and its versions and reports, each at its file, line and column with a hint:

            errors (the plan cannot do what it says)
              - the plan file is invalid: unknown versions, hooks named but not defined, stages that \
            go backwards or from a version to itself (the plan reader's checks);
              - the target cannot be reached: some version has no chain of inferable steps and stages \
            to the target; each blocking pair is named with the changes that block it;
              - a custom stage whose own schema change is not inferable: hooks run before and after an \
            inferred migration and cannot replace it, so split it into A → A′ → A″ (add beside, fill \
            in a hook, then drop);
              - a stage declared twice for the same versions, or one that no chain can take because a \
            pinned version or another stage's end lies inside it.

            warnings (the plan works, perhaps not as intended)
              - versions with identical version checksums: Core Data's staged migration identifies \
            models by checksum and fails on duplicates;
              - an attribute or entity removed and a similar one added without a renaming identifier: \
            the old values are dropped;
              - hooks that no stage uses; command hooks, which 'instar migrate' runs only with \
            --allow-commands, outside the step's transaction.

            Output: one 'file:line:col: error|warning: message' line per finding, an indented 'hint:', \
            and a summary line 'N error(s), M warning(s)'. --format json gives the same as an object \
            with a 'findings' list (severity, check, message, file, line, column, hint).

            Exit status 0 when there is no error (warnings allowed), 1 when there is one, 65 when the \
            plan file or a model is invalid (the findings are the reader's errors), 66 when the plan \
            file cannot be read.

            Example:
              instar lint Plans/garage/plan.yaml
              instar lint plan.yaml --format json | jq '.findings[] | select(.severity == "error")'
            """
    )

    @Argument(help: "The plan file.")
    var plan: String

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let findings: [LintFinding]
        var readerStatus: ExitCode?
        do {
            findings = PlanLint.check(try PlanFileReader.read(path: plan))
        } catch {
            findings = PlanLint.findings(for: error)
            readerStatus =
                error.problems.allSatisfy { $0.kind == .unreadable } ? InstarExit.unreadable : InstarExit.invalidInput
        }
        switch format {
        case .text: printOut(LintRendering.text(findings))
        case .json: printOut(jsonText(LintRendering.json(findings, plan: plan)))
        }
        if let readerStatus { throw readerStatus }
        if findings.contains(where: { $0.severity == .error }) { throw InstarExit.failure }
    }
}
