"""SwiftData stores (corpus/swiftdata): each is matched, through `instar`, to the schema read from the app's
Swift sources that wrote it.

Versioned apps (FreezeRay, SwiftDeveloperBlog, myhome): `instar plan --swiftdata <sources> --store <copy>` must
accept the app's real SchemaMigrationPlan (checksums distinct, lightweight stages inferable, every schema
reachable) and name the schema the store was written by. Unversioned apps (`Schema([...])` built at run time):
`instar model swiftdata <sources> --classes <the store's entities> --format json` must give the store's entity
hashes. MetaCocktails is left to the Swift corpus test (SwiftDataCorpusTests), which supplies the one declaration
the corpus copy lacks (`MeasurementUnit`); the script does not invent sources.

swiftdata-test, versioned apps: `instar test --swiftdata <sources> --fixtures <copy>` migrates the real store
through the app's stages to the last schema with every check of `instar test`. A custom stage's Swift closures
cannot run here: the run without them must refuse before writing, naming them; then each is stood in for by
no-op SQL (`--hooks`; what a hook computes is never compared) and the run must pass, so every lightweight stage
and the custom stages' schema changes are proven on the real store.

swiftdata-pair: a real store of schema N migrated by `instar migrate --swiftdata <sources of N+1>` equals the real
store SwiftData wrote at N+1 (PAIRS): schema, Z_PRIMARYKEY numbering and Z_METADATA by value, and Z_MODELCACHE as
an object graph (Instar writes the N+1 model there as SwiftData keeps it; a UUID or date default the app computes at
launch is compared by kind). The build numbers that last wrote each store (PAIR_DIFFERING_KEYS) and Z_MAX (the
stores hold different rows) are not compared. MetaCocktails'
sources get the one declaration the corpus copy lacks (MeasurementUnit, raw type String, as the Swift corpus tests
supply it), and its classes are the next store's entities (the app builds its Schema at run time). Where the next
schema adds a required attribute without a default (REFUSED_WITH_ROWS), the store's rows cannot take it: SwiftData's
inferred migration (Core Data's) fails on them, so `instar migrate` must refuse, unchanged, naming it; the
comparison is then made on the copy emptied of the model's rows.
"""
import json
import plistlib
import sqlite3
import zlib

from .common import CHECK_SWIFTDATA, CHECK_SWIFTDATA_PAIR, CHECK_SWIFTDATA_TEST, SOURCES_PASS, copy_store, run_process, tail
from .parse_only import check_parse_only
from .schema import render_index, schema_facts, table_differences

# Which sources wrote which store: (repo folder prefix, sources relative to corpus/swiftdata (a path, or a list of
# paths for an unversioned app), versioned).
SOURCES = [
    ("TrinsicVentures__FreezeRay/", "TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRayTestApp", True),
    ("AndreiMaksimovich__SwiftDeveloperBlog/",
     "AndreiMaksimovich__SwiftDeveloperBlog/06 - SwiftData Migration/06 - SwiftData Migration/Lib/AppData", True),
    ("nobelnrj__myhome/", "nobelnrj__myhome/MyHomeApp", True),
    ("sergd2005__ResourcesManager/@4517a277/", "sergd2005__ResourcesManager/@4517a277/ResourcesManager", False),
    # The models (Group/) and AppSchema's `Schema([...])` of all 15 (PegaseUIDataApp.swift); not ContainerManager.swift,
    # whose `Schema([DummyModel.self])` (an empty container) names a file the corpus copy leaves out (MANIFEST.md §1).
    ("thierryH91200__PegaseUIData/@bbefd900/", ["thierryH91200__PegaseUIData/@bbefd900/PegaseUIData/Group",
                                                 "thierryH91200__PegaseUIData/@bbefd900/PegaseUIData/PegaseUIDataApp.swift"], False),
    ("jdeda__iOS-ChefTime/@aac1b60b/", "jdeda__iOS-ChefTime/@aac1b60b/ChefTime", False),
    ("atomicguy__Retroview/@4448712c/", "atomicguy__Retroview/@4448712c/Retroview", False),
]
# Stores that were not written by the sources of their own commit (MANIFEST.md §1), with the refusal those sources
# must give. Retroview@4448712c's store predates that commit's StereoCard.leftCrop/rightCrop (it matches
# StereoCard.swift at 832367b, which the corpus does not hold), and the two both declare `inverse: \Crop.card`, so the
# commit's sources build no schema; SwiftDataCorpusTests checks the store against the sources without them.
KNOWN_MISMATCHES = {"atomicguy__Retroview/@4448712c/": (
    "inverse 'Crop.card' names 'rightCrop' as its own inverse, not 'leftCrop'",
    "known mismatch (MANIFEST.md §1): the store predates this commit's StereoCard.leftCrop/rightCrop")}
