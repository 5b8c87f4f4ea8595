import Foundation
@_spi(Layouts) import Instar
import InstarMapping
@_spi(Layouts) import InstarModel
import Testing
import InstarTestSupport

/// Instar's own mapping files (`.mapping.yaml`/`.mapping.json`): read into the same `MappingModel` as
/// Xcode's, resolved by the version names they state, every mistake reported at `file:line:column`.
@Suite struct MappingFileReaderTests {
    static let folder = packageRoot.appendingPathComponent("Plans/school-classes")

    static func versions() throws -> [Model] {
        try (1...3).map { try ModelFileReader.read(path: folder.appendingPathComponent("models/v\($0).yaml").path) }
    }

    static let text = """
        source: Classes 2
        destination: Classes 3
        entities:
          - name: StudentToStudent
            source: Student
            destination: Student
            filter: "name != nil"
            attributes:
              clazzName: "$source.clazz.name"
          - source: Clazz
        """

    @Test func readsAndResolvesByTheNamedVersions() throws {
        let file = try MappingFileReader.parse(Self.text, file: "m.mapping.yaml", name: "m")
        #expect(file.sourceVersion == "Classes 2" && file.destinationVersion == "Classes 3")
        #expect(file.sourceLocation.description == "m.mapping.yaml:1:9")
        let found = try file.resolved(among: Self.versions(), from: .plan)
        #expect(found.source.name == "Classes 2" && found.destination.name == "Classes 3")
        let student = try #require(found.model.entityMapping(named: "StudentToStudent"))
        #expect(student.kind == .transform)
        #expect(student.filterText == "name != nil" && student.filter != nil)
        // Unlisted attributes copy the source's of the same name, as Xcode generates them.
        #expect(student.attributeMappings.map { "\($0.name)=\($0.valueExpressionText ?? "-") \($0.origin.rawValue)" } == [
            "name=$source.name generated", "birthday=$source.birthday generated", "clazzName=$source.clazz.name written",
        ])
        let clazz = try #require(found.model.entityMapping(named: "Clazz"))
        #expect(clazz.kind == .remove && clazz.destinationEntity == nil)
        // The same file as JSON reads the same.
        let json = """
            {"source": "Classes 2", "destination": "Classes 3", "entities": [
              {"name": "StudentToStudent", "source": "Student", "destination": "Student", "filter": "name != nil",
               "attributes": {"clazzName": "$source.clazz.name"}}, {"source": "Clazz"}]}
            """
        let fromJSON = try MappingFileReader.parse(json, file: "m.mapping.json", name: "m").resolved(among: Self.versions(), from: .plan)
        func summary(_ model: MappingModel) -> [String] {
            model.entityMappings.flatMap { m in m.attributeMappings.map { "\(m.name).\($0.name)=\($0.valueExpressionText ?? "-")" } }
        }
        #expect(summary(fromJSON.model) == summary(found.model))
    }

    @Test func anUnknownVersionNameIsAnErrorWhereItIsWrittenWithASpellingHint() throws {
        let file = try MappingFileReader.parse(
            Self.text.replacingOccurrences(of: "destination: Classes 3", with: "destination: Clases 3"), file: "m.mapping.yaml")
        #expect {
            try file.resolved(among: Self.versions(), from: .plan)
        } throws: { error in
            guard case .invalidFile(let problems) = error as? MappingError else { return false }
            return problems.contains {
                $0.location?.description == "m.mapping.yaml:2:14" && $0.value == "Clases 3" && $0.suggestion == "Classes 3"
            }
        }
    }

    @Test func anExpressionSyntaxErrorNamesTheValueAndTheColumnInside() {
        let broken = Self.text.replacingOccurrences(of: "\"$source.clazz.name\"", with: "\"$source.clazz.(name\"")
        #expect {
            try MappingFileReader.parse(broken, file: "m.mapping.yaml")
        } throws: { error in
            guard case .expressionSyntax(let location, let mapping, let property, _, let syntax) = error as? MappingError
            else { return false }
            return location.description == "m.mapping.yaml:9:18" && mapping == "StudentToStudent" && property == "clazzName"
                && syntax.column > 1
        }
    }

    @Test func unknownKeysEntitiesAndPropertiesAreReportedWithHints() throws {
        #expect {
            try MappingFileReader.parse(Self.text.replacingOccurrences(of: "filter:", with: "filtre:"), file: "m.mapping.yaml")
        } throws: { error in
            guard case .invalidFile(let problems) = error as? MappingError else { return false }
            return problems.contains {
                $0.location?.description == "m.mapping.yaml:7:5" && $0.kind == .unknownKey && $0.suggestion == "filter"
            }
        }
        let misspelt = try MappingFileReader.parse(
            Self.text.replacingOccurrences(of: "clazzName:", with: "clazName:"), file: "m.mapping.yaml")
        #expect {
            try misspelt.resolved(among: Self.versions(), from: .plan)
        } throws: { error in
            guard case .invalidFile(let problems) = error as? MappingError else { return false }
            return problems.contains {
                $0.location?.description == "m.mapping.yaml:9:7" && $0.value == "clazName" && $0.suggestion == "clazzName"
            }
        }
    }

    @Test func aPlanListsAMappingFileAndTheMappingCommandReadsIt() throws {
        let plan = try PlanFileReader.read(path: Self.folder.appendingPathComponent("plan.yaml").path)
        #expect(plan.mappings.map { "\($0.from) → \($0.to) \($0.model.name)" } == ["Classes 2 → Classes 3 v2-to-v3"])
        let mapping = Self.folder.appendingPathComponent("v2-to-v3.mapping.yaml").path
        let shown = try runInstar(["mapping", mapping, "--plan", Self.folder.appendingPathComponent("plan.yaml").path])
        #expect(shown.status == 0, "\(shown.stderr)")  // the text: golden cli/mapping-file.txt
        let json = try runInstar(["mapping", mapping, "--plan", Self.folder.appendingPathComponent("plan.yaml").path, "--format", "json"])
        let report = try json.decoded(MappingReport.self)
        #expect(report.source == "Classes 2" && report.destination == "Classes 3" && report.match == .named, "\(json.stdout)")
        #expect(shown.stdout.contains(#"clazzName = $source.clazz.name  →  "source.clazz"."name""#))
        let unmatched = try runInstar(["mapping", mapping, "--model", Self.folder.appendingPathComponent("models/v1.yaml").path])
        #expect(unmatched.status != 0)
        let v1 = try ModelFileReader.read(path: Self.folder.appendingPathComponent("models/v1.yaml").path)
        let refusal = try #require(#expect(throws: MappingError.self) {
            try MappingFileReader.read(path: mapping).resolved(among: [v1], from: .models)
        })
        #expect(unmatched.stderr == "instar: \(refusal)\n", "the library's refusal: \(unmatched.stderr)")
        // No plan was given: the refusal says the versions are the given models', as a fact and in words.
        guard case .invalidFile(let problems) = refusal else { Issue.record("\(refusal)"); return }
        #expect(problems.map(\.versionSource) == [.models, .models])
        #expect(problems.map(\.value) == ["Classes 2", "Classes 3"])
        #expect(problems.map(\.message) == ["Classes 2", "Classes 3"].enumerated().map { index, name in
            "the \(index == 0 ? "source" : "destination") version '\(name)' is not one of \(VersionSource.models)"
        })
    }
}
