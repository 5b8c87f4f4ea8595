"""release-check: `instar check` on every pair of real stores, whose real migration succeeded.

A release check that fails where the real app's users migrated fine is a false alarm. So for every
pair (older store, newer version with a real store) of one bundle, a copy of the older store is checked
against the release that shipped the newer version: the bundle's versions up to it, oldest first, as that
release had them (`instar check --model <v1> --model <v2> … --model <newer> --store COPY --format json`;
the bundle itself would hold later versions, unordered):
  exit 0   pass.
  exit 4   passes only when every undeclared drop is confirmed by the real newer store (the column, or
           the entity, is gone there too: the app really lost those values) and a rerun with those drops
           and meanings declared in an intent file exits 0. Anything else is a false alarm.
  exit 3/5 passes only where Core Data could not have inferred the step either: the pair crosses a step
           the app ships a mapping model for (its code ran there), or the store is a known bad one. So does
           exit 4 across such a step: inference alone loses those values; the app's mapping model did not.
"Confirmed" is a weak proof (a drop always leaves the next store without the column); it is the evidence
the corpus has, and the declared rerun proves the intent file clears exactly those findings.
"""

import json
import sqlite3

from .common import copy_store, run_process, tail
from .coredata import mapping_note
from .exceptions import KNOWN_BAD_STORES


def columns_and_entities(path):
    """({table: {column}}, {entity name: its root entity's name}) of a real store, read from a copy."""
    connection = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        tables = {}
        for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            tables[name] = {row[1] for row in connection.execute("PRAGMA table_info(\"%s\")" % name.replace('"', '""'))}
        rows = {ent: (name, parent) for ent, name, parent in connection.execute("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY")}
        roots = {}
        for ent, (name, parent) in rows.items():
            while parent in rows:
                ent, (_, parent) = parent, rows[parent]
            roots[name] = rows[ent][0]
        return tables, roots
    finally:
        connection.close()


def confirmed(finding, tables, roots):
    """Whether the real newer store lost what the finding says is dropped: the entity, or the property's
    column from the table of the entity's hierarchy (Core Data keeps a hierarchy in its root's table)."""
    entity, prop = finding.get("entity"), finding.get("property")
    if entity not in roots:
        return True
    if prop is None:
        return False
    table = tables.get("Z" + roots[entity].upper(), set())
    return not ({"Z" + prop.upper(), "Z" + prop.upper() + "1"} & table)


def run_check(instar, history, store, intent=None):
    args = ["check"]
    for version in history:
        args += ["--model", version.path]
    args += ["--store", store, "--format", "json"]
    if intent:
        args += ["--intent", str(intent)]
    status, stdout, stderr = run_process(instar, args)
    try:
        report = json.loads(stdout)
    except ValueError:
        report = None
    return status, report, stderr


def check_pair(instar, chain, history, record, targets, mappings, folder):
    """(ok, detail) of `instar check` on a copy of `record` (a store of chain[0]) to chain[-1]."""
    copy = copy_store(record.path, folder / "store")
    status, report, stderr = run_check(instar, history, copy)
    if not isinstance(report, dict):
        return False, "instar check exited %s without a JSON report: %s" % (status, tail(stderr))
    findings = [f for f in report.get("findings", []) if f.get("kind") in ("undeclaredDataLoss", "meaningChange",
                                                                               "lintError")]
    stores = report.get("stores", [])
    said = "exit %s, verdict %s" % (status, report.get("verdict"))
    if status == 0:
        return True, said
    note = mapping_note(chain, mappings)
    if status in (3, 5):
        reasons = "; ".join(filter(None, [s.get("reason") for s in stores] + [f.get("message") for f in findings]))
        if note or record.subject in KNOWN_BAD_STORES:
            return True, "%s, where Core Data could not infer the step either (%s): %s" % (
                said, note or KNOWN_BAD_STORES[record.subject], tail(reasons, 300))
        return False, "false alarm: %s on a pair whose real migration succeeded: %s" % (said, tail(reasons, 400))
    if status != 4:
        return False, "%s: %s" % (said, tail(stderr))
    if note:
        # Instar finds mapping models beside the bundle; an app that keeps them elsewhere registers them in
        # code. Without them the step is inferred, and inference loses what the finding says.
        losses = ", ".join(".".join(filter(None, [f.get("entity"), f.get("property")])) for f in findings)
        return True, "%s: inference alone would lose %s, which the app's own mapping model carries (%s)" % (
            said, losses, note)
    target_facts = [columns_and_entities(copy_store(t.path, folder / ("t%d" % n))) for n, t in enumerate(targets)]
    lines, unconfirmed = [], []
    for finding in findings:
        subject = ".".join(filter(None, [finding.get("entity"), finding.get("property")]))
        if finding["kind"] == "undeclaredDataLoss":
            if all(confirmed(finding, tables, entities) for tables, entities in target_facts):
                lines.append("- drop: %s\n  reason: the real next store has no such values either" % subject)
            else:
                unconfirmed.append(subject)
        elif finding["kind"] == "meaningChange":
            lines.append("- meaning: %s\n  reason: the real next store is at this version" % subject)
        else:
            unconfirmed.append("lint error: %s" % finding.get("message"))
    if unconfirmed:
        return False, "false alarm: %s; not confirmed by the real next store: %s" % (said, ", ".join(unconfirmed))
    intent = folder / "instar-intent.yaml"
    intent.write_text("\n".join(lines) + "\n")
    again, declared, stderr = run_check(instar, history, copy, intent)
    if again != 0:
        return False, "%s; with the confirmed drops declared it still exits %s: %s" % (
            said, again, tail(json.dumps(declared.get("findings")) if isinstance(declared, dict) else stderr, 300))
    declared_list = [line.split("\n")[0].lstrip("- ") for line in lines]
    return True, "%s only on what the real next store confirms (%s); declared, exit 0" % (said, ", ".join(declared_list))
