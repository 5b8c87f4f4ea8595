import Testing

@testable import InstarInference
@_spi(Layouts) import InstarModel
import InstarTestSupport

/// One test per inference rule of `shared/coredata/FORMAT.md` §4. Each would fail if the rule were wrong.
@Suite struct InferenceTests {
    func diff(_ old: String, _ new: String) throws -> ModelDiff {
        ModelDiff(from: try model(old, name: "A"), to: try model(new, name: "B"))
    }

    func only(_ diff: ModelDiff, _ kind: Change.Kind) throws -> Change {
        let matching = diff.changes.filter { $0.kind == kind }
        try #require(matching.count == 1, "expected one \(kind), got \(diff.changes.map(\.kind))")
        return matching[0]
    }

    let track = """
        entities:
          Track:
            attributes:
              title: string?
              plays: int32 = 0
        """

    @Test func identicalModelsHaveNoChanges() throws {
        let d = try diff(track, track)
        #expect(d.changes.isEmpty)
        #expect(d.isInferable)
    }

    @Test func addingOptionalAttributeIsInferable() throws {
        let d = try diff(track, track + "\n      subtitle: string?")
        let c = try only(d, .attributeAdded)
        #expect(c.entity == "Track" && c.property == "subtitle")
        #expect(c.verdict == .inferable("a new optional attribute: existing rows get NULL"))
    }

    @Test func addingRequiredAttributeWithoutDefaultIsConditionalOnNoRows() throws {
        let d = try diff(track, track + "\n      rating: double")
        let c = try only(d, .attributeAdded)
        #expect(c.verdict.condition == .noRows(entity: "Track"))
        #expect(d.isInferable)
    }

    @Test func removingAttributeIsInferable() throws {
        let d = try diff(track, "entities:\n  Track:\n    attributes:\n      title: string?")
        let c = try only(d, .attributeRemoved)
        #expect(c.property == "plays" && c.isInferable)
    }

    @Test func renameThroughIdentifierKeepsValues() throws {
        let new = "entities:\n  Track:\n    attributes:\n      name: {type: string, optional: true, renamedFrom: title}\n      plays: int32 = 0"
        let d = try diff(track, new)
        let c = try only(d, .attributeRenamed)
        #expect(c.oldName == "title" && c.property == "name" && c.isInferable)
        #expect(d.warnings.isEmpty)
        #expect(!d.changes.contains { $0.kind == .attributeRemoved || $0.kind == .attributeAdded })
    }

    @Test func renameChainMatchesAcrossSkippedVersions() throws {
        let v1 = "entities:\n  Car:\n    attributes:\n      color: string?"
        let v2 = "entities:\n  Automobile:\n    renamedFrom: Car\n    attributes:\n      paintColor: {type: string, optional: true, renamedFrom: color}"
        let v3 = "entities:\n  Automobile:\n    renamedFrom: Car\n    attributes:\n      finish: {type: string, optional: true, renamedFrom: color}"
        for (old, new) in [(v1, v2), (v2, v3), (v1, v3)] {
            let d = try diff(old, new)
            #expect(d.isInferable)
            #expect(!d.changes.contains { $0.kind == .attributeRemoved || $0.kind == .entityRemoved })
        }
        let skip = try diff(v1, v3)
        #expect(try only(skip, .entityRenamed).oldName == "Car")
        #expect(try only(skip, .attributeRenamed).oldName == "color")
        // V2 → V3: same entity name, the attribute renamed again through the shared identifier.
        #expect(try only(try diff(v2, v3), .attributeRenamed).oldName == "paintColor")
    }

    /// Renamed twice (Key → Where → From, From renamed from Where) while a new entity takes the first
    /// name: Core Data's rule (the identifier names a source) wins over an identifier kept from before.
    @Test func aNewEntityReusingAnOldNameDoesNotTakeTheRenamedOnesRows() throws {
        let v2 = "entities:\n  Where:\n    renamedFrom: Key\n    attributes:\n      x: string?"
        let v3 = "entities:\n  From:\n    renamedFrom: Where\n    attributes:\n      x: string?\n  Key:\n    attributes:\n      y: string?"
        let d = try diff(v2, v3)
        #expect(d.destination(ofEntity: "Where") == "From")
        #expect(try only(d, .entityRenamed).oldName == "Where")
        #expect(d.changes.contains { $0.kind == .entityAdded && $0.entity == "Key" })
    }

    @Test func numericAndBooleanConversionsAreInferable() throws {
        for (from, to) in [("int16", "int64"), ("int64", "double"), ("double", "int32"), ("bool", "int16"), ("float", "decimal"), ("int32", "bool")] {
            let d = try diff("entities:\n  E:\n    attributes:\n      v: \(from)?", "entities:\n  E:\n    attributes:\n      v: \(to)?")
            #expect(try only(d, .attributeTypeChanged).isInferable, "\(from) → \(to)")
        }
    }

