import Foundation
@_spi(Layouts) import InstarModel
import InstarPlanner
import Testing
import InstarTestSupport
@testable import InstarCLI

/// `instar lint --cloudkit`: the rules of Core Data with CloudKit, on models, on steps, on plans and
/// bundles, through the library and the command.
@Suite struct CloudKitLintTests {
    /// One violation of each model rule, each on a different entity or property.
    static let violating = """
        name: Bad
        entities:
          Shelf:
            unique: [[code]]
            attributes:
              code: string
              label: string?
              count: int32 = 0
            relationships:
              books: Book[] ordered inverse shelf
              owner:
                to: Person
                deleteRule: deny
                inverse: shelves
              tags: Tag[]
          Book:
            attributes:
              title: string?
            relationships:
              shelf: Shelf inverse books
          Person:
            attributes:
              name: string?
            relationships:
              shelves: Shelf[] inverse owner
          Tag:
            attributes:
              ref: objectid?
              scratch:
                type: undefined
                transient: true
                optional: true
        """

    /// Everything CloudKit accepts: optional or defaulted attributes, optional relationships with
    /// inverses, Nullify and Cascade, a hierarchy.
    static let compliant = """
        name: Good 1
        entities:
          Shelf:
            attributes:
              label: string?
              count: int32 = 0
              position: double = 0
            relationships:
              books:
                to: Book
                toMany: true
                inverse: shelf
                deleteRule: cascade
          Book:
            attributes:
              title: string?
              cover: binary?
            relationships:
              shelf: Shelf? inverse books
          Novel:
            parent: Book
            attributes:
              genre: string?
        """

    static func subjects(_ findings: [LintFinding]) -> Set<String> {
        Set(findings.map { finding in
            let quoted = finding.message.split(separator: "'").dropFirst().first.map(String.init) ?? ""
            return "\(finding.check.rawValue) \(quoted)"
        })
    }

    /// A folder with model files (and optionally a plan), removed by the caller.
    static func folder(_ files: [String: String]) throws -> URL {
        let directory = try temporaryDirectory()
        for (name, text) in files {
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory
    }

    // MARK: - Model rules

    @Test func eachModelRuleFiresWithTheEntityAndPropertyNamed() throws {
        let findings = CloudKitLint.check(try model(Self.violating, name: "Bad"))
        #expect(
            Self.subjects(findings) == [
                "cloudKitUniqueConstraint Shelf",
                "cloudKitRequiredAttribute Shelf.code",
                "cloudKitOrderedRelationship Shelf.books",
                "cloudKitDenyDeleteRule Shelf.owner",
                "cloudKitMissingInverse Shelf.tags",
                "cloudKitRequiredRelationship Book.shelf",
                "cloudKitUnsupportedType Tag.ref",
                "cloudKitUnsupportedType Tag.scratch",
            ])
        #expect(findings.allSatisfy { $0.severity == .error })
        #expect(findings.allSatisfy { $0.hint?.isEmpty == false })
        // Each at the line of what it is about, in the model file.
        let lines = Self.violating.split(separator: "\n", omittingEmptySubsequences: false)
        for finding in findings {
            #expect(finding.location.file == "Bad.yaml")
            let line = try #require(finding.location.line)
            let quoted = finding.message.split(separator: "'")[1]
            let name = quoted.split(separator: ".").last.map(String.init) ?? ""
            #expect(lines[line - 1].contains(name + ":"), "\(finding) points at line \(line): \(lines[line - 1])")
        }
        let unique = try #require(findings.first { $0.check == .cloudKitUniqueConstraint })
        #expect(unique.constraint == ["code"])
        #expect(unique.hint?.contains("deduplicate") == true)
        let deny = try #require(findings.first { $0.check == .cloudKitDenyDeleteRule })
        #expect(deny.hint?.contains("Nullify") == true)
    }

    @Test func aCompliantModelHasNoFinding() throws {
        #expect(CloudKitLint.check(try model(Self.compliant, name: "Good 1")).isEmpty)
    }

    @Test func transientPropertiesAreNotSyncedAndSkipped() throws {
        let findings = CloudKitLint.check(
            try model(
                """
                entities:
                  Item:
                    attributes:
                      cache: {type: string, transient: true}
                """))
        #expect(findings.isEmpty)
    }

    // MARK: - Step rules

