"""model-cache: every store with a Z_MODELCACHE row (Core Data from framework 600 on, and SwiftData) is
described from its own cached model, and that model hashes as the store's metadata says.

Per store, on a copy: `instar inspect --store COPY --format json` (no --model) must report the cache with
`hashesMatchMetadata` true and the store's NSStoreModelVersionIdentifiers as its identifier; then
`instar model export --store COPY --output F` and `instar model hashes F --format json` must give exactly
the store's NSStoreModelVersionHashes (compared here, from the store's own Z_PLIST). A store whose cache
cannot match for a verified reason is listed in CACHE_MISMATCH, and passes when exactly the listed entities
differ and instar refuses to export it.
"""

import json
import sqlite3

from .common import CHECK_MODELCACHE, b64decode_strict, copy_store, run_process, tail

# Stores whose cache Instar cannot stand in for, each with the text instar's refusal must contain and the
# verified reason. SampleModel2 (a model built in Swift code, not in the corpus) has, in its cache:
# - `Author.books` with NSMaxCount -1 (an unbounded to-many set from code; momc writes 0), which Instar
#   refuses as a negative count. The store's own hash for Author uses -1 as the int32 maximum count
#   (checked by hand: hashing it so reproduces Author's metadata hash);
# - `Book.pagesCount`, an NSDerivedAttributeDescription (derivation `count:(pages)`): Core Data hashes a
#   derived attribute as SHA-256 of its derivation's predicate format alone, checked by hand (it
#   reproduces Book's and GraphicNovel's metadata hashes); Instar reads derived attributes as plain ones.
# See docs/coredata-layout.md, "A store's own model".
_CODE_MODEL = ("negative count in object", "code-defined model: NSMaxCount -1 on Author.books (refused), and a "
               "derived attribute Book.pagesCount that Instar would hash as a plain one")
CACHE_MISMATCH = {
    "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite": _CODE_MODEL,
    "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite": _CODE_MODEL,
}


def has_cache(copy):
    """Whether a store (a copy: stores are never opened in place) has a non-empty Z_MODELCACHE.Z_CONTENT."""
    con = sqlite3.connect(str(copy))
    try:
        row = con.execute('SELECT "Z_CONTENT" FROM "Z_MODELCACHE" LIMIT 1').fetchone()
    finally:
        con.close()
    return row is not None and isinstance(row[0], (bytes, bytearray)) and len(row[0]) > 0


def run_modelcache_checks(instar, records, results, pool, folder):
    """Submits one check per store with a cache; returns a function that collects them into `results`."""
    tasks = [(r, pool.submit(check_modelcache, instar, r, folder())) for r in records if "Z_MODELCACHE" in r.tables]

    def collect():
        for record, future in tasks:
            try:
                outcome = future.result()
            except Exception as error:  # a bug in this script must not hide the other results
                outcome = (False, "checker error: %r" % error)
            if outcome is not None:  # None: an empty cache table (Instar empties it when it migrates)
                results.add(CHECK_MODELCACHE, record.subject, *outcome)
    return collect


def check_modelcache(instar, record, folder):
    """(ok, detail) of one store with a Z_MODELCACHE table; None when the table is empty."""
    copy = copy_store(record.path, folder)
    if not has_cache(copy):
        return None
    status, stdout, stderr = run_process(instar, ["inspect", "--store", copy, "--format", "json"])
    listed = CACHE_MISMATCH.get(record.subject)
    if listed:
        return judge_listed(instar, copy, folder, listed, status, stdout + stderr)
    try:
        cache = json.loads(stdout)["cache"]
    except (ValueError, KeyError, TypeError):
        return False, "inspect without --model exited %s without a cache report: %s" % (status, tail(stderr or stdout))
    entities = len(cache.get("entities") or [])
    said = "%d entities, identifier %r, %d bytes DEFLATE -> %d" % (
        entities, cache.get("versionIdentifier"), cache.get("compressedBytes", 0), cache.get("archiveBytes", 0))
    if status != 0 or cache.get("hashesMatchMetadata") is not True:
        return False, "the cache's hashes are not the metadata's (exit %s): %s" % (
            status, "; ".join(cache.get("metadataConflicts") or ["?"]))
    identifiers = record.meta.get("NSStoreModelVersionIdentifiers") or [""]
    if (cache.get("versionIdentifier") or "") not in identifiers:
        return False, "identifier %r is not among the store's %r" % (cache.get("versionIdentifier"), identifiers)
    output = folder / "exported.yaml"
    status, stdout, stderr = run_process(instar, ["model", "export", "--store", copy, "--output", output])
    if status != 0:
        return False, "model export exited %s: %s" % (status, tail(stderr or stdout))
    status, stdout, stderr = run_process(instar, ["model", "hashes", output, "--format", "json"])
    try:
        exported = {name: b64decode_strict(value) for name, value in json.loads(stdout)["entities"].items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return False, "model hashes of the export exited %s: %s" % (status, tail(stderr or stdout))
    if exported != record.hashes:
        differing = sorted(n for n in set(exported) | set(record.hashes) if exported.get(n) != record.hashes.get(n))
        return False, "the exported model's hashes differ from the metadata for %s" % ", ".join(differing)
    return True, said + "; hashes = metadata, export reads back to them"


def judge_listed(instar, copy, folder, listed, status, output):
    """A listed store passes when inspect refuses or disagrees with the expected reason, and export refuses."""
    expected, reason = listed
    if status == 0:
        return False, "listed in CACHE_MISMATCH but instar now reads the cache as the store's model: update the list"
    if expected not in output:
        return False, "listed (%s), but instar (exit %s) says: %s" % (expected, status, tail(output))
    exported = folder / "exported.yaml"
    status, stdout, stderr = run_process(instar, ["model", "export", "--store", copy, "--output", exported])
    if status == 0 or exported.exists():
        return False, "model export of an unusable cache exited %s (expected a refusal)" % status
    return True, "not matched, as listed: %s (inspect and export refuse)" % reason
