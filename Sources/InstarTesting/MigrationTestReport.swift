import Foundation
@_spi(Layouts) import InstarModel
import InstarRuntime

/// What ``MigrationTester`` found: one ``MigrationTestRun`` per starting store (a version of the
/// history seeded with synthetic rows, or a real fixture store). A plain value, so an app's own tests
/// can assert on it and the command line can render it as text, Markdown or JSON.
public struct MigrationTestReport: Sendable, Hashable {
    /// The plan's name.
    public var plan: String
    /// The version every run migrates to (the plan's target).
    public var target: String
    /// The name of the store layout the stores were created in.
    public var layout: String
    /// Rows per entity of the seeded stores (nil when only fixtures were tested).
    public var rows: Int?
    /// One run per starting store, in the order they ran.
    public var runs: [MigrationTestRun]
    /// Versions of the plan that no run started from, each with the reason: a report that covers
    /// less than every version says which and why, so nobody reads "all passed" as "all tested".
    public var skipped: [SkippedVersion]

    /// A version the test did not start from.
    public struct SkippedVersion: Sendable, Codable, Hashable {
        /// The version's name.
        public var version: String
        /// Why no run started from it.
        public var reason: String
        /// The target it is declared after in the plan's order (a plan migrates forward only).
        package var afterTarget: String?
    }

    /// Makes a report from runs already made (``MigrationTester/run(_:)`` builds them).
    package init(
        plan: String, target: String, layout: String, rows: Int?, runs: [MigrationTestRun], skipped: [SkippedVersion] = []
    ) {
        self.plan = plan
        self.target = target
        self.layout = layout
        self.rows = rows
        self.runs = runs
        self.skipped = skipped
    }

    /// True when no check of any run failed (skipped checks do not fail).
    public var passed: Bool { runs.allSatisfy(\.passed) }
    /// The runs with a failed check.
    public var failures: [MigrationTestRun] { runs.filter { !$0.passed } }
}

/// One store migrated from its version to the target through the real chain, and the checks on it.
public struct MigrationTestRun: Sendable, Codable, Hashable {
    /// `seeded` (a fresh store of the version with synthetic rows) or the fixture's file name.
    public var source: String
    /// The version the store started at.
    public var fromVersion: String
    /// The chain's steps as `A → B` labels, in order.
    public var steps: [String]
    /// Rows per entity before (by the source version's entity names) and after (the target's).
    public var rowsBefore: [String: Int]
    /// Rows per entity after the run, by the target's entity names.
    public var rowsAfter: [String: Int]
    /// The checks made on the result, in order; a failed migration check comes with no others.
    public var checks: [MigrationCheck]
    /// Wall seconds of the migration alone (seeding and checks excluded).
    public var seconds: Double
    /// The store's files (database, `-wal`, `-journal`) at their largest during the run, minus their
    /// size before it: the extra disk the migration needs. Sampled every few milliseconds and at every
    /// progress event, so a peak shorter than that can be missed.
    public var extraBytes: Int64
    /// Size of the database file (with its `-wal`) before and after the run.
    public var bytesBefore: Int64
    /// Size of the database file (with its `-wal`) after the run, in bytes.
    public var bytesAfter: Int64
    /// Where the failing store was kept (`keep`), if it was.
    public var keptAt: String?

    /// True when no check failed (skipped checks do not fail).
    public var passed: Bool { checks.allSatisfy { $0.status != .failed } }
    /// The first failed check, the one to look at first; nil when the run passed.
    public var firstFailure: MigrationCheck? { checks.first { $0.status == .failed } }
}

/// One check of one run.
public struct MigrationCheck: Sendable, Codable, Hashable {
    /// What the check compares.
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

    /// How the check came out.
    public enum Status: String, Sendable, Codable {
        /// Checked and as expected.
        case passed
        /// Checked and not as expected; the run fails.
        case failed
        /// Not checked (e.g. nothing ran because the store was at the target); does not fail the run.
        case skipped
    }

    /// What the check compares.
    public var kind: Kind
    /// How it came out.
    public var status: Status
    /// What was checked, or what failed, in one line or a few.
    public var message: String
    /// The step the failure comes from (`A → B`), when it could be told.
    public var step: String?
    /// The first differing row, for `rows` and `values`.
    public var difference: RowDifference?
    /// Things compared loosely or not at all, said so the report does not overclaim.
    public var notes: [String]
    /// For a failed rows, values or drops check: how many rows or values it found missing, changed or
    /// dropped.
    package var count: Int?
    /// For a failed check blamed on a custom stage: the stage's hooks, whose code ran in that step.
    package var hooks: [String]?
    /// For a failed migration check: the hook that failed, when a hook did.
    package var hook: String?
    /// For a failed drops check: what the step drops and the addition that looks like it renamed.
    package var probableRename: ProbableRename?

    /// Makes a check result (the tester makes these; an app's tests read them).
    package init(
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
    /// The row's primary key (`Z_PK` in a Core Data store), the same before and after.
    public var primaryKey: Int64
    /// The property by its source version's name (nil for a missing row).
    public var property: String?
    /// The values as SQL literals (`NULL`, `42`, `'text'`, `X'00FF'`).
    public var before: String?
    /// The value after the run, as an SQL literal; nil for a missing row.
    public var after: String?
    /// Why the values are not the same, when it is not plain inequality (`does not fit Integer 16`).
    public var reason: String?
    /// ``reason`` as a value.
    package var mismatch: ValueMismatch?

    public var description: String {
        guard let property else { return "\(entity) row \(primaryKey) is missing" }
        var text = "\(entity) row \(primaryKey): \(property) was \(before ?? "?"), is \(after ?? "?")"
        if let reason { text += " (\(reason))" }
        return text
    }
}

/// Data a step drops (`Entity` or `Entity.property`, by the names of the version it starts from) and
/// what the step adds that looks like the same data renamed without a renaming identifier.
package struct ProbableRename: Sendable, Codable, Hashable {
    /// What the step drops.
    package var dropped: String
    /// The addition that looks like it renamed.
    package var candidate: String

    package init(dropped: String, candidate: String) {
        self.dropped = dropped
        self.candidate = candidate
    }
}

/// Why two values that should read the same do not, when it is more than plain inequality.
package enum ValueMismatch: Sendable, Codable, Hashable, CustomStringConvertible {
    /// An integer and a real differ in a fraction.
    case fractionLostOrAdded
    /// An integer outside the range of the attribute's narrower integer type (or of a Boolean).
    case doesNotFit(AttributeType)
    /// A value that is not of the attribute's type at all (text, a blob, a fraction).
    case notOfType(AttributeType)

    package var description: String {
        switch self {
        case .fractionLostOrAdded: "the fraction is lost or added"
        case .doesNotFit(let type): "does not fit \(type.xcodeName)"
        case .notOfType(let type): "is not a \(type.xcodeName)"
        }
    }
}
