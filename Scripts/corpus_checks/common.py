"""Results, small helpers, running instar, copying stores (never opened in place)."""

import base64
import binascii
import json
import re

from instar_scripts import common, stores

WORKERS = 2
INSTAR_TIMEOUT = 180  # seconds per instar invocation

CHECK_MODEL = "model-hashes"
CHECK_STORE = "store-hashes"
CHECK_DIGEST = "store-digest"
CHECK_CHECKSUM = "store-checksum"
CHECK_DIFF = "diff"
CHECK_INSPECT = "inspect"
CHECK_CREATE = "coredata-create"
CHECK_MIGRATE = "coredata-migrate"
CHECK_TEST = "coredata-test"
CHECK_RELEASE = "release-check"
CHECK_MAPPING_READ = "mapping-read"
CHECK_MAPPING_TRANSLATE = "mapping-translate"
CHECK_MODELCACHE = "model-cache"
CHECK_SWIFTDATA = "swiftdata"
CHECK_SWIFTDATA_TEST = "swiftdata-test"
CHECK_SWIFTDATA_PAIR = "swiftdata-pair"
CHECK_SWIFTDATA_PARSE_ONLY = "swiftdata-parse-only"
# What `plan --swiftdata` prints when SwiftData's launch checks on the sources all pass (the store's rows
# are judged under the risks, so the line never says "passed" above them).
SOURCES_PASS = "SwiftData's launch checks on the sources: none fails"

CHECK_ORDER = [CHECK_MODEL, CHECK_STORE, CHECK_DIGEST, CHECK_CHECKSUM, CHECK_DIFF, CHECK_MAPPING_READ,
               CHECK_MAPPING_TRANSLATE, CHECK_INSPECT, CHECK_CREATE, CHECK_MIGRATE, CHECK_TEST, CHECK_RELEASE, CHECK_MODELCACHE,
               CHECK_SWIFTDATA, CHECK_SWIFTDATA_TEST, CHECK_SWIFTDATA_PAIR, CHECK_SWIFTDATA_PARSE_ONLY]


class Results:
    def __init__(self):
        self.items = []  # dicts: check, subject, ok, detail

    def add(self, check, subject, ok, detail=""):
        self.items.append({"check": check, "subject": subject, "ok": bool(ok), "detail": detail})

    @property
    def passed(self):
        return sum(1 for r in self.items if r["ok"])

    @property
    def failed(self):
        return sum(1 for r in self.items if not r["ok"])

    def counts(self, check):
        mine = [r for r in self.items if r["check"] == check]
        return sum(1 for r in mine if r["ok"]), sum(1 for r in mine if not r["ok"])


def core_data_order(name):
    """Sort key matching -[NSString compare:] for plain names: UTF-16 code units."""
    return name.encode("utf-16-be")


def natural_key(name):
    """'Foo' < 'Foo 2' < 'Foo 10': digit runs compare numerically."""
    key = []
    for part in re.split(r"(\d+)", name):
        if part.isdigit():
            key.append((0, int(part), part))
        else:
            key.append((1, part))
    return key


def b64decode_strict(value):
    if not isinstance(value, str):
        raise ValueError("not a string (%s)" % type(value).__name__)
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError("invalid base64 %r (%s)" % (value[:60], error))


def tail(text, limit=400):
    text = (text or "").strip()
    if len(text) > limit:
        text = "…" + text[-limit:]
    return text.replace("\n", " | ")


def short_list(items, limit=12):
    items = list(items)
    if not items:
        return "none"
    shown = ", ".join(items[:limit])
    if len(items) > limit:
        shown += ", … (%d more)" % (len(items) - limit)
    return shown


def run_process(instar, args):
    """Runs instar; returns (exit status or None, stdout, stderr or error text)."""
    try:
        proc = common.run([instar] + list(args), timeout=INSTAR_TIMEOUT)
    except OSError as error:
        return None, "", "could not run instar: %s" % error
    if proc.returncode == "timeout":
        return None, "", "timed out after %ds" % INSTAR_TIMEOUT
    return proc.returncode, proc.stdout, proc.stderr


def run_instar(instar, args):
    """Runs instar; returns (parsed JSON or None, error string or None, raw stdout)."""
    status, stdout, stderr = run_process(instar, args)
    if status is None:
        return None, stderr, ""
    if status < 0:
        return None, "instar crashed (signal %d): %s" % (-status, tail(stderr)), stdout
    if status != 0:
        return None, "exit status %d: %s" % (status, tail(stderr or stdout)), stdout
    try:
        return json.loads(stdout), None, stdout
    except ValueError as error:
        return None, "stdout is not JSON (%s): %s" % (error, tail(stdout, 200)), stdout


def run_instar_text(instar, args):
    """Runs instar for its exit status; returns (exit status or None, error string or None)."""
    status, stdout, stderr = run_process(instar, args)
    if status is None:
        return None, stderr
    if status != 0:
        return status, "exit status %d: %s" % (status, tail(stderr or stdout, 1500))
    return 0, None


def copy_store(store, folder):
    """Copies a store and its -wal/-shm/-journal sidecars into `folder`; returns the copy's path.
    The copy is made writable (corpus files are read-only), so SQLite can apply the WAL."""
    folder.mkdir(parents=True, exist_ok=True)
    return stores.copy_store(store, folder / store.name)


def same_files(a, b):
    return a.read_bytes() == b.read_bytes()


def framework_version(meta):
    value = meta.get("NSPersistenceFrameworkVersion")
    return value if isinstance(value, int) and value > 0 else None


def ascii_upper(name):
    return "".join(c.upper() if "a" <= c <= "z" else c for c in name)
