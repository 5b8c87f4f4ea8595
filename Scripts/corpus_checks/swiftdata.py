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
"""
import json

from .common import CHECK_SWIFTDATA, CHECK_SWIFTDATA_TEST, copy_store, run_process, tail

# Which sources wrote which store: (repo folder prefix, sources relative to corpus/swiftdata, versioned).
SOURCES = [
    ("TrinsicVentures__FreezeRay/", "TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRayTestApp", True),
    ("AndreiMaksimovich__SwiftDeveloperBlog/",
     "AndreiMaksimovich__SwiftDeveloperBlog/06 - SwiftData Migration/06 - SwiftData Migration/Lib/AppData", True),
    ("nobelnrj__myhome/", "nobelnrj__myhome/MyHomeApp", True),
    ("sergd2005__ResourcesManager/@4517a277/", "sergd2005__ResourcesManager/@4517a277/ResourcesManager", False),
]
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
            ok = status == 0 and len(written) == 1 and "checks: passed" in stdout
            results.add(CHECK_SWIFTDATA, subject, ok,
                        written[0] if ok else "plan --swiftdata: exit %s: %s" % (status, tail(stderr or stdout, 800)))
            test_store(instar, root / sources, root / path, subject, results, workdir / ("swiftdata-test-%d" % number))
        else:
            classes = ",".join(sorted(store["hashes"]))
            status, stdout, stderr = run_process(
                instar, ["model", "swiftdata", str(root / sources), "--classes", classes, "--format", "json"])
            try:
                schemas = json.loads(stdout).get("schemas", []) if stdout else []
            except ValueError:
                schemas = []
            built = [s for s in schemas if sorted(s.get("classes", [])) and s.get("name") == "Schema"]
            ok = status == 0 and len(built) == 1 and built[0].get("entities") == store["hashes"]
            results.add(CHECK_SWIFTDATA, subject, ok,
                        "entity hashes of Schema([%s]) equal the store's" % classes if ok
                        else "model swiftdata --classes: exit %s: %s" % (status, tail(stderr or stdout, 800)))


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
