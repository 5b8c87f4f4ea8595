"""SwiftData stores (corpus/swiftdata): each is matched, through `instar`, to the schema read from the app's
Swift sources that wrote it.

Versioned apps (FreezeRay, SwiftDeveloperBlog, myhome): `instar plan --swiftdata <sources> --store <copy>` must
accept the app's real SchemaMigrationPlan (checksums distinct, lightweight stages inferable, every schema
reachable) and name the schema the store was written by. Unversioned apps (`Schema([...])` built at run time):
`instar model swiftdata <sources> --classes <the store's entities> --format json` must give the store's entity
hashes. MetaCocktails is left to the Swift corpus test (SwiftDataCorpusTests), which supplies the one declaration
the corpus copy lacks (`MeasurementUnit`); the script does not invent sources.
"""
import json

from .common import CHECK_SWIFTDATA, copy_store, run_process, tail

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
