import Foundation
@_spi(Layouts) import InstarModel
import Testing

@testable import InstarModelIO
import InstarTestSupport

/// `.momd` folders built here: version order, the current version, and the check of every version's
/// hashes against `VersionInfo.plist`.
@Suite struct CompiledModelBundleTests {
    /// A one-entity model archive; `optional` changes the entity's hash.
    static func archive(optional: Bool) throws -> Data {
        var m = ModelArchiveBuilder()
        m.entity("Note", properties: [m.attribute("text", type: 700, optional: optional)])
        return try m.data()
    }

    /// Writes `Notes.momd` with the given versions and a VersionInfo.plist recording `recorded`.
    static func momd(
        in folder: URL, versions: [String: Data], current: String, recorded: [String: Data]? = nil
    ) throws -> URL {
        let momd = folder.appendingPathComponent("Notes.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        var hashes: [String: Any] = [:]
        var checksums: [String: Any] = [:]
        for (name, data) in versions {
            try data.write(to: momd.appendingPathComponent(name + ".mom"))
            let model = try CompiledModelReader.parse(data: data, name: name, file: name)
            hashes[name] = model.versionHashes.entityHashes
            checksums[name] = model.versionHashes.versionChecksum
        }
        for (name, data) in recorded ?? [:] {
            hashes[name] = try CompiledModelReader.parse(data: data, name: name, file: name).versionHashes.entityHashes
        }
        let info: [String: Any] = [
            "NSManagedObjectModel_CurrentVersionName": current, "NSManagedObjectModel_VersionHashes": hashes,
            "NSManagedObjectModel_VersionChecksums": checksums,
        ]
        try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0)
            .write(to: momd.appendingPathComponent("VersionInfo.plist"))
        return momd
    }

    @Test func versionsInNaturalOrderWithTheRecordedCurrentOne() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (a, b) = (try Self.archive(optional: true), try Self.archive(optional: false))
        let momd = try Self.momd(in: folder, versions: ["Notes": a, "Notes 10": b, "Notes 2": b], current: "Notes 2")
        let bundle = try ModelBundle.read(momd: momd)
        #expect(bundle.name == "Notes")
        #expect(bundle.versions.map(\.name) == ["Notes", "Notes 2", "Notes 10"])
        #expect(bundle.currentVersion?.name == "Notes 2")
        #expect(try ModelLoader.load(momd.path).name == "Notes 2")
        #expect(try ModelLoader.load(momd.path + "#Notes 10").name == "Notes 10")
        #expect(try ModelBundle.read(xcdatamodeld: momd).versions.count == 3, "the planner's entry point reads it too")
    }

    @Test func aVersionWhoseHashesDisagreeWithXcodesIsRefused() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let momd = try Self.momd(
            in: folder, versions: ["Notes": try Self.archive(optional: true)], current: "Notes",
            recorded: ["Notes": try Self.archive(optional: false)])
        let error = #expect(throws: ModelError.self) { try ModelBundle.read(momd: momd) }
        let problem = error?.problems.first
        #expect(problem?.entity == "Note")
        #expect(problem?.message.contains("VersionInfo.plist records") == true, "\(String(describing: problem))")
    }

    @Test func listedVersionsMustBePresent() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let momd = try Self.momd(
            in: folder, versions: ["Notes 2": try Self.archive(optional: true)], current: "Notes 3",
            recorded: ["Notes": try Self.archive(optional: true)])
        try Data().write(to: momd.appendingPathComponent("Notes.omo"))
        do {
            _ = try ModelBundle.read(momd: momd)
            Issue.record("expected problems")
        } catch {
            let messages = error.problems.map(\.message)
            #expect(messages.contains("VersionInfo.plist lists version 'Notes' but 'Notes.mom' is missing"))
            #expect(error.problems.first?.hint?.contains("optimized 'Notes.omo'") == true)
            #expect(messages.contains("the current version 'Notes 3' is not in the folder"))
        }
    }

    @Test func aFolderWithoutVersionsIsUnreadable() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let momd = folder.appendingPathComponent("Empty.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        #expect(throws: ModelError.self) { try ModelBundle.read(momd: momd) }
        #expect(throws: ModelError.self) { try ModelBundle.read(momd: folder.appendingPathComponent("None.momd")) }
    }
}
