"""SwiftData parse-only apps (corpus/swiftdata/_parse_only.json: sources without a store): is each one planned?

An app is *planned* when `instar plan --swiftdata <its files>` exits 0 with its checks passed: the app's
SchemaMigrationPlan (every schema read exactly, stages checked), or, for an unversioned app, its current schema
(the step SwiftData infers needs a shipped store, which a parse-only app does not have). Otherwise it is *refused*,
and the reasons are taken from instar's located errors, in four kinds:
  no store shows `T`           a type whose storage no store of the corpus shows (stays refused: never guessed)
  outside the corpus copy: X   a declaration the compiler would find in a file the corpus copy lacks
  unverified: ...              a SwiftData rule no store shows (e.g. the inverse of a self-relationship)
  other                        the error itself
A planned app's detail lists the mappings the reader assumed (warnings: `Data` → Binary, …): planned, but with
hashes no store has confirmed.

PARSE_ONLY_REFUSED lists each refused app with exactly the reasons it must be refused for. An app refused for
other reasons, a listed app that now plans, and an app that crashes or times out are failures: the figure changes
only on purpose. The figure (planned of all) is printed at the end of the report.
"""
import json
import re

from .common import CHECK_SWIFTDATA_PARSE_ONLY, SOURCES_PASS, run_process, tail

PARSE_ONLY_REFUSED = {
    "CruGlobal+godtools-swift": [
        "outside the corpus copy: BCP47LanguageIdentifier", "outside the corpus copy: SwiftAppLanguageDirection",
        "outside the corpus copy: SwiftResourceViewV1.SwiftResourceView",
        "unverified: inverse of SwiftResource.defaultVariant", "unverified: inverse of SwiftResource.metatool",
        "unverified: inverse of SwiftResource.variants"],
    # A Core Data-backed look-alike of SwiftData, not a SwiftData app (MANIFEST.md §4).
    "Data-swift+ManagedModels": ["outside the corpus copy: Person", "outside the corpus copy: the app's ModelContainer list"],
    # Its plan lists three schemas and no stages: SwiftData's launch check (reachability) refuses it. Its
    # `CGFloat` inside a Codable struct is assumed (Double), no longer a refusal.
    "RogyMD+remember": [
        "other: no stages lead from SchemaV1 to SchemaV2: a store at SchemaV1 cannot be migrated",
        "other: no stages lead from SchemaV2 to SchemaV3: a store at SchemaV2 cannot be migrated"],
    "atomicguy+stereologue": ["outside the corpus copy: the app's ModelContainer list"],
    "awaseem+foqos": ["outside the corpus copy: BlockedProfileSchedule", "outside the corpus copy: FamilyActivitySelection"],
    "bradleymackey+vault-ios": ["outside the corpus copy: PersistedColor"],
    "cculbreath+slidr": [
        "outside the corpus copy: CaptionPosition", "outside the corpus copy: ImportMode",
        "outside the corpus copy: MediaStatus", "outside the corpus copy: MediaType",
        "outside the corpus copy: PlaylistType", "outside the corpus copy: ProductionType",
        "outside the corpus copy: SortOrder", "outside the corpus copy: StorageLocation",
        "outside the corpus copy: ThumbnailSize", "outside the corpus copy: TransitionType",
        "outside the corpus copy: VideoFormat", "outside the corpus copy: VideoPlaybackMode"],
    "kpower+apt-payment": ["outside the corpus copy: Money"],
    "marcosbarbero+fit-iq-workspaces": [
        "outside the corpus copy: ActivityLevel", "outside the corpus copy: MealLogStatus",
        "outside the corpus copy: MealType", "outside the corpus copy: PhysicalAttributeType",
        "outside the corpus copy: SyncStatus", "outside the corpus copy: UnitSystem"],
    "mnbf9rca+family-foqos": [
        "outside the corpus copy: BlockedProfileSchedule",
        "outside the corpus copy: FamilyActivitySelection", "outside the corpus copy: ProfileGeofenceRule"],
}

REASONS = [
    (re.compile(r"`([^`]+)` is a standard type, but no SwiftData store"), lambda m: "no store shows `%s`" % m.group(1)),
    (re.compile(r"`([^`]+)` is not supported: no SwiftData store"), lambda m: "no store shows `%s`" % m.group(1)),
    (re.compile(r"stores `[^:`]+: ([^`]+)` \(.*no store shows how SwiftData nests"),
     lambda m: "no store shows `%s` (inside a composite)" % m.group(1)),
    (re.compile(r"unknown type `([^`]+)`"), lambda m: "outside the corpus copy: %s" % m.group(1)),
    (re.compile(r"`([^`]+)` is not a @Model class declared in these sources"),
     lambda m: "outside the corpus copy: %s" % m.group(1)),
    (re.compile(r"error: (\w+): relationship '(\w+)' to \w+ has no `inverse:`"),
     lambda m: "unverified: inverse of %s.%s" % (m.group(1), m.group(2))),
    (re.compile(r"VersionedSchemas share the newest version identifier"),
     lambda m: "outside the corpus copy: the app's ModelContainer list"),
]
# Errors that follow from others (a plan listing a schema that could not be read) or concern a plan the app
# does not run (a second, backwards DowngradeMigrationPlan beside the one used) name no reason of their own.
CONSEQUENCES = [re.compile(r"the plan \S+ lists \S+, which could not be read"), re.compile(r"the stage goes backwards")]


