"""Store discovery, metadata, matching a store to a version, and the documented exceptions."""

import json
import os
import plistlib
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

from instar_scripts.stores import SIDECARS, is_sqlite

from .common import (CHECK_CHECKSUM, CHECK_DIGEST, CHECK_STORE, ascii_upper, copy_store, core_data_order,
                     framework_version, natural_key, short_list)
from .exceptions import KNOWN_BAD_STORES, KNOWN_DRIFT, KNOWN_DRIFT_VERSION, MERGED_MODEL, NOT_IN_BUNDLE
from .models import xml_version_identifier


class StoreRecord:
    def __init__(self, corpus, path):
        self.path = path
        rel = path.relative_to(corpus)
        self.repo = rel.parts[0]
        self.rel = Path(*rel.parts[1:]).as_posix()
        self.subject = rel.as_posix()
        self.meta = {}
        self.hashes = {}
        self.tables = {}        # table -> [columns]
        self.pk = []            # Z_PRIMARYKEY rows
        self.status = "unread"
        self.version = None     # the matched Version (or the version a known-drift store was written by)
        self.tied = []          # other versions of the same bundle with the store's entity hashes
        self.tie_note = ""
        self.skip = None        # known drift: excluded from the Core Data layout checks, with the reason
        self.detail = ""

    @property
    def identifiers(self):
        value = self.meta.get("NSStoreModelVersionIdentifiers")
        return list(value) if isinstance(value, (list, tuple)) else None

    @property
    def matched(self):
        return self.status == "matched"


