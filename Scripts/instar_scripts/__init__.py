"""What the scripts in Scripts/ share: one definition each, so that they measure and compare alike.

A script imports it after putting Scripts/ on the path, as it does for corpus_checks and fuzz_support:

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from instar_scripts import common, stores  # noqa: E402

Modules:
  common   the repository, finding the instar binary ($INSTAR, --instar, the project build), running a
           command with a timeout and saying how it ended, logging, scratch folders on tmpfs
  stores   a store's files (copy, remove, fresh copy), opening read-only, integrity, `instar store
           create`, stores generated once and cached, and the store digest (schema and every row)
  bench    measuring a run (wall, CPU, max RSS and bytes written, from the child's rusage and
           /proc/<pid>/io), round-robin order, Markdown tables

Standard library only (Python 3.11).
"""
