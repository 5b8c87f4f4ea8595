@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import Foundation
import GRDB
import InstarMapping
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport

/// `instar plan --scaffold` for a mapping step whose hooks are missing: one SQL template per hook,
/// named as the refusal names it, saying where it runs and what it must produce.
@Suite struct MappingHookScaffoldTests {
    /// A mapping built in code: NoteToNote has a custom policy and a title SQL cannot compute.
    static func mapping() throws -> MappingModel {
        var model = try MappingFixture.mapping(extra: ["title": "FUNCTION($entityPolicy, \"shout:\", $source.title)"])
        let index = try #require(model.entityMappings.firstIndex { $0.name == "NoteToNote" })
        model.entityMappings[index].customPolicyClass = "ShoutPolicy"
        return model
    }

    @Test(arguments: ["instar", "coredata"]) func templatesNameEachMissingHookAndRunOnceFilledIn(layoutName: String) throws {
        var f = try MappingFixture(layout: Layouts.named(layoutName)!)
        defer { f.remove() }
        try f.fill()
        let plan = try f.plan(mapping: Self.mapping())
        let report = try DryRun.report(plan: plan, storePath: f.path)
        let templates = try #require(report.steps.first).mappingHookTemplates
        #expect(templates.map { "\($0.hook) \($0.point.rawValue)" } == ["M.NoteToNote.title attribute", "M.NoteToNote policy"])
        let title = try #require(templates.first), policy = try #require(templates.last)
        #expect(title.sql.hasPrefix("-- Hook M.NoteToNote.title: scaffolded by Instar for the mapping step V1 → V2."))
        #expect(title.sql.contains("-- Runs: after the destination rows of 'NoteToNote' exist"))
        #expect(title.sql.contains("-- Must: set 'title' of each of those rows from its source row"))
        #expect(policy.sql.contains("the custom policy 'ShoutPolicy'"))
        #expect(policy.sql.contains(Decomposition.expressionPlaceholder))
        // The refusal names the same hooks.
        let refusal = #expect(throws: HookError.self) { try Migrator(plan: plan).migrate(storeAt: f.path) }
        #expect(refusal?.kind == .notDefined)
        #expect(refusal?.missing.map(\.hook) == templates.map(\.hook))

        // Filled in, the templates run as the step's hooks.
        let titles = try f.values("Note", "title", at: 0)
        let map = try f.layout.storageMap(for: f.versions[1])
        let titleColumn = "\"" + map.entities["Note"]!.columns["title"]! + "\""
        let oldMap = try f.layout.storageMap(for: f.versions[0])
        let oldTitle = "\"src\".\"" + oldMap.entities["Note"]!.columns["title"]! + "\""
        f.hooks["M.NoteToNote.title"] = .sql([
            title.sql.replacingOccurrences(of: Decomposition.expressionPlaceholder, with: "upper(\(oldTitle))")
        ])
        f.hooks["M.NoteToNote"] = .sql([
            policy.sql.replacingOccurrences(of: Decomposition.expressionPlaceholder, with: "\(titleColumn) = \(titleColumn) || '!'")
        ])
        try Migrator(plan: try f.plan(mapping: Self.mapping())).migrate(storeAt: f.path)
        let migrated = try f.values("Note", "title", at: 1)
        #expect(!titles.isEmpty && migrated.count == titles.count)
        for (key, value) in titles {
            let expected = String.fromDatabaseValue(value).map { $0.uppercased() + "!" }
            #expect(String.fromDatabaseValue(migrated[key] ?? .null) == expected, "Note \(key)")
        }
    }

}
