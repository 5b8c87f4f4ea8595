import Foundation

/// What ``MigrationTester`` found: one ``MigrationTestRun`` per starting store (a version of the
/// history seeded with synthetic rows, or a real fixture store). A plain value, so an app's own tests
/// can assert on it and the command line can render it as text, Markdown or JSON.
public struct MigrationTestReport: Sendable, Codable, Hashable {
    public var plan: String
    public var target: String
    public var layout: String
    /// Rows per entity of the seeded stores (nil when only fixtures were tested).
    public var rows: Int?
    public var runs: [MigrationTestRun]

    public init(plan: String, target: String, layout: String, rows: Int?, runs: [MigrationTestRun]) {
        self.plan = plan
        self.target = target
        self.layout = layout
        self.rows = rows
        self.runs = runs
    }

    public var passed: Bool { runs.allSatisfy(\.passed) }
    public var failures: [MigrationTestRun] { runs.filter { !$0.passed } }
}

/// One store migrated from its version to the target through the real chain, and the checks on it.
public struct MigrationTestRun: Sendable, Codable, Hashable {
    /// `seeded` (a fresh store of the version with synthetic rows) or the fixture's file name.
    public var source: String
    public var fromVersion: String
    /// The chain's steps as `A → B` labels, in order.
    public var steps: [String]
    /// Rows per entity before (by the source version's entity names) and after (the target's).
    public var rowsBefore: [String: Int]
    public var rowsAfter: [String: Int]
    public var checks: [MigrationCheck]
    /// Wall seconds of the migration alone (seeding and checks excluded).
    public var seconds: Double
    /// The store's files (database, `-wal`, `-journal`) at their largest during the run, minus their
    /// size before it: the extra disk the migration needs. Sampled every few milliseconds and at every
    /// progress event, so a peak shorter than that can be missed.
    public var extraBytes: Int64
    /// Size of the database file (with its `-wal`) before and after the run.
    public var bytesBefore: Int64
    public var bytesAfter: Int64
    /// Where the failing store was kept (`keep`), if it was.
    public var keptAt: String?

    public var passed: Bool { checks.allSatisfy { $0.status != .failed } }
    public var firstFailure: MigrationCheck? { checks.first { $0.status == .failed } }
}

/// One check of one run.
public struct MigrationCheck: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The chain ran to the end (no error, no pause).
        case migration
        /// The result's schema equals a store created fresh at the target.
        case schema
        /// Every row of every entity the chain keeps is still there, by primary key.
        case rows
        /// Values of kept and renamed attributes and to-ones are unchanged (or converted exactly).
        case values
        /// Data is dropped only where the diff says so; a drop the diff calls a probable rename fails.
        case drops
        /// `PRAGMA integrity_check` and `PRAGMA foreign_key_check`.
        case integrity
        /// The journal records the run as finished (or, for layouts that keep none, no unfinished run).
        case journal
    }

    public enum Status: String, Sendable, Codable {
        case passed, failed, skipped
    }

    public var kind: Kind
    public var status: Status
    /// What was checked, or what failed, in one line or a few.
    public var message: String
    /// The step the failure comes from (`A → B`), when it could be told.
    public var step: String?
    /// The first differing row, for `rows` and `values`.
    public var difference: RowDifference?
    /// Things compared loosely or not at all, said so the report does not overclaim.
    public var notes: [String]

    public init(
        _ kind: Kind, _ status: Status, _ message: String, step: String? = nil, difference: RowDifference? = nil,
        notes: [String] = []
    ) {
        self.kind = kind
        self.status = status
        self.message = message
        self.step = step
        self.difference = difference
        self.notes = notes
    }
}

/// A row that is missing after the run, or one of its values that changed.
public struct RowDifference: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The entity by its source version's name.
    public var entity: String
    public var primaryKey: Int64
    /// The property by its source version's name (nil for a missing row).
    public var property: String?
    /// The values as SQL literals (`NULL`, `42`, `'text'`, `X'00FF'`).
    public var before: String?
    public var after: String?
    /// Why the values are not the same, when it is not plain inequality (`does not fit Integer 16`).
    public var reason: String?

    public var description: String {
        guard let property else { return "\(entity) row \(primaryKey) is missing" }
        var text = "\(entity) row \(primaryKey): \(property) was \(before ?? "?"), is \(after ?? "?")"
        if let reason { text += " (\(reason))" }
        return text
    }
}