    @Test func aReleasedVersionMayOnlyGrow() throws {
        let v1 = try model(
            """
            name: S1
            entities:
              Item:
                attributes: {title: string?, price: string?, note: string?}
                relationships:
                  tags: Tag[] inverse items
              Tag:
                relationships:
                  items: Item[] inverse tags
              Old:
                attributes: {x: string?}
            """, name: "S1")
        let v2 = try model(
            """
            name: S2
            entities:
              Item:
                attributes:
                  name: {type: string, optional: true, renamedFrom: title}
                  price: double?
                  added: string?
                relationships:
                  tags: Tag[] inverse items
              Tag:
                relationships:
                  items: Item[] inverse tags
              New:
                attributes: {y: string?}
            """, name: "S2")
        let findings = CloudKitLint.check(from: v1, to: v2)
        #expect(
            Self.subjects(findings) == [
                "cloudKitRemoved Old",
                "cloudKitRemoved Item.note",
                "cloudKitRenamed Item.title",
                "cloudKitTypeChanged Item.price",
            ])
        let rename = try #require(findings.first { $0.check == .cloudKitRenamed })
        // The step, and the attribute by its newer name (the subjects above name it by its older one).
        #expect(rename.versions == ["S1", "S2"])
        #expect(rename.entity == "Item" && rename.property == "name")
        #expect(rename.hint?.contains("add a new attribute instead of renaming") == true)
        #expect(rename.location.file == "S2.yaml" && rename.location.line != nil)
        // Additions alone pass.
        let v3 = try model(
            """
            name: S3
            entities:
              Item:
                attributes:
                  name: {type: string, optional: true, renamedFrom: title}
                  price: double?
                  added: string?
                  more: int64 = 0
                relationships:
                  tags: Tag[] inverse items
              Tag:
                relationships:
                  items: Item[] inverse tags
              New:
                attributes: {y: string?}
              Newer:
                attributes: {z: date?}
            """, name: "S3")
        #expect(CloudKitLint.check(from: v2, to: v3).isEmpty)
    }

    @Test func movingAnEntityToAnotherHierarchyIsReported() throws {
        let v1 = try model("entities: {Media: {attributes: {a: string?}}, Track: {attributes: {b: string?}}}", name: "H1")
        let v2 = try model(
            "entities: {Media: {attributes: {a: string?}}, Track: {parent: Media, attributes: {b: string?}}}", name: "H2")
        #expect(CloudKitLint.check(from: v1, to: v2).map(\.check).contains(.cloudKitHierarchyChanged))
    }

    // MARK: - Plans

    @Test func aViolationSharedByVersionsIsReportedOnceAtTheNewest() throws {
        let versions = try (1...3).map { i in
            try model(
                "name: V\(i)\nentities: {Item: {unique: [[code]], attributes: {code: string?, v\(i): string?}}}",
                name: "V\(i)")
        }
        let plan = Plan(name: "p", file: "p.yaml", layout: "instar", versions: versions)
        let all = CloudKitLint.check(plan)
        let unique = all.filter { $0.check == .cloudKitUniqueConstraint }
        #expect(unique.count == 1)
        #expect(unique.first?.versions == ["V3"])
        #expect(unique.first?.alsoInOlderVersions == 2)
        #expect(unique.first?.location.file == "V3.yaml")
        // Each step removes the previous version's attribute.
        #expect(all.filter { $0.check == .cloudKitRemoved }.map(\.message).count == 2)
        // Released from V3 on: V1 and V2 were never synced, so only V3 is checked, and no step.
        let late = CloudKitLint.check(plan, firstReleased: "V3")
        #expect(late.map(\.check) == [.cloudKitUniqueConstraint])
        #expect(late.first?.message.contains("also in") == false)
        // From V2: one step.
        #expect(CloudKitLint.check(plan, firstReleased: "V2").filter { $0.check == .cloudKitRemoved }.count == 1)
    }

    // MARK: - The command

    @Test func lintModelWithCloudKitReportsEachRule() throws {
        let directory = try Self.folder(["bad.yaml": Self.violating])
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bad.yaml").path
        // The text rendering of findings is pinned by the golden transcript cli/lint-cloudkit.txt.
        #expect(try runInstar(["lint", "--model", path, "--cloudkit"]).status == 1)
        let json = try runInstar(["lint", "--model", path, "--cloudkit", "--format", "json"])
        #expect(json.status == 1)
        let lint = try json.decoded(LintReport.self)
        #expect(lint.plan == path && lint.errors == 8 && lint.warnings == 0)
        let checks = Set(lint.findings.map(\.check))
        #expect(checks.contains(.cloudKitRequiredRelationship) && checks.contains(.cloudKitUnsupportedType))
        #expect(lint.findings.allSatisfy { $0.line != nil && $0.column != nil && $0.hint != nil })
        let ordered = try #require(lint.findings.first { $0.check == .cloudKitOrderedRelationship })
        #expect(ordered.file == path && ordered.line == 10 && ordered.column == 7 && ordered.severity == .error)
        // Without --cloudkit the same model is a fine one-version "plan".
        #expect(try runInstar(["lint", "--model", path]).status == 0)
    }

    @Test func lintModelsThatOnlyGrowPasses() throws {
        let v2 = Self.compliant.replacingOccurrences(of: "Good 1", with: "Good 2")
            .replacingOccurrences(of: "genre: string?", with: "genre: string?\n      pages: int32 = 0")
        let directory = try Self.folder(["v1.yaml": Self.compliant, "v2.yaml": v2])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try runInstar([
            "lint", "--model", directory.appendingPathComponent("v1.yaml").path,
            "--model", directory.appendingPathComponent("v2.yaml").path, "--cloudkit", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try result.decoded(LintReport.self).findings.isEmpty, "no finding at all")
    }

    @Test func aPlanWhoseStepRenamesAnAttributeFails() throws {
        let v1 = "name: R1\nentities: {Item: {attributes: {title: string?}}}"
        let v2 = "name: R2\nentities: {Item: {attributes: {name: {type: string, optional: true, renamedFrom: title}}}}"
        let plan = "name: rename\nversions: [v1.yaml, v2.yaml]\n"
        let directory = try Self.folder(["v1.yaml": v1, "v2.yaml": v2, "plan.yaml": plan])
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("plan.yaml").path
        // A renaming identifier makes the step inferable: the plain lint is clean.
        #expect(try runInstar(["lint", path]).status == 0)
        let result = try runInstar(["lint", path, "--cloudkit", "--format", "json"])
        #expect(result.status == 1)
        let renamed = try #require(try result.decoded(LintReport.self).findings.first { $0.check == .cloudKitRenamed })
        #expect(renamed.severity == .error && renamed.file.hasSuffix("v2.yaml") && renamed.line == 2)
        // Released only from R2 on, the rename happened before CloudKit saw the schema.
        #expect(try runInstar(["lint", path, "--cloudkit", "--released", "R2"]).status == 0)
        // A version that does not exist, or --released without --cloudkit: a usage error.
        let unknown = try runInstar(["lint", path, "--cloudkit", "--released", "R3"])
        #expect(unknown.status == 64)  // naming the versions, as the golden transcript cli/refusals.txt shows
        #expect(try runInstar(["lint", path, "--released", "R1"]).status == 64)
        #expect(try runInstar(["lint"]).status == 64)
    }

    /// Every rule is named in `instar lint --help` (whose whole text the golden file cli/help-lint.txt pins).
    @Test func helpListsTheRules() throws {
        let help = try runInstar(["lint", "--help"])
        let missing = LintFinding.Check.allCases.map(\.rawValue).filter { $0.hasPrefix("cloudKit") && !help.stdout.contains($0) }
        #expect(help.status == 0 && missing.isEmpty, "\(missing)")
    }

    // MARK: - Corpus

    /// objc.io's Moody syncs its moods with CloudKit through its own code, not NSPersistentCloudKitContainer;
    /// no model in the corpus is marked `usedWithCloudKit="YES"`. Its bundle shows what moving to
    /// NSPersistentCloudKitContainer would take.
    @Test(.needsCorpus) func moodyBundle() throws {
        let bundle = corpusRoot.appendingPathComponent("objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld").path
        let result = try runInstar(["lint", "--model", bundle, "--cloudkit", "--format", "json"])
        #expect(result.status == 1, "\(result.stderr)")
        let findings = try #require(result.json?["findings"] as? [[String: Any]])
        let cloud = findings.filter { ($0["check"] as? String)?.hasPrefix("cloudKit") == true }
        let messages = cloud.compactMap { $0["message"] as? String }
        // What it finds (22 errors): constraints, required attributes and relationships in every
        // version, and, from each released version to the current Moody 6 (a bundle has no other
        // order), a rename, a flattened hierarchy and removals; one finding names every version it
        // concerns. Continent, removed in Moody 5 and back in Moody 6, is not a removal.
        #expect(cloud.count == 22)
        #expect(
            Set(cloud.compactMap { $0["check"] as? String }) == [
                "cloudKitUniqueConstraint", "cloudKitRequiredAttribute", "cloudKitRequiredRelationship",
                "cloudKitRenamed", "cloudKitRemoved", "cloudKitHierarchyChanged",
            ])
        for expected in [
            "Moody → Moody 6: attribute 'Mood.remoteIdentifier' is renamed to 'Mood.remoteID' after Moody was released",
            "Moody 3: entity 'GeographicRegion' has a uniqueness constraint on (numericISO3166Code, uniquenessDummy)",
            "Moody, Moody 2, Moody 3 → Moody 6: entity 'Continent' changes parent from GeographicRegion to (none) after these versions were released",
            "Moody 4 → Moody 6: attribute 'Continent.numberOfMoods' is removed",
            "Moody 6: attribute 'Mood.date' is required and has no default value",
        ] {
            #expect(messages.contains { $0.hasPrefix(expected) }, "missing: \(expected)")
        }
        // Each in the version's contents file; all but whole-entity removals at a line.
        #expect(cloud.allSatisfy { ($0["file"] as? String)?.hasSuffix("/contents") == true })
        #expect(cloud.filter { $0["line"] == nil }.count == 1)
    }
}
