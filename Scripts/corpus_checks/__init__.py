"""Checks of `instar` against the real-world Core Data corpus; `Scripts/check-corpus` runs them.

Modules, by concept:
  common    results, helpers, running instar, copying stores
  models    model bundles and versions, MANIFEST.md, mapping models, `model hashes` and `diff` checks
  stores    store discovery, metadata, matching a store to a version, the documented exceptions
  schema    schema and data facts of a Core Data store, and their comparison
  coredata  the `inspect`, `coredata-create` and `coredata-migrate` checks
  report    command line, running everything, output
"""
