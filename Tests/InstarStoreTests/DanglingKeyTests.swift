import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport
import InstarStoreTestSupport

/// Core Data does not enforce references in SQLite: real stores hold to-one keys that point at rows
/// which do not exist (a real store had four `ZCONNECTION.ZTO` values without their `ZUSER` rows).
/// A migration must change only what its step changes, so these keys, and their entity columns, come
/// out of every kind of step bit for bit; only links to rows the step itself removed are cleared.
@Suite struct DanglingKeyTests {
    typealias Fixture = CoreDataLayoutTests.Fixture

    let v1YAML = """
        entities:
          Connection:
            attributes: {label: string?}
            relationships:
              to: User? inverse incoming
          User:
            attributes: {name: string?}
            relationships:
              incoming: Connection[] inverse to
          Bot:
            parent: User
            attributes: {model: string?}
          Obsolete:
            attributes: {note: string?}
        """

    /// Connection 1, Obsolete 2, User 3, Bot 4. Users 1 (user) and 2 (bot); connections 10–13 point at
    /// user 1, at bot 2, and at users 7 and 8, which never existed (their entity columns hold 3 and 4).
    func filled() throws -> Fixture {
        let f = try Fixture(try model(v1YAML, name: "V1"))
        try f.execute("INSERT INTO ZUSER (Z_PK, Z_ENT, Z_OPT, ZNAME, ZMODEL) VALUES (1, 3, 1, 'ann', NULL), (2, 4, 1, 'bot', 'x')")
        try f.execute(
            """
            INSERT INTO ZCONNECTION (Z_PK, Z_ENT, Z_OPT, ZLABEL, ZTO, Z3_TO) VALUES
            (10, 1, 1, 'a', 1, 3), (11, 1, 1, 'b', 2, 4), (12, 1, 1, 'c', 7, 3), (13, 1, 1, 'd', 8, 4)
            """)
        try f.execute("INSERT INTO ZOBSOLETE (Z_PK, Z_ENT, Z_OPT, ZNOTE) VALUES (1, 2, 1, 'n')")
        return f
    }

    func links(_ f: Fixture, entityColumn: String) throws -> [[DatabaseValue]] {
        try f.values("SELECT Z_PK, ZTO, \(entityColumn) FROM ZCONNECTION ORDER BY Z_PK")
    }

    @Test func removingAnUnrelatedEntityKeepsDanglingKeys() throws {
        let v1 = try model(v1YAML, name: "V1")
        let v2 = try model(v1YAML.replacingOccurrences(of: "\n  Obsolete:\n    attributes: {note: string?}", with: ""), name: "V2")
        let f = try filled()
        try f.store.migrate(from: v1, to: v2)
        // Connection 1, User 2, Bot 3: the entity columns are renumbered, the dangling keys stay.
        #expect(try links(f, entityColumn: "Z2_TO") == [
            [.int(10), .int(1), .int(2)], [.int(11), .int(2), .int(3)], [.int(12), .int(7), .int(2)], [.int(13), .int(8), .int(3)],
        ])
    }

    @Test func aRebuildStepKeepsDanglingKeysAndTheirEntityColumns() throws {
        let v1 = try model(v1YAML, name: "V1")
        // An entity that sorts first renumbers every entity: every table is rebuilt.
        let v2 = try model(v1YAML + "\n  Account:\n    attributes: {plan: string?}\n", name: "V2")
        let f = try filled()
        let outcome = try f.store.migrate(from: v1, to: v2)
        #expect(outcome.plan.rebuiltTables.contains("ZCONNECTION"))
        // Account 1, Connection 2, Obsolete 3, User 4, Bot 5.
        #expect(try links(f, entityColumn: "Z4_TO") == [
            [.int(10), .int(1), .int(4)], [.int(11), .int(2), .int(5)], [.int(12), .int(7), .int(4)], [.int(13), .int(8), .int(5)],
        ])
    }

    @Test func removingASubEntityClearsOnlyTheLinksToItsRows() throws {
        let v1 = try model(v1YAML, name: "V1")
        let v2 = try model(v1YAML.replacingOccurrences(of: "  Bot:\n    parent: User\n    attributes: {model: string?}\n", with: ""), name: "V2")
        let f = try filled()
        try f.store.migrate(from: v1, to: v2)
        // Connection 1, Obsolete 2, User 3; User has no sub-entity left, so no entity column. The link
        // to the removed bot goes, as Core Data's delete would; the keys that never had a row stay.
        #expect(try f.values("SELECT Z_PK, ZTO FROM ZCONNECTION ORDER BY Z_PK") == [
            [.int(10), .int(1)], [.int(11), .null], [.int(12), .int(7)], [.int(13), .int(8)],
        ])
    }
}
