"""The fixtures and checks of Scripts/soak: the plan per layout, base stores and uninterrupted references
made once per run, the markers in `Log`, and what a trial's launches and final store must satisfy.

Each check returns problems in words (empty when it holds); Scripts/soak prints them on the trial's FAIL
line. The rules, documented in Scripts/soak: documented exit codes only; exit 2 only while another
launch was alive (and after the whole --wait); exit 0 only with the store at what the launch asked for;
the final store equal to the reference, each marker once, nothing left behind, integrity ok.
"""

import collections
import sqlite3
import sys

from . import common, soak_plan
from .soak_launch import DOCUMENTED
from .stores import StoreDigest, copy_store, create_store, integrity_problems, open_read_only

# Resumed and uninterrupted runs are written by the same program: the schema is compared as written.
DIGEST = StoreDigest(schema="text")
TARGET = soak_plan.VERSIONS[-1]


def rank(version):
    return soak_plan.VERSIONS.index(version) if version in soak_plan.VERSIONS else -1


# --------------------------------------------------------------------------------------------------
# Fixtures: plans per layout, base stores and references, made once and kept for the run


class Fixtures:
    def __init__(self, folder, instar, chaos, rows):
        self.folder, self.instar, self.chaos, self.rows = folder, instar, chaos, rows
        self.plans = {}
        self.bases = {}
        self.references = {}

    def plan(self, layout, swift=False):
        key = (layout, swift)
        if key not in self.plans:
            self.plans[key] = soak_plan.write_plan(self.folder / layout, layout, swift=swift)
        return self.plans[key]

    def base(self, layout, journal, start="V1"):
        """A store at `start` in the layout and journal mode: V1 filled with items; V2/V3 migrated there."""
        key = (layout, journal, start)
        if key in self.bases:
            return self.bases[key]
        path = self.folder / layout / f"base-{journal}-{start}.sqlite"
        self.plan(layout)  # writes the models too
        if start == "V1":
            create_store(self.instar, self.folder / layout / "V1.yaml", path, layout=layout)
            db = open_rw(path)
            soak_plan.fill(db, soak_plan.Names(layout), self.rows)
            if journal == "wal":
                db.execute("PRAGMA journal_mode = WAL")
            db.close()
        else:
            copy_store(self.base(layout, journal, "V1"), path)
            done = common.run([self.instar, "migrate", self.plan(layout), "--store", path, "--progress", "none",
                               "--to", start], timeout=300)
            if done.returncode != 0:
                sys.exit(f"soak: migrating a base store to {start} failed: {common.describe_exit(done)}\n{done.stdout}")
        self.bases[key] = path
        return path

    def reference(self, layout, journal, kind):
        """(digest, schema names) of an uninterrupted run from V1: `instar migrate`, or InstarChaos --straight."""
        key = (layout, journal, kind)
        if key not in self.references:
            path = self.folder / layout / f"reference-{journal}-{kind}.sqlite"
            copy_store(self.base(layout, journal), path)
            if kind == "chaos":
                command = [self.chaos, "--plan", self.plan(layout, swift=True), "--store", path, "--straight"]
            else:
                command = [self.instar, "migrate", self.plan(layout), "--store", path, "--progress", "none"]
            done = common.run(command, timeout=300)
            if done.returncode != 0:
                sys.exit(f"soak: the reference run failed: {common.describe_exit(done)}\n{done.stdout}{done.stderr}")
            found = markers(path, soak_plan.Names(layout))
            expected = soak_plan.expected_markers(kind == "chaos", self.rows)
            if found != expected:
                sys.exit(f"soak: the reference run's markers are not each exactly once: {marker_problems(found, expected)}")
            self.references[key] = (DIGEST(path), schema_names(path), path)
        return self.references[key]


def open_rw(path):
    return sqlite3.connect(path)


def markers(store, names):
    db = open_read_only(store)
    try:
        return dict(collections.Counter(m for (m,) in db.execute(f"SELECT {names.q(names.column('msg'))} FROM {names.q(names.log)}")))
    finally:
        db.close()


def marker_problems(found, expected):
    missing = sorted(m for m in expected if m not in found)
    twice = sorted(f"{m}×{c}" for m, c in found.items() if c != 1 and m in expected)
    extra = sorted(m for m in found if m not in expected)
    parts = []
    for label, items in (("missing", missing), ("not once", twice), ("unexpected", extra)):
        if items:
            parts.append(f"{label} {len(items)}: {', '.join(items[:6])}{' …' if len(items) > 6 else ''}")
    return "; ".join(parts)


def schema_names(store):
    db = open_read_only(store)
    try:
        return {(kind, name) for kind, name in db.execute("SELECT type, name FROM sqlite_master")
                if name not in ("_instar_journal", "_instar_lease") and not name.startswith("sqlite_autoindex__instar_")}
    finally:
        db.close()


def launch_problems(trial):
    problems = []
    for l in trial.launches:
        if l.killed and l.code == -9:
            continue
        if l.code not in DOCUMENTED[l.kind]:
            problems.append(f"{l.name} exited {l.code} (not a documented code): {l.output()}")
        elif l.code == 2 and not l.others_alive:
            problems.append(f"{l.name} exited 2 though no other launch was alive"
                            f"{' (a killed one was left unreaped)' if any(o.zombie and o.killed for o in trial.launches) else ''}"
                            f": {l.output(2)}")
        elif l.code == 2 and l.wait and l.ended - l.started < l.wait - 0.5:
            problems.append(f"{l.name} exited 2 after {l.ended - l.started:.2f} s of --wait {l.wait}: {l.output(2)}")
        elif l.code == 0 and rank(l.version_at_exit) < rank(l.target):
            problems.append(f"{l.name} exited 0 asked for {l.target} but left the store at {l.version_at_exit}")
    return problems


def store_problems(fx, trial, layout, journal, kind):
    digest, names_expected, reference_path = fx.reference(layout, journal, kind)
    problems = []
    got = DIGEST(trial.store)
    if got != digest:
        lines = DIGEST.differences(trial.store, reference_path, got, digest)
        problems.append("differs from the uninterrupted run: " + "; ".join(lines[:4]) + (" …" if len(lines) > 4 else ""))
    left = sorted(schema_names(trial.store) - names_expected)
    if left:
        problems.append("left behind: " + ", ".join(f"{k} {n}" for k, n in left))
    found = markers(trial.store, trial.names)
    expected = soak_plan.expected_markers(kind == "chaos", fx.rows)
    if found != expected:
        problems.append("hook effects not exactly once: " + marker_problems(found, expected))
    problems += integrity_problems(trial.store, foreign_keys=False)
    status = common.run([fx.instar, "status", "--store", trial.store, "--format", "json"], timeout=60)
    if status.returncode != 0:
        problems.append(f"instar status exited {status.returncode}: {status.stdout.strip()[-200:]} {status.stderr.strip()[-200:]}")
    return problems