    @Test func otherTypeChangesAreNotInferable() throws {
        for (from, to) in [("string", "int64"), ("int32", "string"), ("date", "double"), ("binary", "string"), ("uuid", "string")] {
            let d = try diff("entities:\n  E:\n    attributes:\n      v: \(from)?", "entities:\n  E:\n    attributes:\n      v: \(to)?")
            let c = try only(d, .attributeTypeChanged)
            #expect(!c.isInferable, "\(from) → \(to)")
            #expect(c.verdict.reason.contains("cannot convert"))
            #expect(!d.isInferable)
        }
    }

    @Test func binaryTransformableNeedsUserInfoKeyAndNoExternalStorage() throws {
        let old = "entities:\n  E:\n    attributes:\n      v: binary?"
        #expect(!(try diff(old, "entities:\n  E:\n    attributes:\n      v: transformable?").isInferable))
        let allowed = "entities:\n  E:\n    attributes:\n      v: {type: transformable, optional: true, userInfo: {NSMigrationAllowTypeTransformation: 'YES'}}"
        #expect(try diff(old, allowed).isInferable)
        let external = "entities:\n  E:\n    attributes:\n      v: {type: binary, optional: true, externalStorage: true}"
        #expect(!(try diff(external, allowed).changes.first { $0.kind == .attributeTypeChanged }!.isInferable))
    }

    @Test func optionalToRequiredWithDefaultIsInferable() throws {
        let d = try diff(track, "entities:\n  Track:\n    attributes:\n      title: string = Untitled\n      plays: int32 = 0")
        let c = try only(d, .attributeOptionalityChanged)
        #expect(c.isInferable && c.verdict.condition == nil)
        #expect(c.verdict.reason.contains("NULLs are replaced by the default"))
    }

    @Test func optionalToRequiredWithoutDefaultFailsIfNullsExist() throws {
        let d = try diff(track, "entities:\n  Track:\n    attributes:\n      title: string\n      plays: int32 = 0")
        let c = try only(d, .attributeOptionalityChanged)
        #expect(c.verdict.condition == .noNulls(entity: "Track", property: "title"))
        #expect(d.isInferable)
    }

    @Test func requiredToOptionalIsInferable() throws {
        let d = try diff("entities:\n  E:\n    attributes:\n      v: string", "entities:\n  E:\n    attributes:\n      v: string?")
        #expect(try only(d, .attributeOptionalityChanged).verdict.condition == nil)
    }

    @Test func externalStorageOnIsInferableOffIsNot() throws {
        let plain = "entities:\n  E:\n    attributes:\n      v: binary?"
        let external = "entities:\n  E:\n    attributes:\n      v: {type: binary, optional: true, externalStorage: true}"
        #expect(try only(try diff(plain, external), .attributeExternalStorageChanged).isInferable)
        let off = try only(try diff(external, plain), .attributeExternalStorageChanged)
        #expect(!off.isInferable)
        #expect(off.verdict.reason.contains("external"))
    }

    let people = """
        entities:
          Person:
            relationships:
              pets: Pet[] inverse owner
          Pet:
            relationships:
              owner: Person? inverse pets
        """

    @Test func toManyToToOneIsNotInferable() throws {
        let new = """
            entities:
              Person:
                relationships:
                  pets: Pet? inverse owner
              Pet:
                relationships:
                  owner: Person? inverse pets
            """
        let c = try only(try diff(people, new), .relationshipCardinalityChanged)
        #expect(!c.isInferable && c.entity == "Person" && c.property == "pets")
        // And the reverse direction is fine.
        #expect(try only(try diff(new, people), .relationshipCardinalityChanged).isInferable)
    }

    @Test func orderingChangesAreInferable() throws {
        let ordered = people.replacingOccurrences(of: "Pet[] inverse owner", with: "Pet[] ordered inverse owner")
        #expect(try only(try diff(people, ordered), .relationshipOrderingChanged).isInferable)
        #expect(try only(try diff(ordered, people), .relationshipOrderingChanged).isInferable)
    }

    @Test func addingAndRemovingRelationshipsAndEntities() throws {
        let new = people + "\n  Toy:\n    attributes:\n      name: string?"
        let d = try diff(people, new)
        #expect(try only(d, .entityAdded).entity == "Toy")
        let back = try diff(new, people)
        #expect(try only(back, .entityRemoved).entity == "Toy")
        #expect(back.isInferable)
    }

