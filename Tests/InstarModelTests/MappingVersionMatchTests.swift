import Foundation
import InstarMapping
@_spi(Layouts) import InstarModel
import Testing
import InstarTestSupport

/// Matching a mapping model to the (source, destination) versions it was made for, on real projects.
@Suite struct MappingVersionMatchTests {
    /// (mapping folder suffix, bundle below the corpus, expected source, expected destination)
    static let cases: [(String, String, String, String)] = [
        ("CareKit/CareKitStore/CareKitStore/CoreData/Migrations/2_0To2_1/2.0_2.1_Mapping.xcmappingmodel",
         "carekit-apple__CareKit/CareKitStore/CareKitStore/CoreData/CareKitStore.xcdatamodeld", "CareKitStore2.0", "CareKitStore2.1"),
        ("2.1_3.0_Mapping.xcmappingmodel",
         "carekit-apple__CareKit/CareKitStore/CareKitStore/CoreData/CareKitStore.xcdatamodeld", "CareKitStore2.1", "CareKitStore3.0"),
        ("2.0_3.0_Mapping.xcmappingmodel",
         "carekit-apple__CareKit/CareKitStore/CareKitStore/CoreData/CareKitStore.xcdatamodeld", "CareKitStore2.0", "CareKitStore3.0"),
        ("ATDataModel v1 to v2.xcmappingmodel", "apptentive__apptentive-ios/Apptentive/Apptentive/Model/ATDataModel.xcdatamodeld", "ATDataModel", "ATDataModel 2"),
        ("ATDataModel v2 to v3.xcmappingmodel", "apptentive__apptentive-ios/Apptentive/Apptentive/Model/ATDataModel.xcdatamodeld", "ATDataModel 2", "ATDataModel 3"),
        ("ATDataModel v3 to v4.xcmappingmodel", "apptentive__apptentive-ios/Apptentive/Apptentive/Model/ATDataModel.xcdatamodeld", "ATDataModel 3", "ATDataModel 4"),
        ("ATDataModel v4 to v5.xcmappingmodel", "apptentive__apptentive-ios/Apptentive/Apptentive/Model/ATDataModel.xcdatamodeld", "ATDataModel 4", "ATDataModel 5"),
        ("Moody 2-Moody 3.xcmappingmodel", "objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld", "Moody 2", "Moody 3"),
        ("Moody 3-Moody 4.xcmappingmodel", "objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld", "Moody 3", "Moody 4"),
        ("Moody 4-Moody 5.xcmappingmodel", "objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld", "Moody 4", "Moody 5"),
        ("Moody 5-Moody 6.xcmappingmodel", "objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld", "Moody 5", "Moody 6"),
        ("Model1ToModel2.xcmappingmodel", "billmoss__CoreDataMigrations-HybridMigration/CoreDataMigration/Model.xcdatamodeld", "Model1", "Model2"),
        ("Model3ToModel4.xcmappingmodel", "billmoss__CoreDataMigrations-HybridMigration/CoreDataMigration/Model.xcdatamodeld", "Model3", "Model4"),
        ("Model4ToModel5-2.xcmappingmodel", "billmoss__CoreDataMigrations-HybridMigration/CoreDataMigration/Model.xcdatamodeld", "Model4", "Model5"),
        ("UnCloudNotesMappingModel_v2_to_v3.xcmappingmodel", "nazmulcuet11__UnCloudNotes/UnCloudNotes/UnCloudNotesDataModel.xcdatamodeld", "UnCloudNotesDataModel_v2", "UnCloudNotesDataModel_v3"),
        ("UnCloudNotesMappingModel_v3_to_v4.xcmappingmodel", "nazmulcuet11__UnCloudNotes/UnCloudNotes/UnCloudNotesDataModel.xcdatamodeld", "UnCloudNotesDataModel_v3", "UnCloudNotesDataModel_v4"),
        ("Sworm/Tests/SwormTests/DataModels/V0V1.xcmappingmodel", "prisma-ai__Sworm/Tests/SwormTests/DataModels/MigratableDataModel.xcdatamodeld", "V0", "V1"),
        ("Sworm/Tests/SwormTests/DataModels/V1V2.xcmappingmodel", "prisma-ai__Sworm/Tests/SwormTests/DataModels/MigratableDataModel.xcdatamodeld", "V1", "V2"),
        ("V2toV3.xcmappingmodel", "alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld", "SampleModel2", "SampleModel3"),
    ]

    /// Skipped without ../shared/corpus: matches 19 real mapping models to their projects' versions.
    @Test(.enabled(if: MappingCorpus.isPresent, "needs ../shared/corpus beside the package"),
          arguments: cases.indices)
    func matchesTheVersionsItWasMadeFor(index: Int) throws {
        let (suffix, bundle, source, destination) = Self.cases[index]
        let mapping = try MappingCorpus.mapping(suffix)
        let versions = try MappingCorpus.versions(bundle)
        let match = try MappingVersionMatcher.match(mapping, versions: versions)
        #expect(match.pair == VersionPair(source: source, destination: destination), "\(suffix): \(match.basis) alternatives \(match.alternatives)")
    }

    /// The CareKit 2.0→2.1 mapping records a destination version 'CareKitStore2.2' that the bundle no
    /// longer has: the destination is recognised by structure, and the basis says so.
    @Test(.enabled(if: MappingCorpus.isPresent, "needs ../shared/corpus beside the package"))
    func aRenamedVersionIsRecognisedByStructure() throws {
        let mapping = try MappingCorpus.mapping("2.0_2.1_Mapping.xcmappingmodel")
        #expect(mapping.destination.versionName == "CareKitStore2.2")
        let versions = try MappingCorpus.versions(
            "carekit-apple__CareKit/CareKitStore/CareKitStore/CoreData/CareKitStore.xcdatamodeld")
        let match = try MappingVersionMatcher.match(mapping, versions: versions)
        #expect(match.basis == .structure)
    }

    /// A mapping model checked against versions of another project: no match, with the closest pair.
    @Test(.enabled(if: MappingCorpus.isPresent, "needs ../shared/corpus beside the package"))
    func noMatchNamesTheClosestPair() throws {
        let mapping = try MappingCorpus.mapping("Moody 4-Moody 5.xcmappingmodel")
        let versions = try MappingCorpus.versions("objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld")
            .filter { $0.name != "Moody 5" }
        do {
            _ = try MappingVersionMatcher.match(mapping, versions: versions)
            Issue.record("expected no match")
        } catch {
            #expect(error.closest != nil)
            #expect(error.differingEntityHashes > 0)
            #expect(error.description.contains("closest is"))
        }
    }
}
