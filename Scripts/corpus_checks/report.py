"""Command line, running every check, and the output."""

import argparse
import concurrent.futures
import json
import sys
import tempfile
from pathlib import Path

from instar_scripts.common import require_binary

from .common import (CHECK_CREATE, CHECK_DIFF, CHECK_INSPECT, CHECK_MIGRATE, CHECK_MODEL, CHECK_ORDER, CHECK_RELEASE,
                     CHECK_SWIFTDATA_PARSE_ONLY, CHECK_TEST, WORKERS, Results, natural_key)
from .release import check_pair as release_check_pair
from .coredata import check_created, check_inspect, migrate_one, migration_tasks, pair_subject
from .exceptions import KNOWN_BAD_STORES
from .models import (check_diff, check_model, discover_mapping_models, discover_models, ordered_versions,
                     parse_manifest, print_verdict_details, verdict_summary)
from .mappings import run_mapping_checks
from .modelcache import run_modelcache_checks
from .parse_only import parse_only_figure
from .stores import match_stores
from .swiftdata import check_swiftdata
from .testing import test_bundle, test_tasks


def guarded(function, *args):
    try:
        return function(*args)
    except Exception as error:  # a bug in this script must not hide the other results
        return False, "checker error: %r" % error


def run_store_checks(instar, corpus, bundles, ordered_of, mappings, records, results, skipped, workroot):
    """inspect, coredata-create, coredata-migrate, coredata-test and release-check, in the small pool."""
    counter = [0]

    def folder():
        counter[0] += 1
        return workroot / ("work%03d" % counter[0])

    matched = [r for r in records if r.matched]
    for r in records:
        if r.skip:
            for check in (CHECK_INSPECT, CHECK_CREATE):
                skipped.append({"check": check, "subject": r.subject, "reason": "known drift: %s" % r.skip})
    with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
        inspects = [(r, pool.submit(guarded, check_inspect, instar, r, folder())) for r in matched]
        creates = []
        for r in matched:
            if r.subject in KNOWN_BAD_STORES:
                skipped.append({"check": CHECK_CREATE, "subject": r.subject, "reason": KNOWN_BAD_STORES[r.subject]})
            else:
                creates.append((r, pool.submit(guarded, check_created, instar, r, folder())))
        migrations, releases = [], []
        for pair, chain, record, targets, history in migration_tasks(bundles, ordered_of, records, skipped):
            migrations.append((pair, record, targets, pool.submit(migrate_one, instar, chain, record, targets,
                                                                    mappings, folder())))
            releases.append((pair, record, targets[0], pool.submit(guarded, release_check_pair, instar, chain, history,
                                                                   record, targets, mappings, folder())))
        tests = [(rs, pool.submit(test_bundle, instar, corpus, bundle, rs, folder()))
                 for bundle, rs in test_tasks(records, skipped).items()]
        collect_modelcache = run_modelcache_checks(instar, records, results, pool, folder)
        for r, future in inspects:
            results.add(CHECK_INSPECT, r.subject, *future.result())
        for r, future in creates:
            results.add(CHECK_CREATE, r.subject, *future.result())
        for pair, record, targets, future in migrations:
            try:
                outcome = future.result()
            except Exception as error:
                outcome = [(t, False, "checker error: %r" % error) for t in targets]
            for target, ok, detail in outcome:
                results.add(CHECK_MIGRATE, pair_subject(pair, record, target), ok, detail)
        for pair, record, target, future in releases:
            results.add(CHECK_RELEASE, pair_subject(pair, record, target), *future.result())
        for rs, future in tests:
            try:
                outcome = future.result()
            except Exception as error:
                outcome = [(r, False, "checker error: %r" % error) for r in rs]
            for record, ok, detail in outcome:
                results.add(CHECK_TEST, record.subject, ok, detail)
        collect_modelcache()


def print_report(out, args, results, records, drift, skipped, verdicts, flagged, notes):
    if args.verbose:
        for note in notes:
            print("NOTE %s" % note, file=out)
    for check in CHECK_ORDER:
        for r in results.items:
            if r["check"] == check and (not r["ok"] or args.verbose):
                print("%s %s %s: %s" % ("PASS" if r["ok"] else "FAIL", r["check"], r["subject"], r["detail"]), file=out)
    print("", file=out)
    print("Stores (%d found under the corpus):" % len(records), file=out)
    for r in sorted(records, key=lambda r: r.subject):
        if r.matched:
            what = "'%s' of %s" % (r.version.name, Path(r.version.bundle).name if r.version.bundle else "(stand-alone)")
            if r.tied:
                what += " (tied with %s)" % ", ".join("'%s'" % v.name for v in r.tied if v is not r.version)
            if r.subject in KNOWN_BAD_STORES:
                what += " (known bad: its tables are an older version's)"
        else:
            what = r.detail
        print("  %-22s %s -- %s" % (r.status, r.subject, what), file=out)
    statuses = {}
    for r in records:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    print("  " + ", ".join("%d %s" % (n, s) for s, n in sorted(statuses.items())), file=out)
    for d in drift:
        status = "known: %s" % d["reason"] if d["known"] else "NOT in KNOWN_DRIFT"
        print("DRIFT %s [%s]: %s" % (d["store"], status, d["explanation"]), file=out)
    if skipped:
        print("", file=out)
        print("Store checks skipped (%d):" % len(skipped), file=out)
        for item in skipped:
            print("SKIP %s %s: %s" % (item["check"], item["subject"], item["reason"]), file=out)
    parse_only = [r for r in results.items if r["check"] == CHECK_SWIFTDATA_PARSE_ONLY]
    if parse_only:
        print("", file=out)
        print("SwiftData parse-only apps (%d):" % len(parse_only), file=out)
        for r in parse_only:
            status, _, detail = r["detail"].partition(": ")
            print("  %-8s %s -- %s%s" % (status, r["subject"], detail, "" if r["ok"] else "  [FAIL]"), file=out)
    if args.verbose and verdicts:
        print("", file=out)
        print("Diff verdicts (%d steps, %d inferable):" % (len(verdicts), sum(1 for v in verdicts if v["inferable"])),
              file=out)
        for v in verdicts:
            print("  %s %s/%s: %s -> %s: %s" % ("OK " if v["inferable"] else "NO ", v["repo"], v["bundle"], v["older"],
                                              v["newer"], verdict_summary(v)), file=out)
            print_verdict_details(v, out, "        ")
    if flagged:
        print("", file=out)
        print("Steps MANIFEST.md flags as \"possibly NOT lightweight-inferable\":", file=out)
        for f in flagged:
            print("  %s %s: %s -> %s  [MANIFEST: %s; %s]" % (
                f["repo"], f["bundle"], f["older"], f["newer"], f["flag"], f["mapping"]), file=out)
            v = f["verdict"]
            if v is None:
                print("      instar: no verdict (diff failed or pair not diffed)", file=out)
                continue
            print("      instar: %s" % verdict_summary(v), file=out)
            print_verdict_details(v, out, "        ")
    print("", file=out)
    for check in CHECK_ORDER:
        passed, failed = results.counts(check)
        print("%s: %d passed, %d failed" % (check, passed, failed), file=out)
    figure = parse_only_figure(results)
    if figure:
        print(figure["text"], file=out)


