import Foundation

/// How far a step's sliced rewrite is: the rows of each table it rebuilds, copied ahead of its
/// transaction in slices that each commit with this record (``JournalEntry/slices``).
///
/// A launch that runs out of time keeps every slice it committed; the next one continues at
/// ``Table/next``. Rows the app writes meanwhile are recorded and copied again before the step
/// commits, so the copy is never stale (see the Sliced rewrites article).
package struct SlicedProgress: Sendable, Codable, Equatable {
    /// One table copied ahead.
    package struct Table: Sendable, Codable, Equatable {
        /// The table the step rebuilds, by its name after the step.
        package var target: String
        /// The table its rows come from, by its name before the step.
        package var source: String
        /// The staging table the rows are copied into (`_instar_slice_<n>`).
        package var staging: String
        /// The source rowid the next slice starts at; nil once every row is copied.
        package var next: Int64?
        /// Source rows copied so far.
        package var rowsCopied: Int
        /// Source rows when the copy began (the app may add or remove some meanwhile).
        package var rowsTotal: Int

        /// Whether every row is copied.
        package var isCopied: Bool { next == nil }
    }

    /// The tables, in the order they are copied.
    package var tables: [Table]
    /// Source rows per second over the slices so far (wall clock), which sizes the next slices and
    /// estimates the time left; nil before the first slice.
    package var rowsPerSecond: Double?

    /// Rows copied over every table.
    package var rowsCopied: Int { tables.reduce(0) { $0 + $1.rowsCopied } }
    /// Rows to copy over every table.
    package var rowsTotal: Int { tables.reduce(0) { $0 + max($1.rowsTotal, $1.rowsCopied) } }
    /// Seconds the copies still need at the measured rate; nil before the first slice.
    package var secondsLeft: Double? {
        guard let rate = rowsPerSecond, rate > 0 else { return nil }
        return Double(max(0, rowsTotal - rowsCopied)) / rate
    }
}

/// Whether a step's table rewrites are copied ahead of its transaction in slices that each commit
/// (``Migrator/slicing``), so that a rewrite longer than a launch moves forward launch by launch
/// instead of starting again from zero.
///
/// Slicing costs a commit per slice and a final step transaction that copies again the rows written
/// meanwhile; it pays off only when a step may not fit the time it has. Rewrites that cannot be
/// sliced (see ``Migrator/slicing``) run whole in the step's transaction as before.
public enum Slicing: Sendable, Equatable {
    /// Never slice: every step is one transaction.
    case off
    /// Slice when the run has a time budget and the step rewrites at least `minimumRows` rows, in
    /// slices of about a quarter of a second (less when the budget has less left).
    case automatic(minimumRows: Int = 10_000)
    /// Always slice, in slices of about `seconds` each (measured rate, with a floor of 100 rows).
    case seconds(Double)
    /// Always slice, `rows` source rows per slice (for tests and measurements).
    case rows(Int)

    /// The default: ``automatic(minimumRows:)`` with 10,000 rows.
    public static let `default` = Slicing.automatic()
}
