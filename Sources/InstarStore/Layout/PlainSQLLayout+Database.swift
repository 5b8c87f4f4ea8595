import GRDB
import InstarSQL
import InstarModel
import InstarLayouts

// What the layout reads and writes in a store (its bookkeeping); the rest of the layout needs no database.
extension PlainSQLLayout: StoreLayout {
    /// Never: a plain store carries no mark of its layout; choose this layout by name.
    public func recognizes(_ db: Database) throws -> Bool { false }

    public func createBookkeeping(_ db: Database, model: Model) throws {}

    /// Nothing is recorded: versions are detected by schema.
    public func readMetadata(_ db: Database) throws -> StoreMetadata? { nil }

    /// Nothing is recorded (see the type's documentation for the trade-off).
    public func writeMetadata(_ db: Database, model: Model) throws {}
}
