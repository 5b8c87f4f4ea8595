import InstarStore

// GRDB, imported beside the store, has types of the same names (its schema-definition DSL); inside
// this module the names mean Instar's schema types.
typealias ColumnDefinition = InstarStore.ColumnDefinition
typealias TableDefinition = InstarStore.TableDefinition
typealias IndexDefinition = InstarStore.IndexDefinition
