import ArgumentParser
@_spi(Layouts) import Instar
import InstarSwiftData
import InstarSwiftDataCheck

/// `instar lint <plan>`: mistakes in a plan, found before any store is touched; with `--cloudkit`, what
/// Core Data with CloudKit would refuse or could not sync.
struct LintCommand: ParsableCommand, UsesSwiftDataOptions {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a plan (or a model bundle) for mistakes before any store is touched.",
        discussion: """
            Reads the plan and its versions (or, with --model and no plan, the versions of an app's model \
            bundle or model files, oldest first) and reports, each at its file, line and column with a hint:

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

            --cloudkit adds the rules of Core Data with CloudKit (NSPersistentCloudKitContainer), all errors:
              on every version from the first released one (--released, default: the oldest), each \
            violation once, at the newest version that has it:
              - no uniqueness constraints (cloudKitUniqueConstraint): deduplicate in app code instead;
              - no Undefined or Object ID attributes (cloudKitUnsupportedType);
              - every stored attribute optional or with a default value (cloudKitRequiredAttribute);
              - every relationship optional (cloudKitRequiredRelationship), with an inverse \
            (cloudKitMissingInverse), not Deny (cloudKitDenyDeleteRule), not ordered \
            (cloudKitOrderedRelationship);
              on every step from the first released version on (CloudKit's production schema only grows, \
            and older app versions on other devices keep syncing the old shape): nothing removed \
            (cloudKitRemoved), renamed (cloudKitRenamed), retyped (cloudKitTypeChanged) or moved to another \
            hierarchy (cloudKitHierarchyChanged); new entities, attributes and relationships are fine.
              Not checked: relationships between configurations (Instar does not read configurations).

            Output: one 'file:line:col: error|warning: message' line per finding, an indented 'hint:', \
            and a summary line 'N error(s), M warning(s)'. --format json gives the same as an object \
            with a 'findings' list (severity, check, message, file, line, column, hint).

            Exit status 0 when there is no error (warnings allowed), 1 when there is one, 65 when the \
            plan file or a model is invalid (the findings are the reader's errors), 66 when the plan \
            file or a --model cannot be read, 64 for a bad command line (--released naming no version).

            Examples:
              instar lint Plans/garage/plan.yaml
              instar lint plan.yaml --format json | jq '.findings[] | select(.severity == "error")'
              instar lint plan.yaml --cloudkit --released 'App 3'
              instar lint --model App.xcdatamodeld --cloudkit
              instar lint --swiftdata MyApp/Models --cloudkit     # the SchemaMigrationPlan's schemas
              instar lint --swiftdata MyApp/Models --store shipped.store   # unversioned: the inferred step
            """
    )

    @OptionGroup var planArgument: PlanArgument
    var plan: String? { planArgument.plan }

    @OptionGroup var appModels: AppModelsOption
    var models: [String] { appModels.models }

    @OptionGroup var swiftDataOptions: SwiftDataOptions

    /// With --swiftdata and no SchemaMigrationPlan: the store the app shipped, whose own model is the inferred
    /// step's source (a versioned app's store is matched to a schema of its plan).
    @OptionGroup var storeOption: ReadOnlyStoreOption
    var store: String? { storeOption.store }

    @Flag(name: .customLong("cloudkit"), help: "Also check the rules of Core Data with CloudKit.")
    var cloudKit = false

    @Option(
        help: ArgumentHelp(
            "With --cloudkit: the first version released with CloudKit sync; the rules apply to it and later versions, and every step from it on must only add (default: the oldest version). With a bundle (no order but its current version): its step to the current version must only add (default: every version's).",
            valueName: "version"))
    var released: String?

    @OptionGroup var output: FormatOption
    var format: OutputFormat { output.format }

    func validate() throws {
        let given = [plan != nil, !models.isEmpty, !swiftdata.isEmpty].filter { $0 }.count
        if given == 0 { throw ValidationError("give a plan file, --model with the app's model bundle, or --swiftdata with its sources") }
        if given > 1 { throw ValidationError("give one of a plan file, --model and --swiftdata") }
        if released != nil && !cloudKit { throw ValidationError("--released applies to the --cloudkit rules: add --cloudkit") }
        if swiftdata.isEmpty && (migrationPlan != nil || classes != nil || !fromSwiftdata.isEmpty || store != nil) {
            throw ValidationError("--migration-plan, --classes, --from-swiftdata and --store go with --swiftdata")
        }
    }

    func run() throws {
        var findings: [LintFinding]
        var readerStatus: ExitCode?
        var loaded: [Plan] = []
        do {
            if swiftdata.isEmpty {
                let plan = try self.plan.map { try PlanFileReader.read(path: $0) } ?? ImplicitPlan.make(models: models, storePath: nil, target: nil)
                // A misspelt layout is the plan file's problem, as the reader's are (the planner cannot see the registry).
                if let unknown = plan.unknownLayout { throw PlanError([unknown.problem]) }
                findings = PlanLint.check(plan)
                loaded = [plan]
            } else {
                // An unversioned app (no SchemaMigrationPlan): its current schema alone, or the step from --store /
                // --from-swiftdata (SwiftDataLint.swift).
                let linted = try SwiftDataPlan.lintPlans(
                    sources: swiftdata, planName: migrationPlan, store: store,
                    classes: classes.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } },
                    earlier: fromSwiftdata)
                findings = PlanLint.sorted(linted.flatMap(\.findings))
                loaded = linted.map(\.plan)
            }
        } catch let error as PlanError {
            findings = PlanLint.findings(for: error)
            readerStatus =
                error.problems.allSatisfy { $0.kind == .unreadable } ? InstarExit.unreadable : InstarExit.invalidInput
        }
        if cloudKit, !loaded.isEmpty {
            findings = PlanLint.sorted(findings + (try cloudKitFindings(loaded)))
        }
        let report = LintReport(plan: plan ?? (swiftdata.isEmpty ? models : swiftdata).joined(separator: " "), findings: findings)
        switch format {
        case .text: printOut(LintRendering.text(report))
        case .json: printOut(jsonText(report))
        }
        if let readerStatus { throw readerStatus }
        if findings.contains(where: { $0.severity == .error }) { throw InstarExit.failure }
    }
}

