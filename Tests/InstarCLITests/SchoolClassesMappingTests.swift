import Foundation
import GRDB
import Testing
import InstarTestSupport

/// `Plans/school-classes`, run as its README says, in the instar and the Core Data layouts: a store at
/// Classes 1 filled by `instar store seed`, migrated to Classes 2, its rows read, then the mapping step
/// Classes 2 → Classes 3 (`v2-to-v3.mapping.yaml`) checked in the dry run and run. Every student must
/// keep its class's name in `clazzName`, computed here from the Classes 2 rows.
@Suite struct SchoolClassesMappingTests {
    static let folder = packageRoot.appendingPathComponent("Plans/school-classes")

    /// Table and column names of each layout.
    struct Names {
        var student, clazz, pk, name, birthday, link, clazzName: String
        static let instar = Names(
            student: "Student", clazz: "Clazz", pk: "_pk", name: "name", birthday: "birthday", link: "clazz",
            clazzName: "clazzName")
        static let coredata = Names(
            student: "ZSTUDENT", clazz: "ZCLAZZ", pk: "Z_PK", name: "ZNAME", birthday: "ZBIRTHDAY", link: "ZCLAZZ",
            clazzName: "ZCLAZZNAME")
    }

    @Test(arguments: ["instar", "coredata"])
    func everyStudentKeepsItsClassName(layout: String) throws {
        let n = layout == "coredata" ? Names.coredata : Names.instar
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The plan as shipped (layout: instar), or the same plan for a Core Data store.
        var plan = Self.folder.appendingPathComponent("plan.yaml").path
        if layout != "instar" {
            let text = try String(contentsOfFile: plan, encoding: .utf8)
                .replacingOccurrences(of: "layout: instar", with: "layout: \(layout)")
                .replacingOccurrences(of: "  - models/", with: "  - \(Self.folder.path)/models/")
                .replacingOccurrences(of: "  - v2-to-v3", with: "  - \(Self.folder.path)/v2-to-v3")
            plan = directory.appendingPathComponent("plan.yaml").path
            try text.write(toFile: plan, atomically: true, encoding: .utf8)
        }
        let store = directory.appendingPathComponent("classes.sqlite").path
        let v1 = Self.folder.appendingPathComponent("models/v1.yaml").path

        try require(["store", "create", v1, "--store", store, "--layout", layout])
        try require(["store", "seed", store, "--rows", "120", "--rows-for", "Clazz=6", "--model", v1])
        try require(["lint", plan])
        let full = try require(["plan", plan, "--store", store, "--format", "json"]).json
        #expect(steps(full) == ["Classes 1 → Classes 2 lightweight", "Classes 2 → Classes 3 mapping"])
        try require(["migrate", plan, "--store", store, "--to", "Classes 2", "--progress", "none"])

        // Expected values, from the Classes 2 rows.
        let classes = try rows(store, #"SELECT "\#(n.pk)" AS pk, "\#(n.name)" AS name FROM "\#(n.clazz)""#)
        let className = Dictionary(uniqueKeysWithValues: classes.map { ($0["pk"]!, $0["name"]!) })
        let students = try rows(
            store,
            #"SELECT "\#(n.pk)" AS pk, "\#(n.name)" AS name, "\#(n.birthday)" AS birthday, "\#(n.link)" AS clazz FROM "\#(n.student)" ORDER BY 1"#)
        #expect(classes.count == 6 && students.count == 120)
        #expect(students.contains { $0["clazz"]!.isNull } && students.contains { !$0["clazz"]!.isNull })
        let expected = students.map { s -> [String: DatabaseValue] in
            ["pk": s["pk"]!, "name": s["name"]!, "birthday": s["birthday"]!,
             "clazzName": s["clazz"]!.isNull ? .null : className[s["clazz"]!]!]
        }

        // The dry run: the mapping step, its SQL, no hook.
        let dry = try require(["plan", plan, "--store", store, "--format", "json"]).json
        #expect(steps(dry) == ["Classes 2 → Classes 3 mapping"])
        let step = try #require((dry?["steps"] as? [[String: Any]])?.first)
        #expect((step["hooks"] as? [Any])?.isEmpty == true)
        #expect((step["sql"] as? [String])?.contains { $0.contains(#""src.clazz"."\#(n.name)""#) } == true)

        try require(["migrate", plan, "--store", store, "--progress", "none"])
        let migrated = try rows(
            store,
            #"SELECT "\#(n.pk)" AS pk, "\#(n.name)" AS name, "\#(n.birthday)" AS birthday, "\#(n.clazzName)" AS clazzName FROM "\#(n.student)" ORDER BY 1"#)
        #expect(migrated == expected)
        #expect(try rows(store, "SELECT name FROM sqlite_master WHERE name = '\(n.clazz)'").isEmpty)
        // The seed's edge strings (empty, non-ASCII, quotes) arrive byte for byte.
        let names = Set(migrated.compactMap { String.fromDatabaseValue($0["clazzName"]!) })
        #expect(names.contains("") && names.contains { $0.contains("Zoë") } && names.contains { $0.contains("O'Brien") })
        #expect(try rows(store, "PRAGMA integrity_check").map { $0["integrity_check"] } == ["ok".databaseValue])
    }

    @discardableResult
    func require(_ arguments: [String]) throws -> CLIResult {
        let result = try runInstar(arguments)
        try #require(result.status == 0, "instar \(arguments.joined(separator: " ")): \(result.stdout)\(result.stderr)")
        return result
    }

    func steps(_ report: [String: Any]?) -> [String] {
        (report?["steps"] as? [[String: Any]] ?? []).map {
            "\($0["from"] as? String ?? "?") → \($0["to"] as? String ?? "?") \($0["kind"] as? String ?? "?")"
        }
    }

    func rows(_ store: String, _ sql: String) throws -> [[String: DatabaseValue]] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: store, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: sql).map { row in
                Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, row[$0] as DatabaseValue) })
            }
        }
    }
}