LEFT_TO_SWIFT_TESTS = {"MatthewHunt84__MetaCocktailsSwiftData": "the corpus lacks the file declaring MeasurementUnit; "
                       "SwiftDataCorpusTests and SwiftDataLayoutCorpusTests supply it and check these stores"}


def check_swiftdata(instar, corpus, results, skipped, workdir):
    root = corpus / "swiftdata"
    facts = root / "stores.json"
    if not facts.is_file():
        return
    for number, store in enumerate(json.loads(facts.read_text(encoding="utf-8")), 1):
        path = store["corpus_path"]
        subject = "swiftdata/" + path
        repo = path.split("/", 1)[0]
        if repo in LEFT_TO_SWIFT_TESTS:
            skipped.append({"check": CHECK_SWIFTDATA, "subject": subject, "reason": LEFT_TO_SWIFT_TESTS[repo]})
            continue
        source = next((s for s in SOURCES if path.startswith(s[0])), None)
        if source is None:
            results.add(CHECK_SWIFTDATA, subject, False, "no sources known for this store (add it to SOURCES)")
            continue
        _, sources, versioned = source
        copy = copy_store(root / path, workdir / ("swiftdata-%d" % number))
        if versioned:
            status, stdout, stderr = run_process(instar, ["plan", "--swiftdata", str(root / sources), "--store", str(copy)])
            written = [line for line in stdout.splitlines() if line.startswith("store: written by ")]
            ok = status == 0 and len(written) == 1 and SOURCES_PASS in stdout
            results.add(CHECK_SWIFTDATA, subject, ok,
                        written[0] if ok else "plan --swiftdata: exit %s: %s" % (status, tail(stderr or stdout, 800)))
            test_store(instar, root / sources, root / path, subject, results, workdir / ("swiftdata-test-%d" % number))
        else:
            classes = ",".join(sorted(store["hashes"]))
            paths = [str(root / p) for p in (sources if isinstance(sources, list) else [sources])]
            status, stdout, stderr = run_process(
                instar, ["model", "swiftdata"] + paths + ["--classes", classes, "--format", "json"])
            try:
                schemas = json.loads(stdout).get("schemas", []) if stdout else []
            except ValueError:
                schemas = []
            built = [s for s in schemas if sorted(s.get("classes", [])) and s.get("name") == "Schema"]
            mismatch = next((m for prefix, m in KNOWN_MISMATCHES.items() if path.startswith(prefix)), None)
            if mismatch is not None:
                refusal = mismatch[0]
                ok = status != 0 and refusal in (stderr + stdout)
                results.add(CHECK_SWIFTDATA, subject, ok,
                            "%s: refused as expected (%s)" % (mismatch[1], refusal) if ok
                            else "expected the refusal %r: exit %s: %s" % (refusal, status, tail(stderr or stdout, 600)))
                continue
            ok = status == 0 and len(built) == 1 and built[0].get("entities") == store["hashes"]
            results.add(CHECK_SWIFTDATA, subject, ok,
                        "entity hashes of Schema([%s]) equal the store's" % classes if ok
                        else "model swiftdata --classes: exit %s: %s" % (status, tail(stderr or stdout, 800)))
    check_pairs(instar, root, results, workdir)
    check_parse_only(instar, corpus, results)


FREEZERAY = "TrinsicVentures__FreezeRay/FreezeRayTestApp"
META = "MatthewHunt84__MetaCocktailsSwiftData"
META_COMMITS = ["@3292fc79", "@7d753343", "@18228b5c", "@f1fca611", "@f6051d07"]
MEASUREMENT_UNIT = "enum MeasurementUnit: String, Codable { case fluidOunces }\n"
REFUSED_WITH_ROWS = {"@7d753343": "Cocktail.isCustomCocktail", "@18228b5c": "Cocktail.favorite"}
PAIR_DIFFERING_KEYS = {"NSPersistenceFrameworkVersion", "NSPersistenceMaximumFrameworkVersion"}


