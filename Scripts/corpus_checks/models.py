"""Model bundles and versions, MANIFEST.md, mapping models; the `model-hashes` and `diff` checks."""

import base64
import hashlib
import json
import os
import re
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

from .common import b64decode_strict, core_data_order, natural_key, run_instar, short_list


class Version:
    def __init__(self, repo, bundle, name, path):
        self.repo = repo        # corpus folder, e.g. "apptentive__apptentive-ios"
        self.bundle = bundle    # bundle path relative to the repo folder ("" for stand-alone)
        self.name = name        # version name, folder name without ".xcdatamodel"
        self.path = path        # absolute Path of the .xcdatamodel folder
        self.ok = False
        self.hashes = None      # entity name -> bytes
        self.checksum = None
        self.digest = None

    @property
    def subject(self):
        return "%s/%s" % (self.repo, self.path_in_repo)

    @property
    def path_in_repo(self):
        return "%s/%s.xcdatamodel" % (self.bundle, self.name) if self.bundle else self.name + ".xcdatamodel"

    @property
    def label(self):
        bundle_name = Path(self.bundle).name if self.bundle else "(stand-alone)"
        return "'%s' (%s)" % (self.name, bundle_name)


class Bundle:
    def __init__(self, repo, rel, path, versions):
        self.repo = repo
        self.rel = rel
        self.path = path
        self.versions = versions  # name -> Version


def discover_models(corpus):
    bundles = []
    for repo_dir in sorted(p for p in corpus.iterdir() if p.is_dir()):
        if repo_dir.name.startswith(("_", ".")):
            continue
        repo = repo_dir.name
        for dirpath, dirnames, _ in os.walk(repo_dir):
            dirnames[:] = sorted(d for d in dirnames if d != "_analysis")
            here = Path(dirpath)
            if here.suffix == ".xcdatamodeld":
                rel = here.relative_to(repo_dir).as_posix()
                versions = {}
                for d in dirnames:
                    if d.endswith(".xcdatamodel"):
                        name = d[: -len(".xcdatamodel")]
                        versions[name] = Version(repo, rel, name, here / d)
                bundles.append(Bundle(repo, rel, here, versions))
                dirnames[:] = []
            elif here.suffix == ".xcdatamodel":  # stand-alone model outside a bundle
                rel = here.parent.relative_to(repo_dir).as_posix()
                rel = "" if rel == "." else rel
                name = here.name[: -len(".xcdatamodel")]
                v = Version(repo, rel, name, here)
                bundles.append(Bundle(repo, None, here, {name: v}))
                dirnames[:] = []
    return bundles


def parse_manifest(path):
    """Returns (orders, steps) from MANIFEST.md.

    orders: (repo folder, bundle rel path) -> [version names] from "Version order used" lines.
    steps:  list of dicts for every "- step A → B" line, with the flag text if flagged."""
    orders, steps = {}, []
    if not path.is_file():
        return orders, steps
    repo = bundle = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("## "):
            m = re.match(r"^## ([^\s/]+)/(\S+)\s*$", line)
            repo = "%s__%s" % (m.group(1), m.group(2)) if m else None
            bundle = None
            continue
        m = re.match(r"^### bundle `([^`]+)`", line)
        if m:
            bundle = m.group(1)
            continue
        if line.startswith("### "):
            bundle = None
            continue
        if repo is None or bundle is None:
            continue
        m = re.match(r"^Version order used[^:]*:\s*(.*)$", line)
        if m:
            orders[(repo, bundle)] = re.findall(r"`([^`]+)`", m.group(1))
            continue
        m = re.match(r"^\s*- step (.+?) → (.+?): (\d+) change\(s\)(.*)$", line)
        if m:
            rest = m.group(4)
            flag = re.search(r"\*\*possibly NOT lightweight-inferable:\s*([^*]+)\*\*", rest)
            if "no mapping model" in rest:
                mapping = "no mapping model"
            else:
                maps = [p for p in re.findall(r"`([^`]+)`", rest) if "xcmapping" in p]
                mapping = ("mapping model: " + ", ".join(Path(p).parent.name for p in maps)) if maps else "?"
            steps.append({"repo": repo, "bundle": bundle, "older": m.group(1), "newer": m.group(2),
                          "manifest_changes": int(m.group(3)), "mapping": mapping,
                          "flag": flag.group(1).strip() if flag else None})
    return orders, steps