    @Test func entityRenameThroughIdentifier() throws {
        let d = try diff(
            "entities:\n  StudentEntity:\n    attributes:\n      name: string?",
            "entities:\n  Student:\n    renamedFrom: StudentEntity\n    attributes:\n      name: string?")
        let c = try only(d, .entityRenamed)
        #expect(c.oldName == "StudentEntity" && c.entity == "Student")
        #expect(d.changes.count == 1)
    }

    @Test func mergingHierarchiesIsNotInferable() throws {
        let old = "entities:\n  A:\n    attributes:\n      x: string?\n  B:\n    attributes:\n      y: string?"
        let new = "entities:\n  A:\n    attributes:\n      x: string?\n  B:\n    parent: A\n    attributes:\n      y: string?"
        let d = try diff(old, new)
        let c = try only(d, .hierarchyMerged)
        #expect(!c.isInferable && c.entity == "A")
        #expect(!d.isInferable)
    }

    @Test func newParentAndMovingOutOfHierarchyAreInferable() throws {
        let flat = "entities:\n  Car:\n    attributes:\n      wheels: int16?"
        let withParent = "entities:\n  Vehicle:\n    abstract: true\n  Car:\n    parent: Vehicle\n    attributes:\n      wheels: int16?"
        let up = try diff(flat, withParent)
        #expect(up.isInferable)
        #expect(try only(up, .entityParentChanged).after == "Vehicle")
        let down = try diff(withParent, flat)
        #expect(down.isInferable)
        #expect(try only(down, .entityParentChanged).after == "(none)")
    }

    @Test func movingPropertyUpTheHierarchyIsInferable() throws {
        let old = "entities:\n  P: {}\n  C:\n    parent: P\n    attributes:\n      x: string?"
        let new = "entities:\n  P:\n    attributes:\n      x: string?\n  C:\n    parent: P"
        let d = try diff(old, new)
        let moved = try only(d, .propertyMoved)
        #expect(moved.before == "C" && moved.after == "P" && moved.isInferable)
        #expect(d.isInferable)
    }

    @Test func hashModifierOnlyChangeIsReportedAndInferable() throws {
        let d = try diff(track, track.replacingOccurrences(of: "plays: int32 = 0", with: "plays: {type: int32, default: 0, hashModifier: v2}"))
        #expect(try only(d, .propertyHashModifierChanged).isInferable)
    }

    @Test func conflictingRenamingIdentifiersAreNotInferable() throws {
        let new = "entities:\n  Track:\n    attributes:\n      a: {type: string, optional: true, renamedFrom: title}\n      b: {type: string, optional: true, renamedFrom: title}\n      plays: int32 = 0"
        let d = try diff(track, new)
        #expect(try only(d, .renamingConflict).isInferable == false)
    }

    @Test func attributeBecomingRelationshipIsRemovePlusAdd() throws {
        let old = "entities:\n  Track:\n    attributes:\n      artist: string?\n  Artist: {}"
        let new = "entities:\n  Track:\n    relationships:\n      artist: Artist?\n  Artist: {}"
        let c = try only(try diff(old, new), .propertyKindChanged)
        #expect(c.before == "attribute" && c.after == "relationship")
    }

    @Test func probableRenameWarning() throws {
        let d = try diff(
            "entities:\n  Track:\n    attributes:\n      artistName: string?",
            "entities:\n  Track:\n    attributes:\n      performer: string?")
        #expect(d.warnings.count == 1)
        #expect(d.warnings[0].kind == .probableRename)
        #expect(d.warnings[0].dropped == Warning.DroppedData(entity: "Track", property: "artistName"))
        // Different types: no warning.
        let other = try diff(
            "entities:\n  Track:\n    attributes:\n      artistName: string?",
            "entities:\n  Track:\n    attributes:\n      plays: int64?")
        #expect(other.warnings.isEmpty)
    }

    @Test func destinationChangeToUnrelatedEntityDropsLinks() throws {
        let old = "entities:\n  A:\n    relationships:\n      r: B?\n  B: {}\n  C: {}"
        let new = "entities:\n  A:\n    relationships:\n      r: C?\n  B: {}\n  C: {}"
        let c = try only(try diff(old, new), .relationshipDestinationChanged)
        #expect(c.verdict.reason.contains("dropped"))
        // Renaming the destination entity is not a destination change.
        let renamed = "entities:\n  A:\n    relationships:\n      r: D?\n  D:\n    renamedFrom: B\n  C: {}"
        #expect(!(try diff(old, renamed)).changes.contains { $0.kind == .relationshipDestinationChanged })
    }

    @Test func newUniquenessConstraintIsConditional() throws {
        let d = try diff(track, track.replacingOccurrences(of: "  Track:\n", with: "  Track:\n    unique: [title]\n"))
        #expect(try only(d, .uniquenessChanged).verdict.condition == .unique(entity: "Track", properties: ["title"]))
    }
}
