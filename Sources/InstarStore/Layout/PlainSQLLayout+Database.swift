import GRDB
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts

// What the layout reads and writes in a store (its bookkeeping); the rest of the layout needs no database.
extension PlainSQLLayout: StoreLayout {
    /// Never: a plain store carries no mark of its layout; choose this layout by name.
    @_spi(Layouts) public func recognizes(_ db: Database) throws -> Bool { false }

    @_spi(Layouts) public func createBookkeeping(_ db: Database, model: Model) throws {}

    /// Nothing is recorded: versions are detected by schema.
    @_spi(Layouts) public func readMetadata(_ db: Database) throws -> StoreMetadata? { nil }

    /// Nothing is recorded (see the type's documentation for the trade-off).
    @_spi(Layouts) public func writeMetadata(_ db: Database, model: Model) throws {}
}
