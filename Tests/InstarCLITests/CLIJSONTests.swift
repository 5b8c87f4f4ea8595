import Foundation
@_spi(Layouts) import Instar
import InstarTestSupport
import InstarStoreTestSupport
import InstarTesting
import Testing
@testable import InstarCLI

/// The CLI's JSON is its `Codable` output types and nothing else: each command's output decodes into its
/// type and encodes back to the same bytes, so no key is written that the type does not declare, and a
/// test (or a Swift script) can read the output as values.
@Suite struct CLIJSONTests {
    static let garage = packageRoot.appendingPathComponent("Plans/garage/plan.yaml").path
    static let models = ["v1", "v2", "v3"].map { packageRoot.appendingPathComponent("Plans/garage/models/\($0).yaml").path }

    /// Decodes `arguments`' output as `Output` and checks that encoding it again gives the same text.
    @discardableResult
    func roundTrip<Output: Codable>(
        _ arguments: [String], as type: Output.Type, encoder: JSONEncoder = JSONEncoder(), status: Int32 = 0
    ) throws -> Output {
        let result = InstarCommand.runInProcess(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        let decoded = try decodeOutput(type, result.stdout)
        #expect(jsonText(decoded, encoder: encoder) + "\n" == result.stdout, "\(arguments): a key the type does not declare")
        return decoded
    }

    @Test func everyOutputRoundTripsThroughItsType() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.garageStore()
        try scratch.writeNoChainPlan()
        try scratch.writeConditionalModels()

        let hashes = try roundTrip(["model", "hashes", Self.models[1], "--format", "json"], as: ModelIdentity.self)
        #expect(hashes == ModelIdentity(try loadModel(Self.models[1])))
        #expect(hashes.model == "Garage 2" && hashes.hashes.entityHashes.keys.sorted() == ["Automobile", "Owner"])

        // A diff is encodable only (ModelDiff+Encodable.swift): the library's own diff writes the output,
        // and its changes and warnings decode as the library's values.
        let diffArguments = ["diff", scratch.path("a.yaml"), scratch.path("b.yaml"), "--format", "json"]
        let diffed = InstarCommand.runInProcess(diffArguments)
        let diff = ModelDiff(from: try loadModel(scratch.path("a.yaml")), to: try loadModel(scratch.path("b.yaml")))
        #expect(diffed.status == 0 && jsonText(diff) + "\n" == diffed.stdout, "\(diffed.stderr)")
        let changes = try decodeMember("changes", as: [Change].self, diffed.stdout)
        #expect(changes == diff.changes && !diff.isInferable)
        #expect(changes.first { $0.property == "m" }?.verdict.condition == .noNulls(entity: "E", property: "m"))
        let warnings = try decodeMember("warnings", as: [Warning].self, diffed.stdout)
        #expect(warnings.map(\.message) == diff.warnings.map(\.message) && !warnings.isEmpty)

        let lint = try roundTrip(["lint", Self.garage, "--cloudkit", "--format", "json"], as: LintReport.self, status: 1)
        #expect(lint.errors == lint.findings.filter { $0.severity == .error }.count && lint.errors > 0)

        // A dry run is encodable only (DryRun+Encodable.swift): the library's own report writes the output.
        let planned = InstarCommand.runInProcess(["plan", Self.garage, "--store", scratch.store, "--format", "json"])
        let report = try DryRun.report(plan: loadPlan(Self.garage), storePath: scratch.store)
        #expect(planned.status == 0 && jsonText(report) + "\n" == planned.stdout, "\(planned.stderr)")
        #expect(report.detectedVersion == "Garage 1" && report.steps.map(\.to) == ["Garage 3"])
        #expect(report.steps[0].mappingModel == nil && report.steps[0].kind == .lightweight)
        #expect(planned.stdout.contains(#""mappingModel" : null"#), "a step without a mapping model names the key")

        let unplanned = InstarCommand.runInProcess(["plan", scratch.path("plan.yaml"), "--format", "json"])
        let noChain = try DryRun.report(plan: loadPlan(scratch.path("plan.yaml")), storePath: nil)
        #expect(unplanned.status == 1 && jsonText(noChain) + "\n" == unplanned.stdout, "\(unplanned.stderr)")
        let gaps = try CLIResult(status: unplanned.status, stdout: unplanned.stdout, stderr: unplanned.stderr)
            .member("noChain", "gaps", as: [NoChain.Gap].self)
        #expect(gaps.first?.blocking.first?.kind == .attributeTypeChanged && gaps.first?.blocking == noChain.noChain?.gaps.first?.blocking)
        #expect(noChain.proposals.first?.steps.isEmpty == false)

        // An inspection is encodable only (StoreInspection+Encodable.swift): the library's own inspection
        // writes the output, with `null` for a cache it does not have the keys of.
        let inspectArguments = ["inspect", "--store", scratch.store, "--format", "json"] + Self.models.flatMap { ["--model", $0] }
        let inspectedOutput = InstarCommand.runInProcess(inspectArguments)
        let inspection = try StoreInspection.of(
            storeAt: scratch.store, layout: nil, candidates: Self.models.map { [try loadModel($0)] })
        #expect(inspectedOutput.status == 0 && jsonText(inspection) + "\n" == inspectedOutput.stdout, "\(inspectedOutput.stderr)")
        #expect(inspection.detection.version?.name == "Garage 1" && inspection.rowCounts == ["Car": 3, "Owner": 3])
        #expect(inspection.cache == nil && !inspection.describedFromCache)

        // Without a model, a store is described from its Z_MODELCACHE, matched by `cache`.
        let cached = try ModelCacheStores.store(
            cache: RawDeflate.deflate(try ModelCacheStores.cacheArchive(composite: false)), in: scratch.dir).path
        let fromCache = InstarCommand.runInProcess(["inspect", "--store", cached, "--format", "json"])
        let cacheInspection = try StoreInspection.of(storeAt: cached, layout: nil, candidates: [])
        #expect(fromCache.status == 0 && jsonText(cacheInspection) + "\n" == fromCache.stdout, "\(fromCache.stderr)")
        #expect(cacheInspection.describedFromCache && cacheInspection.detection.matchedBy == .cache)
        #expect(fromCache.stdout.contains(#""versionIdentifier" : "#), "a key Core Data may leave empty is always named")

        // A status is encodable only (StoreStatus.swift): the library's own status writes the output.
        let shown = InstarCommand.runInProcess(["status", "--store", scratch.store, "--format", "json"])
        let status = try Migrator.status(ofStoreAt: scratch.store)
        #expect(shown.status == 0 && jsonText(status, encoder: Journal.encoder) + "\n" == shown.stdout, "\(shown.stderr)")
        #expect(status.journal == nil && status.lease == nil && !status.unfinished)

        let tested = try roundTrip(["test", Self.garage, "--rows", "2", "--format", "json"], as: MigrationTestReport.self)
        #expect(tested.passed && tested.runs.map(\.fromVersion) == ["Garage 1", "Garage 2"])
    }

    /// `migrate --progress json` lines decode one by one as ``ProgressEvent``.
    @Test func progressLinesDecodeAsEvents() throws {
        let event = ProgressEvent.stepStarted(index: 0, of: 2, from: "V1", to: "V2", kind: .lightweight, estimatedRows: 12)
        let line = ProgressReporter.jsonLine(event)
        #expect(!line.contains("\n"))
        #expect(line.contains(#""step" : 1,"#), "1-based, as people count steps: \(line)")
        #expect(try decodeOutput(ProgressEvent.self, line) == event)
    }
}