def main(argv=None, description=None):
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="corpus directory (e.g. ../shared/corpus)")
    parser.add_argument("--instar", type=Path, default=None,
                        help="instar binary (default: $INSTAR, else <repo>/.build/debug/instar)")
    parser.add_argument("--verbose", action="store_true", help="print passes, notes and every diff verdict")
    parser.add_argument("--json-report", type=Path, default=None, help="write a machine-readable report here")
    args = parser.parse_args(argv)

    instar = Path(require_binary(args.instar))
    corpus = args.corpus.expanduser().resolve()
    if not corpus.is_dir():
        print("error: corpus directory %s does not exist" % corpus, file=sys.stderr)
        return 2

    results, notes, drift = Results(), [], []
    manifest_orders, manifest_steps = parse_manifest(corpus / "MANIFEST.md")
    if not manifest_orders:
        notes.append("MANIFEST.md missing or without version orders; natural order used everywhere")
    bundles = discover_models(corpus)
    versions = [v for b in bundles for v in sorted(b.versions.values(), key=lambda v: natural_key(v.name))]
    versions_by_repo = {}
    for v in versions:
        versions_by_repo.setdefault(v.repo, []).append(v)
    orders = {}
    for b in bundles:
        if b.rel is not None and len(b.versions) >= 2:
            orders[id(b)] = ordered_versions(b, manifest_orders, notes)
    pairs = [p for b in bundles if id(b) in orders for p in zip(orders[id(b)], orders[id(b)][1:])]
    mappings = {(st["repo"], st["bundle"], st["older"], st["newer"]): st["mapping"] for st in manifest_steps
                if st["mapping"].startswith("mapping model")}
    for step, text in discover_mapping_models(corpus, bundles, notes).items():
        mappings.setdefault(step, text)

    with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
        model_futures = [(v, pool.submit(guarded, check_model, instar, v)) for v in versions]
        diff_futures = [(a, b, pool.submit(check_diff, instar, a, b)) for a, b in pairs]
        run_mapping_checks(instar, corpus, bundles, results, pool)
        for v, future in model_futures:
            results.add(CHECK_MODEL, v.subject, *future.result())
        verdicts = []
        for a, b, future in diff_futures:
            try:
                ok, detail, verdict = future.result()
            except Exception as error:
                ok, detail, verdict = False, "checker error: %r" % error, None
            results.add(CHECK_DIFF, "%s/%s [%s -> %s]" % (a.repo, a.bundle, a.name, b.name), ok, detail)
            if verdict:
                verdicts.append(verdict)

    skipped = []
    with tempfile.TemporaryDirectory(prefix="check-corpus-") as tmp:
        records = match_stores(corpus, versions_by_repo, results, drift, Path(tmp), notes)
        run_store_checks(instar, corpus, bundles, lambda b: orders[id(b)], mappings, records, results, skipped, Path(tmp))
        check_swiftdata(instar, corpus, results, skipped, Path(tmp))

    verdict_index = {(v["repo"], v["bundle"], v["older"], v["newer"]): v for v in verdicts}
    flagged = [dict(st, verdict=verdict_index.get((st["repo"], st["bundle"], st["older"], st["newer"])))
               for st in manifest_steps if st["flag"]]
    out = sys.stdout
    print_report(out, args, results, records, drift, skipped, verdicts, flagged, notes)
    if args.json_report:
        report = {
            "corpus": str(corpus), "instar": str(instar), "passed": results.passed, "failed": results.failed,
            "per_check": {c: dict(zip(("passed", "failed"), results.counts(c))) for c in CHECK_ORDER},
            "results": results.items, "drift": drift, "verdicts": verdicts, "flagged_steps": flagged,
            "notes": notes, "skipped": skipped, "swiftdata_parse_only": parse_only_figure(results),
            "stores": [{"store": r.subject, "status": r.status, "detail": r.detail,
                        "version": r.version.name if r.version else None,
                        "bundle": r.version.bundle if r.version else None,
                        "tied": [v.name for v in r.tied]} for r in records],
        }
        args.json_report.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print("", file=out)
    print("%d passed, %d failed" % (results.passed, results.failed), file=out)
    out.flush()
    return 0 if results.failed == 0 else 1