def meta_store(commit):
    folder = "" if commit in ("@3292fc79", "@7d753343", "@18228b5c") else "Model/Database/"
    return "%s/%s/MetaCocktailsSwiftData/%sdefault.store" % (META, commit, folder)


def pairs(facts):
    """(store at N, store at N+1, sources of N+1, extra arguments, supplies MeasurementUnit, refused attribute)."""
    found = []
    for fixtures in (FREEZERAY + "/FreezeRay/Fixtures", FREEZERAY + "/FreezeRayTestApp/FreezeRay/Fixtures"):
        found.append((fixtures + "/1.0.0/App-1_0_0.sqlite", fixtures + "/2.0.0/App-2_0_0.sqlite",
                      [FREEZERAY + "/FreezeRayTestApp"], ["--to", "AppSchemaV2"], False, None))
    hashes = {s["corpus_path"]: s["hashes"] for s in facts}
    for before, after in zip(META_COMMITS, META_COMMITS[1:]):
        classes = ",".join(sorted(hashes.get(meta_store(after), {})))
        found.append((meta_store(before), meta_store(after),
                      ["%s/%s/MetaCocktailsSwiftData/%s" % (META, after, f) for f in ("Model", "Views")],
                      ["--classes", classes], True, REFUSED_WITH_ROWS.get(after)))
    return found


def remove_rows(path):
    """Empties the model's tables (entities, join tables); Core Data's own and the history stay."""
    con = sqlite3.connect(str(path))
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%'")]
        for name in names:
            if name not in ("Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"):
                con.execute('DELETE FROM "%s"' % name.replace('"', '""'))
        con.commit()
    finally:
        con.close()


def model_cache_rows(path):
    con = sqlite3.connect(str(path))
    try:
        return con.execute("SELECT count(*) FROM Z_MODELCACHE").fetchone()[0]
    finally:
        con.close()


def model_cache_graph(path):
    """The store's Z_MODELCACHE as an object graph in text (as ModelCacheArchiveTests.graph renders it): objects
    from the root, each once (later references name it), dictionaries by key, sets by member, arrays in order;
    a UUID or date default (computed by the app at launch) by kind only; NSClassNameForEntity by presence only
    (framework 1345 sets it, later ones do not). None when there is no cache row."""
    con = sqlite3.connect(str(path))
    try:
        row = con.execute("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1").fetchone()
    finally:
        con.close()
    if not row or not row[0]:
        return None
    archive = plistlib.loads(zlib.decompress(bytes(row[0]), -15))
    objects, seen = archive["$objects"], set()

    def class_name(node):
        if isinstance(node, dict) and isinstance(node.get("$class"), plistlib.UID):
            return objects[node["$class"].data].get("$classname")
        return None

    def string_at(value):
        return objects[value.data] if isinstance(value, plistlib.UID) and isinstance(objects[value.data], str) else "?"

    def label(index):
        node = objects[index]
        name = class_name(node)
        if name is None:
            return render(node)
        ident = next((string_at(node[k]) for k in ("NSEntityName", "NSPropertyName", "NSIndexName") if k in node), "")
        return "@%s(%s)" % (name, ident)

    def render(node):
        if isinstance(node, plistlib.UID):
            return "null" if node.data == 0 else obj(node.data)
        if isinstance(node, bool):
            return "true" if node else "false"
        if isinstance(node, str):
            return '"%s"' % node
        if isinstance(node, (int, float)):
            return repr(node)
        if isinstance(node, bytes):
            return "<%s>" % node.hex()
        if isinstance(node, list):
            return "[" + ", ".join(render(n) for n in node) + "]"
        if isinstance(node, dict):
            return "{" + ", ".join("%s: %s" % (k, render(node[k])) for k in sorted(node)) + "}"
        return "?"

    def obj(index):
        node = objects[index]
        name = class_name(node)
        if name is None:
            return render(node)
        if name in ("NSUUID", "NSDate"):
            # By kind, shared or not: equal dates are one object (tagged pointers), which depends on timing.
            return "%s(<launch>)" % name
        if index in seen:
            return label(index)
        seen.add(index)
        fields = {k: v for k, v in node.items() if k != "$class"}
        if name == "NSSet":
            members = sorted((m.data for m in fields.get("NS.objects", [])), key=label)
            return "NSSet{" + ", ".join(obj(m) for m in members) + "}"
        if name in ("NSDictionary", "NSMutableDictionary"):
            pairs = sorted(zip((string_at(k) for k in fields.get("NS.keys", [])), fields.get("NS.objects", [])))
            return name + "{" + ", ".join("%s: %s" % (k, render(v)) for k, v in pairs) + "}"
        if "NSClassNameForEntity" in fields:
            fields["NSClassNameForEntity"] = "<framework-dependent>"
        return name + "{" + ", ".join("%s: %s" % (k, render(fields[k])) for k in sorted(fields)) + "}"

    return obj(archive["$top"]["root"].data)


