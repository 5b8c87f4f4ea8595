import InstarStore
import InstarLayouts

// GRDB, imported beside the store, has types of the same names (its schema-definition DSL); inside
// this module the names mean Instar's schema types.
typealias ColumnDefinition = InstarLayouts.ColumnDefinition
typealias TableDefinition = InstarLayouts.TableDefinition
typealias IndexDefinition = InstarLayouts.IndexDefinition
