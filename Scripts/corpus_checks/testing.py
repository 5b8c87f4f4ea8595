"""coredata-test: `instar test --model <bundle> --fixtures <copies of its matched stores>` per bundle."""

import json
from pathlib import Path

from .common import copy_store, run_process, tail
from .coredata import bundle_folder
from .exceptions import ACCEPTED_DROPS, KNOWN_BAD_STORES

# A run that stops before writing anything, with the reason: Core Data could not run it either without
# the app's code (a custom migration policy) or data fixed first. Passes, said in the detail.
REFUSED = "nothing was changed"
NEWER = "newer than the target"


def test_tasks(records, skipped):
    """{bundle folder: [records]} of the matched stores of every bundle (KNOWN_BAD_STORES skipped)."""
    by_bundle = {}
    for record in records:
        if not record.matched or record.version is None:
            continue
        if record.subject in KNOWN_BAD_STORES:
            skipped.append({"check": "coredata-test", "subject": record.subject,
                            "reason": KNOWN_BAD_STORES[record.subject]})
            continue
        folder = bundle_folder(record.version)
        if Path(folder).suffix == ".xcdatamodeld":
            by_bundle.setdefault(Path(folder), []).append(record)
    return {bundle: sorted(rs, key=lambda r: r.subject) for bundle, rs in sorted(by_bundle.items())}


def test_bundle(instar, corpus, bundle, records, folder):
    """Runs `instar test` on copies of the bundle's stores; returns [(record, ok, detail)]."""
    copies = [copy_store(r.path, folder / ("s%02d" % n)) for n, r in enumerate(records)]
    key = bundle.relative_to(corpus).as_posix()
    args = ["test", "--model", bundle, "--format", "json"]
    for name in sorted(ACCEPTED_DROPS.get(key, {})):
        args += ["--accept-drop", name]
    for copy in copies:
        args += ["--fixtures", copy]
    status, stdout, stderr = run_process(instar, args)
    try:
        runs = json.loads(stdout)["runs"]
    except (ValueError, KeyError, TypeError):
        detail = "instar test exited %s without a JSON report: %s" % (status, tail(stderr or stdout))
        return [(r, False, detail) for r in records]
    if len(runs) != len(records):
        return [(r, False, "%d runs for %d stores" % (len(runs), len(records))) for r in records]
    return [(r,) + judge(run, key) for r, run in zip(records, runs)]


def judge(run, bundle):
    """(ok, detail) of one run of the report."""
    steps = run.get("steps") or []
    said = "%s -> %s, %d step(s), %.3f s, +%d bytes" % (
        run.get("fromVersion"), steps[-1].split(" → ")[-1] if steps else "(at the target)", len(steps),
        run.get("seconds", 0), run.get("extraBytes", 0))
    failed = [c for c in run.get("checks", []) if c.get("status") == "failed"]
    if not failed:
        accepted = [n for c in run.get("checks", []) for n in c.get("notes", []) if "accepted drop" in n]
        return True, said + ("; " + "; ".join(accepted) if accepted else "")
    first = failed[0]
    message = first.get("message", "")
    if first.get("kind") == "migration" and len(failed) == 1 and (REFUSED in message or NEWER in message):
        return True, "refused before writing (as Core Data would without the app's code): %s" % head(message, 300)
    detail = "%s: %s" % (first.get("kind"), head(message, 600))
    if first.get("step"):
        detail += " [step %s]" % first["step"]
    return False, "%s; %s" % (said, detail)


def head(text, limit):
    text = " | ".join(line.strip() for line in (text or "").strip().splitlines())
    return text if len(text) <= limit else text[:limit] + "…"