extension LintCommand {
    /// The CloudKit rules on each plan linted (several for an app with several containers); `--released`
    /// must name a version of at least one.
    func cloudKitFindings(_ plans: [Plan]) throws -> [LintFinding] {
        if let released, !plans.contains(where: { $0.index(of: released) != nil }) {
            let versions = plans.flatMap { $0.versions.map(\.name) }
            var message = "--released '\(released)' is not a version of \(self.plan ?? "the given models")"
            if let hint = Spelling.suggestion(for: released, among: versions) { message += "\n  hint: \(hint)" }
            printError(message + "\n  versions: \(versions.joined(separator: ", "))")
            throw ExitCode.validationFailure
        }
        var found: [LintFinding] = []
        for plan in plans {
            var cloudKitFindings = CloudKitLint.check(plan, firstReleased: released.flatMap { plan.index(of: $0) == nil ? nil : $0 })
            if !swiftdata.isEmpty {
                // `var createdAt: Date = Date()` has a default in SwiftData's model (computed once by the app).
                let computed = Set(plan.versions.flatMap { model in
                    model.entities.flatMap { entity in
                        entity.attributes.filter { $0.userInfo[SwiftDataSchema.appEvaluatedDefaultKey] != nil }
                            .compactMap { model.location(ofEntity: entity.name, property: $0.name) }
                    }
                })
                cloudKitFindings.removeAll { $0.check == .cloudKitRequiredAttribute && computed.contains($0.location) }
            }
            found += cloudKitFindings
        }
        return found
    }
}