def refusal_reasons(stderr):
    reasons = set()
    for line in stderr.splitlines():
        if "error:" not in line and "VersionedSchemas share" not in line:
            continue
        if any(c.search(line) for c in CONSEQUENCES):
            continue
        for pattern, reason in REASONS:
            match = pattern.search(line)
            if match:
                reasons.add(reason(match))
                break
        else:
            reasons.add("other: " + re.sub(r"^.*?error: ", "", line.replace("instar: ", ""))[:160])
    return sorted(reasons)


def assumed_mappings(instar, files):
    """Types the reader assumed a mapping for (its warnings), with counts; None when it cannot tell."""
    status, stdout, _ = run_process(instar, ["model", "swiftdata"] + files + ["--format", "json"])
    try:
        diagnostics = json.loads(stdout).get("diagnostics", []) if stdout else []
    except ValueError:
        return None
    counts = {}
    for d in diagnostics:
        match = re.match(r"`([^`]+)` → .* is assumed", d.get("message", ""))
        if d.get("severity") == "warning" and match:
            counts[match.group(1)] = counts.get(match.group(1), 0) + 1
    return counts


def check_parse_only(instar, corpus, results):
    root = corpus / "swiftdata"
    listing = root / "_parse_only.json"
    if not listing.is_file():
        return
    apps = json.loads(listing.read_text(encoding="utf-8"))
    for name in sorted(apps):
        folder = root / name.replace("+", "__")
        files = [str(folder / f) for f in apps[name]["files"]]
        args = ["plan"]
        for f in files:
            args += ["--swiftdata", f]
        status, stdout, stderr = run_process(instar, args)
        expected = PARSE_ONLY_REFUSED.get(name)
        if status is None or status < 0 or status not in (0, 1, 64, 65, 66):
            results.add(CHECK_SWIFTDATA_PARSE_ONLY, name, False, "crashed or timed out: %s" % tail(stderr, 400))
            continue
        planned = status == 0 and SOURCES_PASS in stdout
        if planned:
            summary = next((l for l in stdout.splitlines() if l.startswith("SwiftData plan ")), "planned")
            what = ("unversioned: the current schema" if summary.startswith("SwiftData plan inferred")
                    else summary.replace("SwiftData plan ", "SchemaMigrationPlan "))
            if "every @Model class" in stderr:
                what += " (every @Model class: the corpus copy has no container list)"
            assumed = assumed_mappings(instar, files)
            if assumed:
                what += "; assumed mappings (no store shows them): " + ", ".join(
                    "`%s` ×%d" % (t, n) for t, n in sorted(assumed.items()))
            ok = expected is None
            results.add(CHECK_SWIFTDATA_PARSE_ONLY, name, ok, ("planned: " + what) if ok else
                        "planned (%s), but PARSE_ONLY_REFUSED lists it: remove it there" % what)
            continue
        reasons = refusal_reasons(stderr)
        detail = "refused: " + "; ".join(reasons or ["no located error: " + tail(stderr, 300)])
        if expected is None:
            results.add(CHECK_SWIFTDATA_PARSE_ONLY, name, False, detail + " (expected planned)")
        elif sorted(expected) != reasons:
            results.add(CHECK_SWIFTDATA_PARSE_ONLY, name, False, detail + " (PARSE_ONLY_REFUSED expects: %s)" % "; ".join(sorted(expected)))
        else:
            results.add(CHECK_SWIFTDATA_PARSE_ONLY, name, True, detail)


def parse_only_figure(results):
    """The figure: planned of all parse-only apps, and the refusals by kind; None when the check did not run."""
    items = [r for r in results.items if r["check"] == CHECK_SWIFTDATA_PARSE_ONLY]
    if not items:
        return None
    planned = [r for r in items if r["detail"].startswith("planned:")]
    assumed = [r for r in planned if "assumed mappings" in r["detail"]]
    refused = [r for r in items if r["detail"].startswith("refused:")]
    kinds = {"no store shows": 0, "outside the corpus copy": 0, "unverified": 0, "other": 0}
    for r in refused:
        for kind in kinds:
            if kind in r["detail"]:
                kinds[kind] += 1
    only_missing = sum(1 for r in refused if all(part.strip().startswith("outside the corpus copy")
                                                   for part in r["detail"][len("refused: "):].split(";")))
    return {
        "apps": len(items), "planned": len(planned), "planned_with_assumed_mappings": len(assumed),
        "refused": len(refused), "refused_only_for_files_outside_the_copy": only_missing,
        "refused_naming": kinds,
        "text": "SwiftData parse-only apps: %d of %d planned (%d%%), %d of them with assumed mappings; %d refused "
                "with reasons (apps naming: a type no store shows %d, a declaration outside the corpus copy %d, "
                "an unverified rule %d, other %d; %d refused only for files the corpus copy lacks)" % (
                    len(planned), len(items), round(100.0 * len(planned) / len(items)), len(assumed), len(refused),
                    kinds["no store shows"], kinds["outside the corpus copy"], kinds["unverified"], kinds["other"],
                    only_missing),
    }