def xml_entity_names(version_path):
    root = ET.parse(version_path / "contents").getroot()
    return {e.get("name") for e in root.findall("entity")}


# Mapping models whose recorded model paths do not name a version of the bundle, with the step they map
# and why. Key: "<repo folder>/<path of the .xcmappingmodel folder>".
MAPPING_MODEL_STEPS = {
    # Its sourcemodelpath is CareKitStore2.0 but its destinationmodelpath names `CareKitStore2.2.xcdatamodel`,
    # a version that is not in the bundle (2.0, 2.1, 3.0); its folder `2_0To2_1` and file name say 2.0 -> 2.1,
    # and the app registers it for that step.
    "carekit-apple__CareKit/CareKitStore/CareKitStore/CoreData/Migrations/2_0To2_1/2.0_2.1_Mapping.xcmappingmodel":
        ("CareKitStore2.0", "CareKitStore2.1"),
}


def discover_mapping_models(corpus, bundles, notes):
    """(repo, bundle rel, older, newer) -> "mapping model: <name>" for every `*.xcmappingmodel` folder
    whose xcmapping.xml `sourcemodelpath`/`destinationmodelpath` name two versions of one bundle of its
    repository (or that MAPPING_MODEL_STEPS places)."""
    by_repo = {}
    for b in bundles:
        if b.rel is not None:
            by_repo.setdefault(b.repo, []).append(b)
    steps = {}
    for repo_dir in sorted(p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        for dirpath, dirnames, _ in os.walk(repo_dir):
            dirnames[:] = sorted(d for d in dirnames if d != "_analysis")
            here = Path(dirpath)
            if here.suffix != ".xcmappingmodel":
                continue
            dirnames[:] = []
            key = "%s/%s" % (repo_dir.name, here.relative_to(repo_dir).as_posix())
            paths = {}
            try:
                text = (here / "xcmapping.xml").read_text(encoding="utf-8", errors="replace")
                for which in ("source", "destination"):
                    m = re.search(r'<attribute name="%smodelpath"[^>]*>([^<]*)<' % which, text)
                    paths[which] = m.group(1) if m else ""
            except OSError as error:
                notes.append("mapping model %s unreadable: %s" % (key, error))
                continue
            names = {w: Path(p).name[: -len(".xcdatamodel")] if p.endswith(".xcdatamodel") else None
                     for w, p in paths.items()}
            bundle_names = {w: Path(p).parent.name for w, p in paths.items()}
            override = MAPPING_MODEL_STEPS.get(key)
            placed = False
            for b in by_repo.get(repo_dir.name, []):
                if override:
                    older, newer = override
                elif Path(b.rel).name == bundle_names["source"] == bundle_names["destination"]:
                    older, newer = names["source"], names["destination"]
                else:
                    continue
                if older in b.versions and newer in b.versions:
                    step = (b.repo, b.rel, older, newer)
                    steps[step] = (steps[step] + ", " if step in steps else "mapping model: ") + here.name
                    placed = True
            if not placed:
                notes.append("mapping model %s (%s -> %s) maps no version pair of a bundle in the corpus" % (
                    key, paths.get("source"), paths.get("destination")))
    return steps


def xml_version_identifier(version_path):
    """The version's `userDefinedModelVersionIdentifier` (None when unreadable)."""
    try:
        return ET.parse(version_path / "contents").getroot().get("userDefinedModelVersionIdentifier", "")
    except (OSError, ET.ParseError):
        return None


_DIFF_CACHE = {}
_DIFF_LOCK = threading.Lock()


def instar_diff(instar, older, newer):
    """`instar diff older newer --format json`, run once per pair: (data, error)."""
    key = (str(older.path), str(newer.path))
    with _DIFF_LOCK:
        if key in _DIFF_CACHE:
            return _DIFF_CACHE[key]
    data, error, _ = run_instar(instar, ["diff", older.path, newer.path, "--format", "json"])
    with _DIFF_LOCK:
        _DIFF_CACHE[key] = (data, error)
    return data, error


def entity_renames(instar, chain):
    """Old entity name -> its name at the end of a chain of versions (renamed entities only), and the
    entities some step of the chain removes, from `instar diff` of each step."""
    current = {n: n for n in (chain[0].hashes or {})}
    removed = set()
    for older, newer in zip(chain, chain[1:]):
        data, _ = instar_diff(instar, older, newer)
        step_renames, step_removed = {}, set()
        if data and isinstance(data.get("changes"), list):
            for change in data["changes"]:
                if change.get("kind") == "entityRenamed":
                    old = change.get("oldName") or change.get("before")
                    if old:
                        step_renames[old] = change.get("entity")
                elif change.get("kind") == "entityRemoved":
                    step_removed.add(change.get("entity"))
        for original, name in list(current.items()):
            if name in step_removed:
                removed.add(original)
                del current[original]
            elif name in step_renames:
                current[original] = step_renames[name]
    return {k: v for k, v in current.items() if k != v}, removed


def check_model(instar, version):
    """Returns (ok, detail); fills version.hashes/checksum/digest on success."""
    data, error, _ = run_instar(instar, ["model", "hashes", version.path, "--format", "json"])
    if error:
        return False, error
    if not isinstance(data, dict):
        return False, "JSON is not an object"
    missing = [k for k in ("entities", "versionChecksum", "versionHashesDigest") if k not in data]
    if missing:
        return False, "JSON lacks key(s) %s (has %s)" % (", ".join(missing), ", ".join(sorted(data)))
    entities = data["entities"]
    if not isinstance(entities, dict):
        return False, "`entities` is not an object"
    hashes = {}
    for name, value in entities.items():
        try:
            raw = b64decode_strict(value)
        except ValueError as error:
            return False, "entity %s: %s" % (name, error)
        if len(raw) != 32:
            return False, "entity %s: hash decodes to %d bytes, expected 32" % (name, len(raw))
        hashes[name] = raw
    checksum, digest = data["versionChecksum"], data["versionHashesDigest"]
    try:
        checksum_raw = b64decode_strict(checksum)
        digest_raw = b64decode_strict(digest)
    except ValueError as error:
        return False, "versionChecksum/versionHashesDigest: %s" % error
    if len(checksum) != 44 or len(checksum_raw) != 32:
        return False, "versionChecksum %r: expected 44 base64 chars / 32 bytes" % checksum
    if len(digest) != 88 or len(digest_raw) != 64:
        return False, "versionHashesDigest %r: expected 88 base64 chars / 64 bytes" % digest
    # Independent cross-checks: entity set vs the XML, checksum/digest vs the entity hashes.
    try:
        xml_names = xml_entity_names(version.path)
    except (OSError, ET.ParseError) as error:
        xml_names = None
        xml_problem = str(error)
    if xml_names is None:
        return False, "instar succeeded but the script cannot read contents XML: %s" % xml_problem
    if set(hashes) != xml_names:
        return False, "entity set differs from the XML: missing %s; unexpected %s" % (
            short_list(sorted(xml_names - set(hashes))), short_list(sorted(set(hashes) - xml_names)))
    names = sorted(hashes, key=core_data_order)
    expected_checksum = base64.b64encode(hashlib.sha256(b"".join(hashes[n] for n in names)).digest()).decode()
    expected_digest = base64.b64encode(
        hashlib.sha512(b"".join(n.encode("utf-8") + hashes[n] for n in names)).digest()).decode()
    if checksum != expected_checksum:
        return False, "versionChecksum %s is not SHA-256 of the sorted entity hashes (%s)" % (
            checksum, expected_checksum)
    if digest != expected_digest:
        return False, "versionHashesDigest %s… is not SHA-512 of the sorted name‖hash pairs (%s…)" % (
            digest[:16], expected_digest[:16])
    version.ok, version.hashes, version.checksum, version.digest = True, hashes, checksum, digest
    return True, "%d entities, checksum %s" % (len(hashes), checksum)


def check_diff(instar, older, newer):
    """Returns (ok, detail, verdict dict or None)."""
    data, error = instar_diff(instar, older, newer)
    if error:
        return False, error, None
    if not isinstance(data, dict):
        return False, "JSON is not an object", None
    problems = []
    if not isinstance(data.get("inferable"), bool):
        problems.append("`inferable` missing or not a boolean")
    changes = data.get("changes")
    if not isinstance(changes, list):
        problems.append("`changes` missing or not a list")
        changes = []
    if not isinstance(data.get("warnings"), list):
        problems.append("`warnings` missing or not a list")
    for i, change in enumerate(changes):
        if not isinstance(change, dict):
            problems.append("changes[%d] is not an object" % i)
            continue
        lacking = [k for k in ("kind", "entity", "inferable", "reason") if k not in change]
        if lacking:
            problems.append("changes[%d] lacks %s" % (i, ", ".join(lacking)))
        elif not isinstance(change["inferable"], bool):
            problems.append("changes[%d].inferable is not a boolean" % i)
        elif not isinstance(change["kind"], str):
            problems.append("changes[%d].kind is not a string" % i)
    if problems:
        return False, "; ".join(problems[:5]) + ("; …" if len(problems) > 5 else ""), None
    def subject_of(change):
        where = change.get("entity") or ""
        if change.get("property"):
            where += "." + str(change["property"])
        return ("%s %s" % (change.get("kind"), where)).strip()

    blockers, conditions = [], []
    for change in changes:
        if not change["inferable"]:
            text = subject_of(change)
            if change.get("reason"):
                text += ": %s" % change["reason"]
            blockers.append(text)
        elif change.get("condition") is not None:  # inferable only if the data allows it
            condition = change["condition"]
            text = condition.get("text") if isinstance(condition, dict) else None
            conditions.append("%s: %s" % (subject_of(change), text or json.dumps(condition)))

    def warning_text(warning):
        if isinstance(warning, dict) and warning.get("message"):
            return "%s: %s" % (warning.get("kind", "warning"), warning["message"])
        return warning if isinstance(warning, str) else json.dumps(warning)

    verdict = {
        "repo": older.repo, "bundle": older.bundle, "older": older.name, "newer": newer.name,
        "inferable": data["inferable"], "changes": len(changes), "warnings": len(data["warnings"]),
        "non_inferable_reasons": blockers, "conditions": conditions,
        "warning_texts": [warning_text(w) for w in data["warnings"]],
    }
    detail = "%s, %d change(s)" % ("inferable" if data["inferable"] else "NOT inferable", len(changes))
    if data["inferable"] and blockers:
        detail += " (note: top-level inferable but %d change(s) marked non-inferable)" % len(blockers)
    if not data["inferable"] and not blockers:
        detail += " (note: no individual change marked non-inferable)"
    return True, detail, verdict


def ordered_versions(bundle, manifest_orders, notes):
    names = sorted(bundle.versions, key=natural_key)
    manifest = manifest_orders.get((bundle.repo, bundle.rel))
    if manifest and manifest != names:
        if sorted(manifest) == sorted(names):
            notes.append("%s/%s: natural order %s differs from MANIFEST; using MANIFEST order %s"
                         % (bundle.repo, bundle.rel, names, manifest))
            names = list(manifest)
        else:
            notes.append("%s/%s: MANIFEST lists versions %s but the bundle has %s; using natural order"
                         % (bundle.repo, bundle.rel, manifest, names))
    return [bundle.versions[n] for n in names]


def verdict_summary(v):
    text = "inferable" if v["inferable"] else "NOT inferable"
    if v["inferable"] and v.get("conditions"):
        text += " if the data allows (%d condition(s))" % len(v["conditions"])
    return "%s, %d change(s), %d warning(s)" % (text, v["changes"], v["warnings"])


def print_verdict_details(verdict, out, indent):
    for reason in verdict["non_inferable_reasons"]:
        print("%sNO   %s" % (indent, reason), file=out)
    for condition in verdict.get("conditions", []):
        print("%sIF   %s" % (indent, condition), file=out)
    for warning in verdict.get("warning_texts", []):
        print("%sWARN %s" % (indent, warning), file=out)
