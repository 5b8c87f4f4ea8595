import Foundation
import GRDB
import Testing
import InstarTestSupport
import InstarAdoption
@testable import InstarCLI  // AdoptionSummary, how the CLI prints the importer's notes

/// The example scenarios under `Plans/`, run end to end as their READMEs tell users to: create a store
/// at the oldest version with `instar store create`, fill it with `instar store seed` (or the scenario's
/// `sample-data.py` where its hooks need particular values), lint
/// the plan, check the dry run's chain (`instar plan --format json`), migrate, and then check every
/// value in the migrated store against what the old store held.
///
/// Expected values are computed here, in Swift, from a snapshot of the old store taken before the
/// migration, independently of the hooks' SQL; a few edge cases of the sample data are checked by name
/// on top.
@Suite struct PlanScenarioTests {
    @Test func garageSkipsStraightToVersion3() throws {
        let s = try Scenario("garage", rows: 120, seedArguments: ["--rows-for", "Owner=12"])
        let owners = try s.rows(#"SELECT "_pk", "name", "phone" FROM "Owner" ORDER BY "_pk""#)
        let cars = try s.rows(#"SELECT "_pk", "plate", "color", "year", "owner" FROM "Car" ORDER BY "_pk""#)
        #expect(owners.count == 12 && cars.count == 120)

        try s.lint()
        let report = try s.plan(expectingChain: [("Garage 1", "Garage 3", "lightweight")])
        let step = try #require((report["steps"] as? [[String: Any]])?.first)
        #expect((step["hooks"] as? [Any])?.isEmpty == true)
        #expect((step["tablesRebuilt"] as? [String]) == [])
        let changes = (step["changes"] as? [[String: Any]]) ?? []
        #expect(changes.contains { $0["kind"] as? String == "entityRenamed" && $0["entity"] as? String == "Automobile" })
        #expect(changes.contains { $0["kind"] as? String == "attributeRenamed" && $0["property"] as? String == "finish" })
        #expect((step["sql"] as? [String])?.contains { $0.contains(#"RENAME COLUMN "color" TO "finish""#) } == true)
        try s.migrate(to: "Garage 3")

        #expect(try s.tables() == ["Owner", "Automobile"])
        #expect(try s.columns("Automobile") == ["_pk", "plate", "finish", "year", "mileage", "owner"])
        #expect(try s.rows(#"SELECT "_pk", "name", "phone" FROM "Owner" ORDER BY "_pk""#) == owners)
        let automobiles = try s.rows(#"SELECT "_pk", "plate", "finish", "year", "mileage", "owner" FROM "Automobile" ORDER BY "_pk""#)
        let expected = cars.map { car -> [String: DatabaseValue] in
            ["_pk": car["_pk"]!, "plate": car["plate"]!, "finish": car["color"]!, "year": car["year"]!,
             "mileage": 0.databaseValue, "owner": car["owner"]!]
        }
        #expect(automobiles == expected)
        // The seed's edge values, carried through the renames: the first cars hold them.
        let first = Array(automobiles.prefix(7))
        #expect(texts(first[0], "plate") == [""])
        #expect(first.contains { String.fromDatabaseValue($0["plate"]!)?.contains("Zoë Ångström") == true })
        #expect(first.contains { String.fromDatabaseValue($0["finish"]!)?.contains(#"O'Brien said "hi""#) == true })
        #expect(first.compactMap { Int64.fromDatabaseValue($0["year"]!) }.contains(Int64(Int16.min)))
        #expect(automobiles.contains { $0["owner"]!.isNull } && automobiles.contains { $0["finish"]!.isNull })
        try s.expectVersion("Garage 3")
    }

    @Test func musicArtistsFromJSON() throws {
        let s = try Scenario("music", rows: 300)
        let tracks = try s.rows(#"SELECT "_pk", "title", "duration", "json", "artistName" FROM "Track" ORDER BY "_pk""#)
        #expect(tracks.count == 300)

        try s.lint()
        let report = try s.plan(expectingChain: [("Music 1", "Music 2", "custom"), ("Music 2", "Music 3", "lightweight")])
        #expect(hooks(report, step: 0) == ["fillArtists after sql"])
        // No alternative may skip the pinned Music 2 (it would bypass the hook).
        #expect(alternatives(report).allSatisfy { $0.contains("Music 2") })
        try s.migrate(to: "Music 3")

        // Expected: for each track, the trimmed non-empty names of the JSON array's objects; when there
        // is none, the trimmed artistName.
        var links = Set<Link>()
        var order: [String] = []
        for track in tracks {
            let pk = try #require(Int64.fromDatabaseValue(track["_pk"]!))
            var names: [String] = []
            if let json = String.fromDatabaseValue(track["json"]!),
                let array = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed]) as? [Any]
            {
                for element in array {
                    if let object = element as? [String: Any], let name = object["name"] as? String {
                        names.append(name.sqliteTrimmed)
                    }
                }
                names.removeAll { $0.isEmpty }
            }
            if names.isEmpty, let name = String.fromDatabaseValue(track["artistName"]!)?.sqliteTrimmed, !name.isEmpty {
                names = [name]
            }
            for name in names {
                links.insert(Link(pk, name))
                if !order.contains(name) { order.append(name) }
            }
        }

        #expect(try s.tables() == ["Track", "Artist", "Artist_tracks"])
        #expect(try s.columns("Track") == ["_pk", "title", "duration"])
        #expect(try s.columns("Artist_tracks") == ["artists", "tracks"])
        #expect(
            try s.rows(#"SELECT "_pk", "title", "duration" FROM "Track" ORDER BY "_pk""#)
                == tracks.map { ["_pk": $0["_pk"]!, "title": $0["title"]!, "duration": $0["duration"]!] })
        // One artist per name, numbered in order of first appearance.
        let artists = try s.rows(#"SELECT "name" FROM "Artist" ORDER BY "_pk""#).map { String.fromDatabaseValue($0["name"]!) }
        #expect(artists == order)
        let stored = try s.rows(
            #"SELECT j."tracks" AS "track", a."name" FROM "Artist_tracks" AS j JOIN "Artist" AS a ON a."_pk" = j."artists""#)
        #expect(stored.count == links.count)
        #expect(Set(stored.map { Link(Int64.fromDatabaseValue($0["track"]!)!, String.fromDatabaseValue($0["name"]!)!) }) == links)

        // Fixed edge cases of sample-data.py.
        var byTrack: [Int64: [String]] = [:]
        for row in try s.rows(
            #"SELECT j."tracks" AS "track", a."name" FROM "Artist_tracks" AS j JOIN "Artist" AS a ON a."_pk" = j."artists" ORDER BY a."_pk""#)
        {
            byTrack[Int64.fromDatabaseValue(row["track"]!)!, default: []].append(String.fromDatabaseValue(row["name"]!)!)
        }
        let byTitle = try s.rows(#"SELECT "_pk", "title" FROM "Track" WHERE "_pk" <= 18 ORDER BY "_pk""#).map {
            [String.fromDatabaseValue($0["title"]!)!, byTrack[Int64.fromDatabaseValue($0["_pk"]!)!]?.joined(separator: " | ") ?? "—"]
        }
        #expect(byTitle == [
            ["Hello", "Adele"], ["Chandelier Duet", "Adele | Sia"], ["Joga", "Björk"], ["Jóga (live)", "Björk"],
            ["Titanium Remix", "Sia"], ["Someone Like You", "Adele"], ["Merry Christmas Mr. Lawrence", "坂本龍一"],
            ["Sweet Child O' Mine", "Guns N' Roses"], ["White & Nerdy", "\"Weird Al\" Yankovic"],
            ["Feeling Good", "Nina Simone"], ["Malamente", "Rosalía"], ["Broken Import", "Daft Punk"],
            ["Nameless", "Ólafur Arnalds"], ["Partly Named", "Sigur Rós"], ["Object Not Array", "—"],
            ["Unknown Artist", "—"], ["Empty Everything", "—"], ["Hello", "Mötley Crüe | BTS (방탄소년단) | Beyoncé"],
        ])
        #expect(try s.rows(#"SELECT 1 FROM "Artist" WHERE "name" IN ('Someone Else', 'Bjork', ' Adele ', 'Sia ')"#).isEmpty)
        try s.expectVersion("Music 3")
    }

    @Test func schoolRenamesAndClazzName() throws {
        let s = try Scenario(
            "school", rows: 150, seedArguments: ["--rows-for", "ClassEntity=6", "--rows-for", "CourseEntity=5"])
        let classes = try s.rows(#"SELECT "_pk", "name", "room" FROM "ClassEntity" ORDER BY "_pk""#)
        let courses = try s.rows(#"SELECT "_pk", "title", "credits" FROM "CourseEntity" ORDER BY "_pk""#)
        let students = try s.rows(#"SELECT "_pk", "name", "birthday", "clazz" FROM "StudentEntity" ORDER BY "_pk""#)
        let enrolments = Set(try s.rows(#"SELECT "courses", "students" FROM "CourseEntity_students""#))
        #expect(classes.count == 6 && courses.count == 5 && students.count == 150 && !enrolments.isEmpty)

        try s.lint()
        let report = try s.plan(expectingChain: [
            ("School 1", "School 2", "lightweight"), ("School 2", "School 3", "custom"),
            ("School 3", "School 4", "lightweight"),
        ])
        #expect(hooks(report, step: 1) == ["fillClazzName after sql"])
        let first = changes(report, step: 0)
        #expect(first.contains("entityRenamed Student") && first.contains("entityRenamed Clazz") && first.contains("entityRenamed Course"))
        #expect(first.contains("attributeAdded Student.sex"))
        #expect(changes(report, step: 2).contains("entityRemoved Clazz"))
        #expect(alternatives(report).allSatisfy { $0.contains("School 3") })
        try s.migrate(to: "School 4")

        #expect(try s.tables() == ["Student", "Course", "Course_students"])
        #expect(try s.columns("Student") == ["_pk", "name", "birthday", "sex", "clazzName"])
        let className = Dictionary(uniqueKeysWithValues: classes.map { ($0["_pk"]!, $0["name"]!) })
        let expected = students.map { student -> [String: DatabaseValue] in
            ["_pk": student["_pk"]!, "name": student["name"]!, "birthday": student["birthday"]!, "sex": 1.databaseValue,
             "clazzName": student["clazz"]!.isNull ? .null : className[student["clazz"]!]!]
        }
        #expect(try s.rows(#"SELECT "_pk", "name", "birthday", "sex", "clazzName" FROM "Student" ORDER BY "_pk""#) == expected)
        #expect(try s.rows(#"SELECT "_pk", "title", "credits" FROM "Course" ORDER BY "_pk""#) == courses)
        #expect(Set(try s.rows(#"SELECT "courses", "students" FROM "Course_students""#)) == enrolments)
        // The six class names are the seed's edge strings: the hook copies each byte for byte.
        let names = Set(classes.compactMap { String.fromDatabaseValue($0["name"]!) })
        #expect(names.contains("") && names.contains { $0.contains("Zoë") } && names.contains { $0.contains("O'Brien") })
        let copied = Set(try s.rows(#"SELECT DISTINCT "clazzName" FROM "Student" WHERE "clazzName" IS NOT NULL"#)
            .compactMap { String.fromDatabaseValue($0["clazzName"]!) })
        #expect(copied.isSubset(of: names) && copied.count > 1)
        #expect(students.contains { $0["clazz"]!.isNull })
        try s.expectVersion("School 4")
    }

    @Test func shopMarksBrands() throws {
        let s = try Scenario("shop", rows: 150)
        let categories = try s.rows(#"SELECT "_pk", "name", "sortOrder" FROM "Category" ORDER BY "_pk""#)
        let products = try s.rows(#"SELECT "_pk", "name", "price", "category" FROM "Product" ORDER BY "_pk""#)
        #expect(categories.count == 13 && products.count == 150)

        try s.lint()
        let report = try s.plan(expectingChain: [("Shop 1", "Shop 2", "custom")])
        #expect(hooks(report, step: 0) == ["markBrands after sql"])
        #expect(changes(report, step: 0) == ["attributeAdded Category.brand"])
        try s.migrate(to: "Shop 2")

        #expect(try s.columns("Category") == ["_pk", "name", "sortOrder", "brand"])
        let brands: Set<String> = ["Nike", "Adidas", "UA"]
        let expected = categories.map { c -> [String: DatabaseValue] in
            var row = c
            row["brand"] = (String.fromDatabaseValue(c["name"]!).map(brands.contains) == true ? 1 : 0).databaseValue
            return row
        }
        #expect(try s.rows(#"SELECT "_pk", "name", "sortOrder", "brand" FROM "Category" ORDER BY "_pk""#) == expected)
        #expect(try s.rows(#"SELECT "_pk", "name", "price", "category" FROM "Product" ORDER BY "_pk""#) == products)
        let marked = try s.rows(#"SELECT "name" FROM "Category" WHERE "brand" = 1 ORDER BY "_pk""#).map { $0["name"]! }
        #expect(marked == ["Nike", "Adidas", "UA", "Nike"].map(\.databaseValue))
        try s.expectVersion("Shop 2")
    }

    @Test func flightLogNormalisedAndDataInlined() throws {
        // More rows than the inlining hook's batch size (500), so it runs in several batches.
        let s = try Scenario("flight-log", rows: 1234)
        let entries = try s.rows(
            #"SELECT "_pk", "date", "aircraftRegistration", "pilotName", "departureAirport", "arrivalAirport", "minutes", "remarks", "flightData" FROM "LogEntry" ORDER BY "_pk""#
        )
        #expect(entries.count == 1234)

        try s.lint()
        let report = try s.plan(expectingChain: [
            ("Flight Log 1", "Flight Log 2", "custom"), ("Flight Log 2", "Flight Log 3", "lightweight"),
        ])
        #expect(hooks(report, step: 0) == ["normalise after sql", "inlineFlightData after batchedSQL"])
        #expect(changes(report, step: 1).contains("attributeRenamed LogEntry.flightData"))
        #expect(changes(report, step: 1).contains("attributeRemoved LogEntry.flightData"))
        #expect(alternatives(report).allSatisfy { $0.contains("Flight Log 2") })
        try s.migrate(to: "Flight Log 3")

        #expect(try s.tables() == ["LogEntry", "Aircraft", "Airport", "Pilot"])
        #expect(
            try s.columns("LogEntry")
                == ["_pk", "date", "minutes", "remarks", "flightData", "aircraft", "pilot", "departure", "arrival"])
        // Expected: registrations and airport codes trimmed and upper-cased, pilot names trimmed; empty
        // means none; each entity numbered in order of first appearance.
        func normalised(_ value: DatabaseValue, upper: Bool) -> String? {
            guard let text = String.fromDatabaseValue(value)?.sqliteTrimmed, !text.isEmpty else { return nil }
            return upper ? text.asciiUppercased : text
        }
        var aircraft: [String] = [], pilots: [String] = [], airports: [String] = []
        func note(_ value: String?, in list: inout [String]) {
            if let value, !list.contains(value) { list.append(value) }
        }
        for e in entries {
            note(normalised(e["aircraftRegistration"]!, upper: true), in: &aircraft)
            note(normalised(e["pilotName"]!, upper: false), in: &pilots)
            note(normalised(e["departureAirport"]!, upper: true), in: &airports)
            note(normalised(e["arrivalAirport"]!, upper: true), in: &airports)
        }
        #expect(try s.rows(#"SELECT "registration" FROM "Aircraft" ORDER BY "_pk""#).map { $0["registration"]! } == aircraft.map(\.databaseValue))
        #expect(try s.rows(#"SELECT "name" FROM "Pilot" ORDER BY "_pk""#).map { $0["name"]! } == pilots.map(\.databaseValue))
        #expect(try s.rows(#"SELECT "code" FROM "Airport" ORDER BY "_pk""#).map { $0["code"]! } == airports.map(\.databaseValue))

        let migrated = try s.rows(
            #"""
            SELECT e."_pk", e."date", e."minutes", e."remarks", e."flightData", typeof(e."flightData") AS "dataType",
                   a."registration", p."name" AS "pilot", d."code" AS "departure", r."code" AS "arrival"
            FROM "LogEntry" AS e
            LEFT JOIN "Aircraft" AS a ON a."_pk" = e."aircraft" LEFT JOIN "Pilot" AS p ON p."_pk" = e."pilot"
            LEFT JOIN "Airport" AS d ON d."_pk" = e."departure" LEFT JOIN "Airport" AS r ON r."_pk" = e."arrival"
            ORDER BY e."_pk"
            """#)
        let expected = entries.map { e -> [String: DatabaseValue] in
            [
                "_pk": e["_pk"]!, "date": e["date"]!, "minutes": e["minutes"]!, "remarks": e["remarks"]!,
                "flightData": e["flightData"]!, "dataType": (e["flightData"]!.isNull ? "null" : "blob").databaseValue,
                "registration": normalised(e["aircraftRegistration"]!, upper: true).databaseValue,
                "pilot": normalised(e["pilotName"]!, upper: false).databaseValue,
                "departure": normalised(e["departureAirport"]!, upper: true).databaseValue,
                "arrival": normalised(e["arrivalAirport"]!, upper: true).databaseValue,
            ]
        }
        #expect(migrated.count == expected.count)
        for (row, want) in zip(migrated, expected) where row != want {
            Issue.record("LogEntry \(want["_pk"]!): \(row) ≠ expected \(want)")
        }
        // Fixed edge cases of sample-data.py.
        let fixed = try s.rows(
            #"SELECT "aircraft", "pilot", "departure", "arrival", length("flightData") AS "bytes", typeof("flightData") AS "type" FROM "LogEntry" WHERE "_pk" <= 9 ORDER BY "_pk""#
        ).map { r in ["aircraft", "pilot", "departure", "arrival", "bytes", "type"].map { r[$0]! } }
        try #require(fixed.count == 9)
        #expect(fixed[0][0] == fixed[1][0] && fixed[1][0] == fixed[2][0])  // D-EABC, "d-eabc ", " D-EABC"
        #expect(fixed[0][1] == fixed[1][1] && fixed[0][1] != fixed[4][1])  // "Amelia Earhart" = " Amelia Earhart" ≠ "amelia earhart"
        #expect(fixed[2][2] == fixed[2][3])  // a circuit: departure = arrival
        #expect(fixed[5][0...3].allSatisfy(\.isNull) && fixed[6][0...3].allSatisfy(\.isNull))  // NULLs, empty strings
        #expect(fixed[7][3].isNull && fixed[8][2].isNull)  // unknown arrival, unknown departure
        // Flight data: 0…255, zero bytes, an empty blob (not NULL), 5000 bytes, NULLs, one zero byte, text.
        #expect(fixed.map { "\(Int64.fromDatabaseValue($0[4]).map(String.init) ?? "-") \(String.fromDatabaseValue($0[5]) ?? "?")" } == [
            "256 blob", "3 blob", "0 blob", "5000 blob", "- null", "- null", "- null", "1 blob", "10 blob",
        ])
        try s.expectVersion("Flight Log 3")
    }
}

// MARK: - Support

/// One scenario's store in a temporary folder, created at the oldest version and filled as its README
/// says (``fillExampleStore(_:store:rows:seedArguments:)``).
private final class Scenario {
    let name: String
    let folder: URL
    let plan: String
    let directory: URL
    let store: String

    init(_ name: String, rows: Int, seedArguments: [String] = []) throws {
        self.name = name
        folder = packageRoot.appendingPathComponent("Plans/\(name)")
        plan = folder.appendingPathComponent("plan.yaml").path
        directory = try temporaryDirectory()
        store = directory.appendingPathComponent("\(name).sqlite").path
        let oldest = folder.appendingPathComponent("models/v1.yaml").path
        let created = try runInstar(["store", "create", oldest, "--store", store])
        try #require(created.status == 0, "instar store create: \(created.stderr)")
        let filled = try fillExampleStore(folder, store: store, rows: rows, seedArguments: seedArguments)
        try #require(filled.status == 0, "filling \(name): \(filled.stderr)")
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// `instar lint <plan>` must find no error, when the command exists.
    func lint() throws {
        guard lintAvailable else {
            FileHandle.standardError.write(Data("note: 'instar lint' is not available; \(name)'s plan was not linted\n".utf8))
            return
        }
        let lint = try runInstar(["lint", plan])
        #expect(lint.status == 0, "instar lint \(name): \(lint.stdout)\(lint.stderr)")
    }

    /// The dry run's JSON, after checking that it starts at the store's version and follows `chain`
    /// (from, to, kind of each step).
    @discardableResult
    func plan(expectingChain chain: [(String, String, String)]) throws -> [String: Any] {
        let result = try runInstar(["plan", plan, "--store", store, "--format", "json"])
        try #require(result.status == 0, "instar plan \(name): \(result.stderr)")
        let json = try #require(result.json)
        #expect(json["detectedVersion"] as? String == chain.first?.0)
        #expect(json["to"] as? String == chain.last?.1)
        let steps = (json["steps"] as? [[String: Any]] ?? []).map {
            "\($0["from"] as? String ?? "?") → \($0["to"] as? String ?? "?") \($0["kind"] as? String ?? "?")"
        }
        #expect(steps == chain.map { "\($0.0) → \($0.1) \($0.2)" })
        return json
    }

    func migrate(to target: String) throws {
        let result = try runInstar(["migrate", plan, "--store", store, "--progress", "json"])
        try #require(result.status == 0, "instar migrate \(name): \(result.stdout)\(result.stderr)")
        let events = result.progressEvents
        #expect(events.last?.isFinished == true && events.last { $0.stepTarget != nil }?.stepTarget == target, "migrated to \(target): \(result.stdout)")
    }

    /// The store is exactly at `version`: by its metadata and with no schema drift.
    func expectVersion(_ version: String) throws {
        let model = folder.appendingPathComponent("models/" + modelFile(version)).path
        let inspect = try runInstar(["inspect", "--store", store, "--model", model, "--format", "json"])
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        #expect(inspect.json?["version"] as? String == version)
        #expect((inspect.json?["drift"] as? [Any])?.isEmpty == true)
        #expect(try rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try rows("PRAGMA integrity_check").map { $0["integrity_check"] } == ["ok".databaseValue])
    }

    private func modelFile(_ version: String) -> String {
        "v" + (version.split(separator: " ").last.map(String.init) ?? "1") + ".yaml"
    }

    /// Every row of a query as column → value, opened read-only and closed again.
    func rows(_ sql: String) throws -> [[String: DatabaseValue]] {
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

    /// The store's tables, bookkeeping excluded.
    func tables() throws -> Set<String> {
        try rows(#"SELECT "name" FROM sqlite_master WHERE "type" = 'table' AND "name" NOT LIKE '\_instar\_%' ESCAPE '\' AND "name" NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY "rowid""#)
            .compactMap { String.fromDatabaseValue($0["name"]!) }.reduce(into: []) { $0.insert($1) }
    }

    /// A table's columns. A set: columns added in place come last, so the order depends on the path taken.
    func columns(_ table: String) throws -> Set<String> {
        Set(try rows("SELECT name FROM pragma_table_info('\(table)')").compactMap { String.fromDatabaseValue($0["name"]!) })
    }
}

/// Whether the `instar` binary has a `lint` command (it is being added concurrently).
private let lintAvailable: Bool = (try? runInstar(["lint", "--help"]).status) == 0

private struct Link: Hashable {
    var track: Int64
    var artist: String
    init(_ track: Int64, _ artist: String) {
        self.track = track
        self.artist = artist
    }
}

/// The named columns of a row as text (nil for NULL).
private func texts(_ row: [String: DatabaseValue], _ columns: String...) -> [String?] {
    columns.map { row[$0].flatMap(String.fromDatabaseValue) }
}

/// `"name phase kind"` of each hook of a step of a dry-run report.
private func hooks(_ report: [String: Any], step: Int) -> [String] {
    let steps = report["steps"] as? [[String: Any]] ?? []
    guard steps.indices.contains(step) else { return [] }
    return (steps[step]["hooks"] as? [[String: String]] ?? []).map { "\($0["name"] ?? "?") \($0["phase"] ?? "?") \($0["kind"] ?? "?")" }
}

/// `"kind Entity.property"` (or `"kind Entity"`) of each change of a step of a dry-run report.
private func changes(_ report: [String: Any], step: Int) -> [String] {
    let steps = report["steps"] as? [[String: Any]] ?? []
    guard steps.indices.contains(step) else { return [] }
    return (steps[step]["changes"] as? [[String: Any]] ?? []).map {
        "\($0["kind"] as? String ?? "?") \($0["entity"] as? String ?? "?")" + (($0["property"] as? String).map { ".\($0)" } ?? "")
    }
}

/// The version lists of the report's alternative chains.
private func alternatives(_ report: [String: Any]) -> [[String]] {
    (report["alternatives"] as? [[String: Any]] ?? []).map { $0["versions"] as? [String] ?? [] }
}

extension String {
    /// What SQLite's one-argument `trim()` does: remove spaces (U+0020 only) at both ends.
    fileprivate var sqliteTrimmed: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }

    /// What SQLite's `upper()` does without ICU: ASCII letters only.
    fileprivate var asciiUppercased: String {
        String(String.UnicodeScalarView(unicodeScalars.map { ("a"..."z").contains($0) ? Unicode.Scalar($0.value - 32)! : $0 }))
    }
}

extension PlanScenarioTests {
    /// Plans/adopt, as its README tells: a database made by hand (schema.sql, with data), imported
    /// (`instar model import` must write models/v1.yaml exactly as committed), recognised as Library 1,
    /// planned and migrated through the edited versions 2 and 3; every row keeps its values, the raw
    /// table and the view come through unchanged, and the store is exactly Library 3.
    @Test func adoptHandWrittenLibrary() throws {
        let folder = packageRoot.appendingPathComponent("Plans/adopt")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("library.sqlite").path
        let filled = try fillExampleStore(folder, store: store, rows: 300)
        try #require(filled.status == 0, "sample-data.py: \(filled.stderr)")
        func rows(_ sql: String) throws -> [[String: DatabaseValue]] {
            let queue = try DatabaseQueue(path: store)
            defer { try? queue.close() }
            return try queue.read { db in
                try Row.fetchAll(db, sql: sql).map { row in
                    Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, row[$0] as DatabaseValue) })
                }
            }
        }
        let imported = try runInstar(["model", "import", "--store", store, "--name", "Library 1"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let committed = try String(contentsOf: folder.appendingPathComponent("models/v1.yaml"), encoding: .utf8)
        #expect(imported.stdout == committed)
        // The importer's notes as facts; the CLI prints them as its summary (the words are also in the
        // committed model file's header, compared above).
        let notes = try SchemaImporter.importModel(path: store, name: "Library 1").notes
        let auditLog = try #require(notes.first { $0.name == "AuditLog" }, "\(notes)")
        #expect(auditLog.kind == "table" && auditLog.reasons == ["WITHOUT ROWID"] && auditLog.blocksMigrations, "\(auditLog)")
        let bookList = try #require(notes.first { $0.name == "BookList" }, "\(notes)")
        #expect(bookList.kind == "view" && bookList.effect != .notKept, "kept as raw SQL: \(bookList)")
        #expect(imported.stderr == AdoptionSummary(notes).lines.map { "instar: \($0)\n" }.joined(), "\(imported.stderr)")
        let v1 = folder.appendingPathComponent("models/v1.yaml").path
        let recognised = try runInstar(["inspect", "--store", store, "--model", v1, "--layout", "sql"])
        #expect(recognised.status == 0, "\(recognised.stdout)\(recognised.stderr)")

        let books = try rows(#"SELECT "BookId", "Title", "AuthorId", "Pages", "Isbn" FROM "Book" ORDER BY "BookId""#)
        let links = try rows(#"SELECT "ShelfId", "BookId" FROM "ShelfBook" ORDER BY 1, 2"#)
        let view = try rows(#"SELECT * FROM "BookList" ORDER BY "Title""#)
        let audit = try rows(#"SELECT * FROM "AuditLog""#)
        let plan = folder.appendingPathComponent("plan.yaml").path
        let dryRun = try runInstar(["plan", plan, "--store", store, "--format", "json"])
        try #require(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.json?["detectedVersion"] as? String == "Library 1")
        let steps = (dryRun.json?["steps"] as? [[String: Any]] ?? []).map { "\($0["from"] ?? "") → \($0["to"] ?? "")" }
        #expect(steps == ["Library 1 → Library 2", "Library 2 → Library 3"])
        let migrated = try runInstar(["migrate", plan, "--store", store])
        try #require(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")

        let v3 = folder.appendingPathComponent("models/v3.yaml").path
        let inspect = try runInstar(["inspect", "--store", store, "--model", v3, "--layout", "sql", "--format", "json"])
        #expect(inspect.status == 0, "\(inspect.stdout)\(inspect.stderr)")
        #expect(inspect.json?["version"] as? String == "Library 3")
        let after = try rows(#"SELECT "BookId", "Title", "AuthorId", "PageCount", "Isbn", "Subtitle", "PublisherId" FROM "Book" ORDER BY "BookId""#)
        #expect(after.map { [$0["BookId"]!, $0["Title"]!, $0["AuthorId"]!, $0["PageCount"]!, $0["Isbn"]!] }
            == books.map { [$0["BookId"]!, $0["Title"]!, $0["AuthorId"]!, $0["Pages"]!, $0["Isbn"]!] })
        #expect(after.allSatisfy { $0["Subtitle"] == .null && $0["PublisherId"] == .null })
        #expect(try rows(#"SELECT "ShelfId", "BookId" FROM "ShelfBook" ORDER BY 1, 2"#) == links)
        #expect(try rows(#"SELECT count(*) AS n FROM "Collection""#) == [["n": 4.databaseValue]])
        #expect(try rows(#"SELECT * FROM "BookList" ORDER BY "Title""#) == view)
        #expect(try rows(#"SELECT * FROM "AuditLog""#) == audit)
        #expect(try rows("PRAGMA foreign_key_check").isEmpty)
    }
}
