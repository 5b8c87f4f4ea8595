// The umbrella module: `import Instar` gives an app every layer it needs, and only the names it calls
// (everything else is `package`). `@_spi(Layouts) import Instar` adds the interface a store layout of the
// app's own implements (`StoreLayout`, `LayoutRegistry` and the storage types they name).
@_exported import InstarInference
@_exported import InstarMapping
@_spi(Layouts) @_exported import InstarModel
@_exported import InstarModelIO
@_spi(Layouts) @_exported import InstarSQL
@_spi(Layouts) @_exported import InstarLayouts
@_exported import InstarCompiler
@_spi(Layouts) @_exported import InstarStore
@_exported import InstarPlanner
@_exported import InstarRuntime
// GRDB's `Database`, `Configuration` and `DatabaseWriter` appear in Instar's API (hooks, the app's
// configuration, `migrate(database:)`): an app that imports Instar can name them without importing GRDB.
@_exported import GRDB
