"""The checks against real stores: `inspect`, `coredata-create` and `coredata-migrate`."""

import json
import sqlite3
from pathlib import Path

from .cachepairs import compare_stores as compare_caches
from .common import copy_store, framework_version, run_process, run_instar_text, same_files, short_list
from .exceptions import KNOWN_BAD_STORES
from .models import entity_renames
from .schema import (COREDATA_OWN_KEYS, data_differences, entity_tables, pk_rows_difference, render_index,
                     schema_facts, table_differences, xml_renaming_ids)

REFUSALS = ("nothing was changed", "cannot be inferred")


def bundle_folder(version):
    """The `.xcdatamodeld` folder (it stands for all its versions), or a stand-alone version's folder."""
    return version.path.parent if version.bundle and version.path.parent.suffix == ".xcdatamodeld" else version.path


def check_inspect(instar, record, folder):
    """`instar inspect --store COPY --model <bundle> --format json` names the store's version: (ok, detail)."""
    copy = copy_store(record.path, folder)
    version = record.version
    status, stdout, stderr = run_process(instar, ["inspect", "--store", copy, "--model", bundle_folder(version),
                                                  "--format", "json"])
    if status is None or status < 0:
        return False, "instar inspect did not finish: %s" % (stderr if status is None else "signal %d" % -status)
    try:
        data = json.loads(stdout)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return False, "exit status %d, stdout is not a JSON object: %s" % (status, (stderr or stdout)[-300:])
    named = data.get("version")
    bad = KNOWN_BAD_STORES.get(record.subject)
    if bad:
        if data.get("drift") and version.name in (named, data.get("closest")):
            return True, "exit status %d, names '%s' and reports the known drift (%s): %s" % (
                status, version.name, bad, short_list(data["drift"], 3))
        return False, "expected the drift of this known bad store (%s) to be reported for '%s'; exit status %d, " \
                      "version %r, drift %s" % (bad, version.name, status, named, data.get("drift"))
    problems = []
    if status != 0:
        problems.append("exit status %d (%s)" % (status, (stderr.strip() or "no stderr")[-300:]))
    allowed = [v.name for v in record.tied] or [version.name]
    if named not in allowed:
        problems.append("names version %r, expected %s" % (named, " or ".join("'%s'" % n for n in allowed)))
    if data.get("matchedBy") is None:
        problems.append("`matchedBy` missing")
    if data.get("drift"):
        problems.append("reports drift: %s" % short_list(data["drift"], 4))
    if problems:
        return False, "; ".join(problems) + ("; closest %r" % data.get("closest") if data.get("closest") else "")
    detail = "names '%s' (matchedBy %s)" % (named, data.get("matchedBy"))
    if record.tied:
        detail += "; tied versions %s, the identifiers cannot tell: any is right" % ", ".join(allowed)
    elif record.tie_note:
        detail += "; " + record.tie_note
    return True, detail