def pair_differences(migrated, real, unchanged):
    a, b = schema_facts(migrated), schema_facts(real)
    problems = table_differences(b["tables"], a["tables"], "the real store", "the migrated store")
    ai = {name: render_index(index) for name, index in a["indexes"].items()}
    bi = {name: render_index(index) for name, index in b["indexes"].items()}
    for name in sorted(set(ai) | set(bi)):
        if ai.get(name) != bi.get(name):
            problems.append("index %s: %s migrated, %s real" % (name, ai.get(name, "none"), bi.get(name, "none")))
    if [r[:3] for r in a["pk"]] != [r[:3] for r in b["pk"]]:
        problems.append("Z_PRIMARYKEY %s migrated, %s real" % ([r[:3] for r in a["pk"]], [r[:3] for r in b["pk"]]))
    compared = 0
    for key in sorted((set(a["meta"]) | set(b["meta"])) - PAIR_DIFFERING_KEYS):
        if a["meta"].get(key) != b["meta"].get(key):
            problems.append("metadata %s: %r migrated, %r real" % (key, a["meta"].get(key), b["meta"].get(key)))
        else:
            compared += 1
    rows = model_cache_rows(migrated)
    mine, theirs = model_cache_graph(migrated), model_cache_graph(real)
    if rows != 1:
        problems.append("Z_MODELCACHE has %d row(s) after the migration (SwiftData keeps one)" % rows)
    elif mine != theirs:
        at = next((i for i, (x, y) in enumerate(zip(mine or "", theirs or "")) if x != y), min(len(mine or ""), len(theirs or "")))
        problems.append("Z_MODELCACHE differs from the real next store's as an object graph: …%s… vs …%s…" % (
            (mine or "none")[max(0, at - 150):at + 150], (theirs or "none")[max(0, at - 150):at + 150]))
    return problems, len(b["tables"]), len(b["indexes"]), compared


def check_pairs(instar, root, results, workdir):
    facts = json.loads((root / "stores.json").read_text(encoding="utf-8"))
    for number, (before, after, sources, extra, supplies, refused) in enumerate(pairs(facts), 1):
        subject = "swiftdata/%s -> %s" % (before, after)
        if not (root / before).is_file() or not (root / after).is_file():
            results.add(CHECK_SWIFTDATA_PAIR, subject, False, "a store of the pair is missing from the corpus")
            continue
        folder = workdir / ("swiftdata-pair-%d" % number)
        copy = copy_store(root / before, folder)
        args = ["migrate", "--store", str(copy), "--progress", "none"]
        for source in sources:
            args += ["--swiftdata", str(root / source)]
        if supplies:
            unit = folder / "MeasurementUnit.swift"
            unit.write_text(MEASUREMENT_UNIT, encoding="utf-8")
            args += ["--swiftdata", str(unit)]
        status, stdout, stderr = run_process(instar, args + extra)
        note = ""
        if refused:
            # The refusal names every broken condition (each located) and says nothing was changed.
            expected = ["'%s'" % refused, "required and without a default", "nothing was changed"]
            if status != 1 or not all(text in stderr for text in expected):
                results.add(CHECK_SWIFTDATA_PAIR, subject, False, "with the store's rows, expected a refusal naming %s: "
                            "exit %s: %s" % (refused, status, tail(stderr or stdout, 600)))
                continue
            note = "with its rows refused before writing (adds %s, required, no default: Core Data's inferred migration fails on such rows too); " % refused
            remove_rows(copy)
            status, stdout, stderr = run_process(instar, args + extra)
        if status != 0:
            results.add(CHECK_SWIFTDATA_PAIR, subject, False, "migrate --swiftdata: exit %s: %s" % (
                status, tail(stderr or stdout, 800)))
            continue
        # Stores of one schema (MetaCocktails @f1fca611 and @f6051d07): nothing to migrate, the cache stays.
        unchanged = "nothing to do" in stdout
        problems, tables, indexes, keys = pair_differences(copy, copy_store(root / after, folder / "real"), unchanged)
        results.add(CHECK_SWIFTDATA_PAIR, subject, not problems,
                    "%s%s; equal to the real next store: %d tables, %d indexes, Z_PRIMARYKEY, %d metadata keys by value, "
                    "Z_MODELCACHE as an object graph (not compared: %s)" % (note, "already at that schema" if unchanged else
                                            "emptied, migrated" if note else "migrated", tables, indexes, keys,
                                            ", ".join(sorted(PAIR_DIFFERING_KEYS)))
                    if not problems else "; ".join(problems[:12]))


