import Foundation
import InstarMapping
import Testing

/// Every real mapping model in the shared corpus reads, translates, or names its hooks.
@Suite struct MappingCorpusTests {
    /// Skipped when `../shared/corpus` is absent: reads all 41 `xcmapping.xml` files there.
    @Test(.enabled(if: MappingCorpus.isPresent, "needs ../shared/corpus beside the package"))
    func everyCorpusMappingModelReads() throws {
        let files = MappingCorpus.mappingFiles()
        #expect(files.count == 41)
        for file in files {
            let mapping = try XcodeMappingReader.read(url: file)
            #expect(!mapping.entityMappings.isEmpty, "\(file.path)")
            print("\(mapping.name): \(mapping.source.versionName ?? "?") → \(mapping.destination.versionName ?? "?")")
            for entity in mapping.entityMappings {
                print("  \(entity.mappingNumber) \(entity.name) \(entity.kind) filter=\(entity.filter?.description ?? "-") policy=\(entity.customPolicyClass ?? "-") userInfo=\(entity.userInfo)")
                for p in entity.attributeMappings + entity.relationshipMappings where p.origin == .written {
                    print("     \(p.name) = \(p.valueExpressionText ?? "nil")")
                }
            }
        }
    }
}
