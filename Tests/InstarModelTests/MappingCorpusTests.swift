import Foundation
import InstarMapping
import InstarModelIO
import Testing
import InstarTestSupport

/// Every real mapping model in the shared corpus reads, is matched to its versions, and each of its
/// expressions either translates to SQL or names a hook (none is dropped).
@Suite struct MappingCorpusTests {
    /// Skipped when `../shared/corpus` is absent: reads, matches and reports all 41 `xcmapping.xml`
    /// files there. Run it with the shared corpus checked out beside the package.
    @Test(.enabled(if: MappingCorpus.isPresent, "needs ../shared/corpus beside the package"))
    func everyCorpusMappingModelReadsAndEveryExpressionTranslatesOrNamesAHook() throws {
        let files = MappingCorpus.mappingFiles()
        #expect(files.count == 41)
        var totals = (files: 0, translated: 0, hooked: 0, policies: 0)
        var byReason: [String: Int] = [:]
        for file in files {
            let read = try XcodeMappingReader.read(url: file)
            totals.files += 1
            let bundle = try #require(MappingCorpus.bundle(for: read), "no model bundle for \(file.path)")
            let versions = try ModelBundle.read(xcdatamodeld: bundle).versions
            let match = try MappingVersionMatcher.match(read, versions: versions)
            let mapping = read.resolved(source: match.source, destination: match.destination)
            #expect(!mapping.entityMappings.contains { $0.kind == .undefined }, "\(mapping.name): kinds decided")
            let report = MappingReport(mapping: mapping, match: match, resolver: ModelColumnResolver(model: match.source))

            for entity in report.entities {
                for property in [entity.filter].compactMap({ $0 }) + entity.attributes + entity.relationships
                where property.expression != nil {
                    let outcomes = [property.sql != nil, property.relationshipMapping != nil, property.hook != nil]
                    #expect(outcomes.filter { $0 }.count == 1, "\(mapping.name).\(entity.name).\(property.name) dropped")
                }
                if let policy = entity.policy {
                    #expect(report.hooks.contains { $0.name == "\(mapping.name).\(entity.name)" && $0.reason.contains(policy) })
                }
            }
            for hook in report.hooks { byReason[hook.category, default: 0] += 1 }
            let policies = report.hooks.filter { $0.category == "custom policy" }.count
            totals.translated += report.translatedCount
            totals.hooked += report.hookedExpressionCount
            totals.policies += policies
            print("\(mapping.name) [\(report.source ?? "?") → \(report.destination ?? "?"), \(match.basis.rawValue)]: "
                + "\(report.translatedCount) translated, \(report.hookedExpressionCount) expression hook(s), \(policies) policy hook(s)")
            // The JSON a CLI would print has the documented shape.
            let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any]
            #expect(json?["entities"] is [[String: Any]] && json?["source"] is String)
        }
        print("corpus: \(totals.files) files, \(totals.translated) translated, \(totals.hooked) expression hooks, "
            + "\(totals.policies) policy hooks; hooks by reason: \(byReason.sorted { $0.key < $1.key })")
        #expect(totals.files == 41)
    }

    /// The text rendering of a real report names the translated SQL and the hooks.
    @Test(.enabled(if: MappingCorpus.isPresent, "needs ../shared/corpus beside the package"))
    func textReportOfSworm() throws {
        let read = try MappingCorpus.mapping("Sworm/Tests/SwormTests/DataModels/V0V1.xcmappingmodel")
        let versions = try MappingCorpus.versions("prisma-ai__Sworm/Tests/SwormTests/DataModels/MigratableDataModel.xcdatamodeld")
        let match = try MappingVersionMatcher.match(read, versions: versions)
        let report = MappingReport(
            mapping: read.resolved(source: match.source, destination: match.destination), match: match,
            resolver: ModelColumnResolver(model: match.source))
        let text = report.renderText()
        #expect(text.contains("V0V1.AToB.identifier: custom policy method changeID:"))
        #expect(text.contains("V0V1.AToB: custom migration policy V0V1MigrationPolicy"))
        #expect(text.contains("$source.name  →  \"source\".\"name\""))
    }
}