def swift_hooks(instar, sources):
    """Names of the Swift closures of the plan's custom stages (`instar plan --swiftdata --format json`)."""
    status, stdout, _ = run_process(instar, ["plan", "--swiftdata", str(sources), "--format", "json"])
    if status != 0 or not stdout:
        return None
    try:
        steps = json.loads(stdout).get("steps", [])
    except ValueError:
        return None
    return sorted({h["name"] for step in steps for h in step.get("hooks", []) if h.get("kind") == "swift"})


def run_test(instar, sources, copy, hooks_file=None):
    args = ["test", "--swiftdata", str(sources), "--fixtures", str(copy), "--format", "json"]
    if hooks_file:
        args += ["--hooks", str(hooks_file)]
    status, stdout, stderr = run_process(instar, args)
    try:
        report = json.loads(stdout) if stdout else {}
    except ValueError:
        report = {}
    return status, report, stderr


def test_store(instar, sources, store, subject, results, folder):
    hooks = swift_hooks(instar, sources)
    if hooks is None:
        results.add(CHECK_SWIFTDATA_TEST, subject, False, "plan --swiftdata --format json failed")
        return
    copy = copy_store(store, folder / "plain")
    before = copy.read_bytes()
    status, report, stderr = run_test(instar, sources, copy)
    runs = report.get("runs", [])
    if not hooks:
        ok = status == 0 and report.get("passed") is True and len(runs) == 1
        results.add(CHECK_SWIFTDATA_TEST, subject, ok,
                    "migrated to %s, every check passed" % report.get("target") if ok
                    else "test --swiftdata: exit %s: %s" % (status, tail(json.dumps(runs) if runs else stderr, 800)))
        return
    refused = (status == 1 and len(runs) == 1 and copy.read_bytes() == before
               and all(name in json.dumps(runs[0].get("checks", []), ensure_ascii=False) for name in hooks))
    hooks_file = folder / "hooks.yaml"
    hooks_file.write_text("".join('"%s": "SELECT 1"\n' % name for name in hooks), encoding="utf-8")
    stood_in = copy_store(store, folder / "hooks")
    status2, report2, stderr2 = run_test(instar, sources, stood_in, hooks_file)
    ok = refused and status2 == 0 and report2.get("passed") is True
    detail = ("without its Swift hooks (%s) the run refused before writing; with no-op SQL in their place it "
              "migrated to %s, every check passed" % (", ".join(hooks), report2.get("target")))
    if not refused:
        detail = "without its Swift hooks the run did not refuse cleanly: exit %s: %s" % (
            status, tail(json.dumps(runs, ensure_ascii=False) if runs else stderr, 600))
    elif not ok:
        detail = "with no-op SQL hooks: exit %s: %s" % (
            status2, tail(json.dumps(report2.get("runs", []), ensure_ascii=False) if report2 else stderr2, 600))
    results.add(CHECK_SWIFTDATA_TEST, subject, ok, detail)
