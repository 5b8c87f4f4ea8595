// The umbrella module: `import Instar` gives an app every layer it needs.
@_exported import InstarInference
@_exported import InstarMapping
@_exported import InstarModel
@_exported import InstarModelIO
@_exported import InstarSQL
@_exported import InstarStore
@_exported import InstarPlanner
@_exported import InstarRuntime