def create_store(instar, version, fw, folder):
    """`instar store create` of `version` in the Core Data layout of framework `fw`; (path, error)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "created.sqlite"
    if path.exists():
        path.unlink()
    layout = "coredata:%d" % fw if fw else "coredata"
    _, error = run_instar_text(instar, ["store", "create", version.path, "--store", path, "--layout", layout])
    return (None, error) if error else (path, None)


def check_created(instar, record, folder):
    """The created store of the record's version has exactly the real store's schema: (ok, detail)."""
    fw = framework_version(record.meta)
    created, error = create_store(instar, record.version, fw, folder / "created")
    if error:
        return False, "instar store create failed: %s" % error
    real = copy_store(record.path, folder / "real")
    try:
        expected = schema_facts(created)
        actual = schema_facts(real)
    except (sqlite3.Error, ValueError) as error:
        return False, "cannot read a schema: %s" % error
    problems = table_differences(actual["tables"], expected["tables"], "the real store", "the created store")
    for name, index in sorted(expected["indexes"].items()):
        found = actual["indexes"].get(name)
        if found is None:
            problems.append("index %s %s missing in the real store" % (name, render_index(index)))
        elif found != index:
            problems.append("index %s is %s in the real store, %s in the created one" % (
                name, render_index(found), render_index(index)))
    pk_problems, notes = pk_rows_difference(actual["pk"], expected["pk"], "the real store", "the created store",
                                            xml_renaming_ids(record.version.path))
    problems += pk_problems
    stale = sorted(set(actual["indexes"]) - set(expected["indexes"]))
    if problems:
        return False, "framework %s: %s" % (fw, "; ".join(problems))
    detail = "%s, framework %s: %d tables, %d indexes, %d Z_PRIMARYKEY rows equal" % (
        record.version.label, fw, len(expected["tables"]), len(expected["indexes"]), len(expected["pk"]))
    if stale:
        detail += " (stale in the real store, ignored: %s)" % short_list(stale, 6)
    if notes:
        detail += "; note: " + "; ".join(notes)
    return True, detail


def compare_migrated(instar, chain, before, work, target, created_by_fw, folder):
    """The migrated copy `work` against the newer real store `target`: (ok, detail)."""
    newer = chain[-1]
    reference = copy_store(target.path, folder / "reference")
    fw = framework_version(target.meta)
    if fw not in created_by_fw:
        created_by_fw[fw] = create_store(instar, newer, fw, folder / ("created%s" % fw))
    created, error = created_by_fw[fw]
    if error:
        return False, "instar store create (for the indexes Core Data creates) failed: %s" % error
    try:
        old = schema_facts(before)
        migrated = schema_facts(work)
        real = schema_facts(reference)
        fresh = schema_facts(created)
    except (sqlite3.Error, ValueError) as error:
        return False, "cannot read a schema: %s" % error
    problems = table_differences(real["tables"], migrated["tables"], "the newer real store", "the migrated store")
    for name, index in sorted(real["indexes"].items()):
        if name not in fresh["indexes"]:
            continue  # stale in the newer real store: not what Core Data creates for this version
        found = migrated["indexes"].get(name)
        if found is None:
            problems.append("index %s %s missing in the migrated store" % (name, render_index(index)))
        elif found != index:
            problems.append("index %s is %s in the migrated store, %s in the newer real store" % (
                name, render_index(found), render_index(index)))
    for name in sorted(set(migrated["indexes"]) - set(real["indexes"])):
        if name not in old["indexes"]:
            problems.append("index %s %s only in the migrated store" % (name, render_index(migrated["indexes"][name])))
    pk_problems, notes = pk_rows_difference(real["pk"], migrated["pk"], "the newer real store", "the migrated store",
                                            xml_renaming_ids(newer.path))
    problems += pk_problems
    entities = entity_tables(migrated["pk"])
    con = sqlite3.connect(str(work))
    try:
        for number, name, parent, z_max in migrated["pk"]:
            if parent == 0 and name in entities and entities[name][1] in migrated["tables"]:
                table = entities[name][1]
                highest = con.execute('SELECT max(Z_PK) FROM "%s"' % table).fetchone()[0] or 0
                if (z_max or 0) < highest:
                    problems.append("Z_MAX of %s is %s, below max(Z_PK) %s of %s" % (name, z_max, highest, table))
    finally:
        con.close()
    meta = migrated["meta"]
    real_hashes = real["meta"].get("NSStoreModelVersionHashes")
    if meta.get("NSStoreModelVersionHashes") != real_hashes:
        problems.append("metadata hashes differ from the newer real store's (entities %s vs %s)" % (
            short_list(sorted(meta.get("NSStoreModelVersionHashes") or {})), short_list(sorted(real_hashes or {}))))
    for key, value in old["meta"].items():
        if key not in COREDATA_OWN_KEYS and meta.get(key) != value:
            problems.append("metadata key %s was not kept" % key)
    renames, removed = entity_renames(instar, chain)
    data_problems, rows = data_differences(before, old, work, migrated, renames, removed)
    problems += data_problems
    # The store's own model: Core Data's cache in the real store against the one Instar wrote (cachepairs.py).
    cache_ok, cache_detail = compare_caches(work, reference)
    if not cache_ok:
        problems.append("Z_MODELCACHE: " + cache_detail)
    if problems:
        return False, "; ".join(problems)
    return True, "schema equals %s's, %d surviving rows kept%s; %s%s" % (
        Path(target.rel).name, rows,
        (" (entities removed on the way: %s)" % ", ".join(sorted(removed))) if removed else "", cache_detail,
        ("; note: " + "; ".join(notes)) if notes else "")


def mapping_note(chain, mappings):
    """The steps of the chain (and the direct pair) for which the app ships a mapping model."""
    repo, bundle = chain[0].repo, chain[0].bundle
    crossed = [(a, b) for a, b in zip(chain, chain[1:])]
    if len(chain) > 2:
        crossed.append((chain[0], chain[-1]))
    found = ["%s -> %s (%s)" % (a.name, b.name, mappings[(repo, bundle, a.name, b.name)])
             for a, b in crossed if (repo, bundle, a.name, b.name) in mappings]
    return ("crosses step(s) with a mapping model: " + "; ".join(found)) if found else ""


def migrate_one(instar, chain, record, targets, mappings, folder):
    """Migrates a copy of `record` (a store of chain[0]) to chain[-1] once and compares it with every
    newer real store in `targets`. Returns [(target, ok, detail)]."""
    older, newer = chain[0], chain[-1]
    before = copy_store(record.path, folder / "before")
    work = copy_store(record.path, folder / "work")
    steps = len(chain) - 1
    status, error = run_instar_text(instar, ["migrate", "--store", work, "--model", bundle_folder(older),
                                             "--to", newer.name])
    how = "bundle migration (%d step(s) in the bundle order)" % steps
    note = mapping_note(chain, mappings)
    if status == 64:  # the command line is not accepted: no plan-less bundle migration yet
        if steps > 1 or not same_files(before, work):
            detail = ("%d-step pair needs the bundle migration: `instar migrate --store COPY --model <bundle> "
                      "--to '%s'` failed: %s%s" % (steps, newer.name, error.split(" | ")[0],
                                                    ("; note: " + note) if note else ""))
            return [(t, False, detail) for t in targets]
        status, error = run_instar_text(instar, ["migrate", "--store", work, "--to-model", newer.path,
                                                 "--model", older.path])
        how = "single step --to-model (the bundle form exited 64)"
    bad = KNOWN_BAD_STORES.get(record.subject)
    if bad:
        if error and ("schema differs" in error or "drift" in error) and same_files(before, work):
            result = True, "%s: refused as drifted, store unchanged (%s): %s" % (how, bad, error)
        else:
            result = False, "expected a refusal for %s; instar %s" % (
                bad, "failed otherwise: %s" % error if error else "migrated it")
        return [(t,) + result for t in targets]
    if error:
        if note and any(text in error for text in REFUSALS):
            if not same_files(before, work):
                result = False, "instar refused but the store changed: %s" % error
            else:
                result = True, ("%s: refused, store unchanged: Core Data cannot infer this either (%s); instar: %s"
                                % (how, note, error))
        else:
            result = False, "%s failed: %s%s" % (how, error, ("; " + note) if note else "")
        return [(t,) + result for t in targets]
    created_by_fw = {}
    out = []
    for number, target in enumerate(targets):
        ok, detail = compare_migrated(instar, chain, before, work, target, created_by_fw, folder / ("t%d" % number))
        detail = "%s, framework %s: %s" % (how, framework_version(record.meta), detail)
        if note:
            detail += "; note: " + note
        out.append((target, ok, detail))
    return out


def migration_tasks(bundles, ordered_of, records, skipped):
    """(pair, chain, older record, newer records, the bundle's versions up to the newer one) for every pair of
    stores of two versions of one bundle."""
    by_version = {}
    for record in records:
        if record.version is not None and (record.matched or record.skip):
            by_version.setdefault(id(record.version), []).append(record)
    tasks = []
    for bundle in bundles:
        if bundle.rel is None or len(bundle.versions) < 2:
            continue
        ordered = ordered_of(bundle)
        for i, older in enumerate(ordered):
            for j in range(i + 1, len(ordered)):
                newer = ordered[j]
                olders, newers = by_version.get(id(older), []), by_version.get(id(newer), [])
                if not olders or not newers:
                    continue
                pair = "%s/%s [%s -> %s]" % (older.repo, older.bundle, older.name, newer.name)
                for r in olders + newers:
                    if r.skip:
                        skipped.append({"check": "coredata-migrate", "subject": "%s: %s" % (pair, r.subject),
                                        "reason": "known drift: %s" % r.skip})
                    elif r in newers and r.subject in KNOWN_BAD_STORES:
                        skipped.append({"check": "coredata-migrate",
                                        "subject": "%s: %s (as target)" % (pair, r.subject),
                                        "reason": KNOWN_BAD_STORES[r.subject]})
                targets = sorted((r for r in newers if not r.skip and r.subject not in KNOWN_BAD_STORES),
                                 key=lambda r: r.subject)
                if not targets:
                    continue
                for r in sorted((r for r in olders if not r.skip), key=lambda r: r.subject):
                    tasks.append((pair, ordered[i:j + 1], r, targets, ordered[:j + 1]))
    return tasks


def pair_subject(pair, older, target):
    a, b = Path(older.rel).parts, Path(target.rel).parts
    shared = 0
    while shared < min(len(a), len(b)) - 1 and a[shared] == b[shared]:
        shared += 1
    return "%s: %s -> %s" % (pair, "/".join(a[shared:]), "/".join(b[shared:]))
