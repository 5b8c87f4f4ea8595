// The umbrella module: `import Instar` gives an app every layer it needs.
@_exported import InstarInference
@_exported import InstarMapping
@_exported import InstarModel
@_exported import InstarModelIO
@_exported import InstarSQL
@_exported import InstarLayouts
@_exported import InstarCompiler
@_exported import InstarStore
@_exported import InstarPlanner
@_exported import InstarRuntime
// GRDB's `Database`, `Configuration` and `DatabaseWriter` appear in Instar's API (hooks, the app's
// configuration, `migrate(database:)`): an app that imports Instar can name them without importing GRDB.
@_exported import GRDB