def discover_stores(corpus):
    """Every file under the corpus (`_analysis` excluded) that starts with the SQLite header and is not a
    -wal/-shm/-journal sidecar."""
    found = []
    # `swiftdata/` holds stores written from Swift sources, not Xcode models: they are found here for the
    # model-cache check, kept out of the matching against bundles (match_stores), and checked against
    # their sources by corpus_checks/swiftdata.py.
    for repo_dir in sorted(p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        for dirpath, dirnames, filenames in os.walk(repo_dir):
            dirnames[:] = sorted(d for d in dirnames if d != "_analysis")
            for name in sorted(filenames):
                if name.endswith(SIDECARS):
                    continue
                path = Path(dirpath) / name
                if is_sqlite(path):
                    found.append(path)
    return found


def read_store_facts(record, workdir):
    """Copies the store (with its sidecars) and reads Z_METADATA's plist, tables and Z_PRIMARYKEY (WAL applied)."""
    copy = copy_store(record.path, workdir)
    con = sqlite3.connect(str(copy))
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        if "Z_METADATA" not in names:
            raise ValueError("no Z_METADATA table (tables: %s)" % short_list(sorted(names)))
        row = con.execute("SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1").fetchone()
        if row is None or not isinstance(row[0], (bytes, bytearray)):
            raise ValueError("Z_METADATA has no Z_PLIST blob")
        record.tables = {t: [c[1] for c in con.execute('PRAGMA table_info("%s")' % t.replace('"', '""'))]
                         for t in names}
        if "Z_PRIMARYKEY" in names:
            record.pk = [tuple(r) for r in con.execute("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY")]
    finally:
        con.close()
    meta = plistlib.loads(bytes(row[0]))
    if not isinstance(meta, dict):
        raise ValueError("Z_PLIST is not a dictionary")
    hashes = meta.get("NSStoreModelVersionHashes")
    if not isinstance(hashes, dict) or not hashes or not all(isinstance(v, bytes) for v in hashes.values()):
        raise ValueError("Z_PLIST has no NSStoreModelVersionHashes of data values")
    record.meta = meta
    record.hashes = dict(hashes)


def load_hints(corpus, notes):
    """stores.json (optional): subject -> its `ties` hints (schema matches), used to break ties only."""
    try:
        catalog = json.loads((corpus / "stores.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        notes.append("stores.json not used: %s" % error)
        return {}
    hints = {}
    for repo, entries in catalog.items():
        for entry in entries or []:
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                ties = [tuple(t[:2]) for t in entry.get("ties") or [] if isinstance(t, (list, tuple)) and len(t) >= 2]
                hints["%s/%s" % (repo, entry["path"])] = ties
    return hints


def closest_version(store_hashes, candidates, ties):
    """The version with most equal entity hashes; ties broken by stores.json `ties`."""
    tie_rank = {}
    for i, tie in enumerate(ties or []):
        if isinstance(tie, (list, tuple)) and len(tie) >= 2:
            tie_rank.setdefault((tie[0], tie[1]), i)

    def key(v):
        equal = sum(1 for n, h in store_hashes.items() if v.hashes.get(n) == h)
        common = len(set(store_hashes) & set(v.hashes))
        odd = len(set(store_hashes) ^ set(v.hashes))
        rank = tie_rank.get((v.bundle, v.name), len(tie_rank) + 1)
        return (-equal, rank, -common, odd)

    return sorted(candidates, key=key)[0] if candidates else None


def explain_drift(store_hashes, version, candidates):
    equal = sorted((n for n, h in store_hashes.items() if version.hashes.get(n) == h), key=core_data_order)
    differ = sorted((n for n in store_hashes if n in version.hashes and version.hashes[n] != store_hashes[n]),
                    key=core_data_order)
    missing = sorted(set(version.hashes) - set(store_hashes), key=core_data_order)
    extra = sorted(set(store_hashes) - set(version.hashes), key=core_data_order)
    # Where else does each non-matching store entity hash occur? ("in no model version" = the store was
    # written by a model revision that is not in the corpus.)
    provenance = {}
    for name in differ + extra:
        seen = [v.label for v in candidates if v.hashes.get(name) == store_hashes[name]]
        provenance[name] = seen
    text = "closest version %s in %s: %d/%d entity hashes equal; differ: %s; in model but not in store: %s; " \
           "in store but not in model: %s" % (
               version.name, version.bundle or "(stand-alone)", len(equal), len(store_hashes),
               short_list(differ), short_list(missing), short_list(extra))
    if provenance:
        text += "; store hash of " + "; ".join(
            "%s %s" % (n, ("equals that of " + ", ".join(seen)) if seen
                       else "is in no model version")
            for n, seen in provenance.items())
    return text, {"closest_bundle": version.bundle, "closest_version": version.name, "equal": equal,
                  "differ": differ, "missing": missing, "extra": extra, "hash_found_in": provenance}

def proximity(record, version):
    """How many leading folders the store's path shares with the version's bundle path."""
    store_parts = Path(record.rel).parts[:-1]
    bundle_parts = Path(version.bundle).parts if version.bundle else ()
    shared = 0
    for a, b in zip(store_parts, bundle_parts):
        if a != b:
            break
        shared += 1
    return shared


def choose_version(record, exact, hints):
    """Among the versions with exactly the store's hashes: the bundle nearest the store (stores.json
    ties break a tie), then within it the version NSStoreModelVersionIdentifiers designates."""
    hint = hints.get(record.subject) or []

    def key(v):
        return (-proximity(record, v), 0 if (v.bundle, v.name) in hint else 1, v.bundle or "", natural_key(v.name))

    best = sorted(exact, key=key)[0]
    same = sorted((v for v in exact if v.bundle == best.bundle), key=lambda v: natural_key(v.name))
    elsewhere = [v for v in exact if v.bundle != best.bundle]
    notes = []
    if elsewhere:
        notes.append("identical hashes also in %d other bundle(s) farther from the store: %s" % (
            len(elsewhere), short_list(sorted("%s#%s" % (v.bundle, v.name) for v in elsewhere), 4)))
    if len(same) > 1:
        ids = record.identifiers
        by_id = {v.name: xml_version_identifier(v.path) for v in same}
        designated = [v for v in same if ids is not None and by_id[v.name] in ids]
        names = ", ".join("'%s' (identifier %r)" % (v.name, by_id[v.name]) for v in same)
        if len(designated) == 1:
            best = designated[0]
            notes.append("versions %s have identical entity hashes; NSStoreModelVersionIdentifiers %r designates "
                         "'%s'" % (names, ids, best.name))
        else:
            best = same[0]
            record.tied = same
            notes.append("versions %s have identical entity hashes and NSStoreModelVersionIdentifiers %r cannot "
                         "tell them apart: any of them is right" % (names, ids))
    record.tie_note = "; ".join(notes)
    return best


def entity_facts(store_hashes, version):
    return {
        "equal": sorted(n for n, h in store_hashes.items() if version.hashes.get(n) == h),
        "differ": sorted(n for n in store_hashes if n in version.hashes and version.hashes[n] != store_hashes[n]),
        "missing": sorted(set(version.hashes) - set(store_hashes)),
        "extra": sorted(set(store_hashes) - set(version.hashes)),
    }


def where_hash_occurs(record, name, all_versions):
    return ["%s/%s#%s" % (v.repo, v.bundle, v.name) for v in all_versions
            if v.ok and name in record.hashes and v.hashes.get(name) == record.hashes[name]]


def xml_attribute_columns(version):
    root = ET.parse(version.path / "contents").getroot()
    return {"Z" + ascii_upper(a.get("name")) for a in root.iter("attribute")}


def verify_not_in_bundle(corpus, record, spec, candidates, all_versions):
    """The listed facts of a store whose version is not in the corpus: (problems, description)."""
    e = spec["expect"]
    problems, said = [], []
    closest = closest_version(record.hashes, candidates, None) if candidates else None
    if e.get("no_model"):
        if candidates:
            problems.append("the repository has model versions (%d)" % len(candidates))
        else:
            said.append("no model version of the repository in the corpus")
    if "closest" in e:
        if closest is None or (closest.bundle, closest.name) != tuple(e["closest"]):
            problems.append("closest version is %s, expected %s" % (closest.label if closest else "none", e["closest"]))
    facts = entity_facts(record.hashes, closest) if closest else {"equal": [], "differ": [], "missing": [],
                                                                "extra": sorted(record.hashes)}
    for kind in ("equal", "differ", "missing", "extra"):
        if kind in e and facts[kind] != sorted(e[kind]):
            problems.append("entities %s: %s, expected %s" % (kind, short_list(facts[kind]), short_list(e[kind])))
    if closest:
        said.append("closest '%s': %d/%d entity hashes equal, differ: %s, missing: %s, extra: %s" % (
            closest.name, len(facts["equal"]), len(record.hashes), short_list(facts["differ"]),
            short_list(facts["missing"]), short_list(facts["extra"])))
    for name in e.get("nowhere", []):
        found = where_hash_occurs(record, name, all_versions)
        if name not in record.hashes or found:
            problems.append("%s: %s" % (name, "not in the store" if name not in record.hashes
                                        else "hash found in " + short_list(found, 3)))
    if e.get("nowhere"):
        said.append("hashes of %s in no model version of the corpus" % ", ".join(e["nowhere"]))
    if e.get("compiled"):
        try:
            info = plistlib.loads((corpus / record.repo / e["compiled"]).read_bytes())
            compiled = info.get("NSManagedObjectModel_VersionHashes") or {}
            if closest is None or compiled.get(closest.name) != closest.hashes:
                problems.append("compiled %s does not equal the XML version" % e["compiled"])
            if any(h == record.hashes for h in compiled.values()):
                problems.append("a compiled version in %s has the store's hashes" % e["compiled"])
            said.append("the compiled model (%s) has the same %d version(s) as the XML" % (
                Path(e["compiled"]).parent.name, len(compiled)))
        except (OSError, ValueError, plistlib.InvalidFileException) as error:
            problems.append("cannot read %s: %s" % (e["compiled"], error))
    for table, columns in (e.get("lacks_columns") or {}).items():
        implied = xml_attribute_columns(closest) if closest else set()
        for column in columns:
            if table not in record.tables or column in record.tables[table] or column not in implied:
                problems.append("expected %s.%s implied by the model and absent from the store" % (table, column))
        said.append("%s lacks %s" % (table, ", ".join(columns)))
    if "framework" in e and framework_version(record.meta) != e["framework"]:
        problems.append("framework %s, expected %s" % (framework_version(record.meta), e["framework"]))
    if "identifiers" in e and record.identifiers != e["identifiers"]:
        problems.append("identifiers %r, expected %r" % (record.identifiers, e["identifiers"]))
    for table in e.get("tables", []):
        if table not in record.tables:
            problems.append("table %s missing" % table)
    if "entity_numbers" in e:
        names = {r[0]: r[1] for r in record.pk}
        wrong = ["%d=%s" % (n, names.get(n)) for n, name in sorted(e["entity_numbers"].items()) if names.get(n) != name]
        if wrong:
            problems.append("Z_PRIMARYKEY rows %s, expected %s" % (", ".join(wrong), e["entity_numbers"]))
        else:
            said.append("Z_PRIMARYKEY %s" % ", ".join("%d %s" % kv for kv in sorted(e["entity_numbers"].items())))
    return problems, "; ".join(said)


def verify_merged(record, spec, all_versions):
    """Every entity of a merged-model store has the hash of a version of the bundle `parts` names, and those
    versions' identifiers are the store's: (problems, description)."""
    problems, said, identifiers = [], [], set()
    for entity, (repo, bundle) in sorted(spec["parts"].items()):
        same = [v for v in all_versions if v.ok and v.repo == repo and v.bundle == bundle
                and entity in record.hashes and v.hashes.get(entity) == record.hashes[entity]]
        if not same:
            problems.append("%s's hash equals no version of %s/%s" % (entity, repo, bundle))
            continue
        said.append("%s = '%s' of %s/%s" % (entity, same[0].name, repo, Path(bundle).name))
        identifiers.add(xml_version_identifier(same[0].path))
    unlisted = sorted(set(record.hashes) - set(spec["parts"]))
    if unlisted:
        problems.append("entities not accounted for: %s" % ", ".join(unlisted))
    if record.identifiers is None or identifiers != set(record.identifiers):
        problems.append("the versions' identifiers %s are not the store's %r" % (
            sorted(identifiers), record.identifiers))
    else:
        said.append("identifiers %r = those of these versions" % record.identifiers)
    return problems, "; ".join(said)


def match_stores(corpus, versions_by_repo, results, drift, workroot, notes):
    """Discovers the stores, reads them and gives each a status; adds the store-hashes, store-digest and
    store-checksum results. Returns the StoreRecords."""
    hints = load_hints(corpus, notes)
    all_versions = [v for vs in versions_by_repo.values() for v in vs]
    records = []
    for number, path in enumerate(discover_stores(corpus), 1):
        record = StoreRecord(corpus, path)
        records.append(record)
        subject = record.subject
        try:
            read_store_facts(record, workroot / ("store%03d" % number))
        except Exception as error:  # sqlite3, plistlib, OS errors
            record.status, record.detail = "UNREADABLE", str(error)
            results.add(CHECK_STORE, subject, False, "cannot read the store's metadata: %s" % error)
            continue
        if record.repo == "swiftdata":
            # Their models are Swift sources, not bundles: the SwiftData tests match them from those
            # sources, and the model-cache check reads the model each store carries.
            record.status = "SwiftData"
            record.detail = "a SwiftData store: matched from its Swift sources by the SwiftData tests, and by model-cache"
            continue
        repo_versions = versions_by_repo.get(record.repo, [])
        candidates = [v for v in repo_versions if v.ok]
        broken = len(repo_versions) - len(candidates)
        broken_note = (" (%d model version(s) of this repo failed model-hashes and could not be considered)"
                       % broken) if broken else ""
        exact = [v for v in candidates if v.hashes == record.hashes]
        listed = [name for name, table in (("KNOWN_DRIFT", KNOWN_DRIFT), ("NOT_IN_BUNDLE", NOT_IN_BUNDLE),
                                           ("MERGED_MODEL", MERGED_MODEL)) if subject in table]
        if exact:
            v = choose_version(record, exact, hints)
            record.version = v
            if listed:
                record.status = "STALE LISTING"
                record.detail = "listed in %s but matches %s exactly" % (", ".join(listed), v.label)
                results.add(CHECK_STORE, subject, False, record.detail + ": update the list")
                continue
            record.status = "matched"
            record.detail = "matched %s by hashes" % v.label + ("; " + record.tie_note if record.tie_note else "")
            if subject in KNOWN_BAD_STORES:
                record.detail += "; known bad: " + KNOWN_BAD_STORES[subject]
            results.add(CHECK_STORE, subject, True, record.detail)
            store_digest = record.meta.get("NSStoreModelVersionHashesDigest")
            if store_digest is not None:
                ok = store_digest == v.digest
                results.add(CHECK_DIGEST, subject, ok, "equals %s" % v.label if ok else
                            "store %s… != %s %s…" % (str(store_digest)[:20], v.label, v.digest[:20]))
            store_checksum = record.meta.get("NSStoreModelVersionChecksumKey")
            if store_checksum is not None:
                ok = store_checksum == v.checksum
                results.add(CHECK_CHECKSUM, subject, ok, "equals %s" % v.label if ok else
                            "store %s != %s %s" % (store_checksum, v.label, v.checksum))
            continue
        if subject in NOT_IN_BUNDLE or subject in MERGED_MODEL:
            if subject in NOT_IN_BUNDLE:
                spec = NOT_IN_BUNDLE[subject]
                record.status = "not in bundle"
                problems, said = verify_not_in_bundle(corpus, record, spec, candidates, all_versions)
            else:
                spec = MERGED_MODEL[subject]
                record.status = "merged model, partial"
                problems, said = verify_merged(record, spec, all_versions)
            record.detail = "%s [verified: %s]" % (spec["reason"], said)
            if problems:
                record.status += " (UNVERIFIED)"
                results.add(CHECK_STORE, subject, False, "listed as %s (%s) but: %s" % (
                    record.status, spec["reason"], "; ".join(problems)))
            else:
                results.add(CHECK_STORE, subject, True, "%s: %s" % (record.status, record.detail))
            continue
        if not candidates:
            record.status, record.detail = "UNMATCHED", "no parsed model version in %s%s" % (record.repo, broken_note)
            results.add(CHECK_STORE, subject, False, record.detail)
            continue
        closest = closest_version(record.hashes, candidates, hints.get(subject))
        text, facts = explain_drift(record.hashes, closest, candidates)
        if not facts["equal"]:
            text += "; no model version of %s shares an entity hash with this store (store entities: %s)" % (
                record.repo, short_list(sorted(record.hashes, key=core_data_order)))
        text += broken_note
        known = KNOWN_DRIFT.get(subject)
        entry = {"store": subject, "known": known is not None, "reason": known, "explanation": text}
        entry.update(facts)
        drift.append(entry)
        if known is not None:
            record.status, record.detail, record.skip = "known drift", known, known
            written_by = [x for x in repo_versions if x.name == KNOWN_DRIFT_VERSION.get(subject)]
            record.version = written_by[0] if written_by else None
            results.add(CHECK_STORE, subject, True, "known drift (%s); closest %s" % (known, closest.label))
        else:
            record.status = "UNMATCHED"
            record.detail = "no model version matches exactly: closest %s, %d/%d entity hashes equal" % (
                closest.label, len(facts["equal"]), len(record.hashes))
            results.add(CHECK_STORE, subject, False, "%s; details in the DRIFT list%s" % (record.detail, broken_note))
    return records
