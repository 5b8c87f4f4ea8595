"""Hostile files for Scripts/fuzz (issue 32, items 6 and 7): paths that are not regular files, stores whose
-wal a careless open changes, YAML whose aliases nest or multiply, databases and model values that would
become SQL, and output targets that must not be written.

`build(case, rng, base_stores)` fills the case's folder, its commands, and checks run after every command:
each check returns None or what went wrong ("changed", "injected"), which the fuzz counts as a failure
like a crash. Nothing here writes outside the case's folder; devices are only ever read targets
(/dev/zero, /dev/null), never outputs.
"""

import os
import shutil
import sqlite3
from pathlib import Path

from instar_scripts.common import REPO
from instar_scripts.stores import open_read_only

MUSIC = REPO / "Plans" / "music"

INJECTED_TYPES = [
    "TEXT); DROP TABLE t; CREATE TABLE injected (a); --",
    "INT, injected INT",
    "TEXT) ; CREATE TABLE injected (a",
    "INT PRIMARY KEY",
    "varchar(10)); CREATE TABLE injected (a); --",
]


def snapshot(paths):
    """The bytes of each path and its -wal and -journal (None when absent), to compare after a command.

    Not the -shm: any reader of a WAL store, even a read-only connection, writes its read marks there
    and creates it when it is missing (SQLite's shared-memory index, rebuilt from the -wal)."""
    state = {}
    for path in paths:
        for suffix in ("", "-wal", "-journal"):
            target = Path(str(path) + suffix)
            state[str(target)] = target.read_bytes() if target.is_file() and not target.is_symlink() else (
                "link:" + os.readlink(target) if target.is_symlink() else None)
    return state


def unchanged(paths, only_on_failure=False):
    """A check: the files (and their -wal and -journal) are byte for byte as before the command."""
    before = {}

    def prepare():
        before.clear()
        before.update(snapshot(paths))

    def check(status, output):
        if only_on_failure and status == 0:
            return None
        after = snapshot(paths)
        changed = [Path(p).name for p in before if before[p] != after.get(p)]
        return f"changed {', '.join(changed)} (exit {status})" if changed else None

    check.prepare = prepare
    return check


def no_injected_table(folder):
    def check(status, output):
        for store in Path(folder).glob("*.sqlite"):
            if store.is_symlink() or not store.is_file():
                continue
            try:
                db = open_read_only(store)
                names = [r[0] for r in db.execute("SELECT name FROM sqlite_master")]
                columns = [r[1] for t in names for r in db.execute(f'PRAGMA table_info("{t}")')] if names else []
                db.close()
            except sqlite3.Error:
                continue
            if "injected" in names or "injected" in columns:
                return f"injected SQL ran: {store.name} has 'injected'"
        return None
    return check


def absent(path):
    def check(status, output):
        return f"{Path(path).name} was created" if os.path.lexists(path) else None
    return check


def wal_store(base, target):
    """A copy of `base` in WAL mode whose -wal holds a committed write (copied while it was open)."""
    work = Path(str(target) + ".work")
    shutil.copyfile(base, work)
    db = sqlite3.connect(work)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute("CREATE TABLE IF NOT EXISTS fuzz_extra (a)")
    db.execute("INSERT INTO fuzz_extra VALUES (1)")
    db.commit()
    shutil.copyfile(work, target)
    if Path(str(work) + "-wal").exists():
        shutil.copyfile(str(work) + "-wal", str(target) + "-wal")
    db.close()
    for suffix in ("", "-wal", "-shm"):
        Path(str(work) + suffix).unlink(missing_ok=True)


def store_commands(name):
    return [["inspect", "--store", name], ["status", "--store", name], ["model", "import", "--store", name],
            ["model", "export", "--store", name], ["plan", str(MUSIC / "plan.yaml"), "--store", name],
            ["store", "seed", name, "--rows", "2", "--model", str(MUSIC / "models" / "v1.yaml")],
            ["test", str(MUSIC / "plan.yaml"), "--fixtures", name]]


def build(case, rng, base_stores):
    folder = Path(case.folder)
    shape = rng.randrange(9)
    stores = sorted(base_stores)
    if shape == 0:
        os.mkfifo(folder / "store.sqlite")
        case.commands = rng.sample(store_commands("store.sqlite"), 3)
        return "a FIFO as --store"
    if shape == 1:
        kind = rng.choice(["zero", "null", "dir", "fifo-wal"])
        if kind == "dir":
            (folder / "store.sqlite").mkdir()
        elif kind == "fifo-wal":
            shutil.copyfile(rng.choice(stores), folder / "store.sqlite")
            os.mkfifo(folder / "store.sqlite-wal")
        else:
            os.symlink(f"/dev/{kind}", folder / "store.sqlite")
        case.commands = rng.sample(store_commands("store.sqlite"), 3)
        return f"--store is {kind}"
    if shape == 2:
        fixtures = folder / "fixtures"
        fixtures.mkdir()
        os.mkfifo(fixtures / "a.sqlite")
        os.symlink("/dev/zero", fixtures / "b.sqlite")
        if rng.random() < 0.5:
            shutil.copyfile(rng.choice(stores), fixtures / "c.sqlite")
        case.commands = [["test", str(MUSIC / "plan.yaml"), "--fixtures", "fixtures", "--rows", "2"]]
        return "a FIFO and a /dev/zero link among --fixtures"
    if shape == 3:
        # SQLite deletes a -wal beside a 0-byte store on opening it.
        store = folder / "store.sqlite"
        store.write_bytes(b"")
        wal_source = folder / "source.db"
        wal_store(rng.choice(stores), wal_source)
        wal = Path(str(wal_source) + "-wal")
        Path(str(store) + "-wal").write_bytes(wal.read_bytes() if wal.exists() else os.urandom(4096))
        for suffix in ("", "-wal"):
            Path(str(wal_source) + suffix).unlink(missing_ok=True)
        case.commands = rng.sample(store_commands("store.sqlite")[:5], 3)
        case.checks.append(unchanged([store], only_on_failure=True))
        return "a 0-byte store beside a -wal"
    if shape == 4:
        # Refusals after a read-write open used to checkpoint the -wal into the store.
        base = rng.choice(stores)
        store = folder / "store.sqlite"
        wal_store(base, store)
        other = rng.choice(sorted((REPO / "Plans").glob("*/models/v1.yaml")))
        empty = folder / "empty.sqlite"
        empty.write_bytes(b"")
        case.commands = [rng.choice([["store", "seed", "store.sqlite", "--rows", "2", "--model", str(other)],
                                     ["migrate", "--model", str(other), "--to-model", str(other), "--store", "store.sqlite"],
                                     ["restore", "--backup", "empty.sqlite", "--store", "store.sqlite"]])]
        case.checks.append(unchanged([store], only_on_failure=True))
        return f"a WAL store ({base.name}) and a refusing command"
    if shape == 5:
        plan = folder / "plan"
        shutil.copytree(MUSIC, plan)
        text = (plan / "plan.yaml").read_text()
        if rng.random() < 0.5:
            width, levels = rng.randrange(4, 12), rng.randrange(8, 14)
            lines = ["  bomb:", "    sql:", "      - &a0 [" + ", ".join(['"SELECT 1"'] * width) + "]"]
            lines += [f"      - &a{n} [" + ", ".join([f"*a{n - 1}"] * width) + "]" for n in range(1, levels)]
            what = f"an alias bomb ({width}^{levels}) in a hook's SQL"
        else:
            brackets, count = rng.randrange(5, 30), rng.randrange(500, 5000)
            lines = ["  deep:", "    sql:", "      - &a0 [1]"]
            lines += [f"      - &a{n} " + "[" * brackets + f"*a{n - 1}" + "]" * brackets for n in range(1, count)]
            what = f"aliases nesting {brackets * count} deep in a hook's SQL"
        (plan / "plan.yaml").write_text(text.replace("hooks:\n", "hooks:\n" + "\n".join(lines) + "\n", 1))
        case.commands = [["plan", "plan/plan.yaml"], ["lint", "plan/plan.yaml"],
                         ["test", "plan/plan.yaml", "--rows", "1"]]
        return what
    if shape == 6:
        db = sqlite3.connect(folder / "adopted.sqlite")
        declared = rng.choice(INJECTED_TYPES).replace('"', '""')
        db.execute(f'CREATE TABLE t (id INTEGER PRIMARY KEY, x "{declared}", y TEXT)')
        db.execute("CREATE TABLE u (id INTEGER PRIMARY KEY, t_id INTEGER REFERENCES t(id) ON DELETE CASCADE)")
        db.commit()
        db.close()
        case.commands = [["model", "import", "--store", "adopted.sqlite", "--output", "adopted.yaml"],
                         ["store", "create", "adopted.yaml", "--store", "created.sqlite", "--layout", "sql"]]
        case.checks += [unchanged([folder / "adopted.sqlite"]), no_injected_table(folder)]
        return f"an adopted database declaring '{declared}'"
    if shape == 7:
        key, value = rng.choice([("columnType", rng.choice(INJECTED_TYPES)),
                                 ("columnSQL", "CHECK (1)); CREATE TABLE injected (a); --"),
                                 ("columnSQL", "CHECK (1), injected INT")])
        value = value.replace('"', '\\"')
        (folder / "model.yaml").write_text(
            "name: H\nentities:\n  T:\n    attributes:\n      x:\n        type: string\n"
            f"        {key}: \"{value}\"\n  U:\n    relationships:\n      t:\n        to: T\n        toMany: false\n"
            f"        optional: true\n        onDelete: \"{rng.choice(['CASCADE', 'CASCADE); CREATE TABLE injected (a); --'])}\"\n")
        case.commands = [["store", "create", "model.yaml", "--store", "created.sqlite", "--layout", "sql"],
                         ["model", "hashes", "model.yaml"]]
        case.checks.append(no_injected_table(folder))
        return f"a hand-written {key} that would be SQL"
    # Output targets: never the input, a link's target, a FIFO, or an existing file without --force.
    store = folder / "app.sqlite"
    shutil.copyfile(rng.choice(stores), store)
    victim = folder / "victim.txt"
    victim.write_text("keep\n")
    target = rng.choice(["input", "link", "dangling", "fifo", "existing"])
    if target == "input":
        output = "app.sqlite"
    elif target == "link":
        os.symlink("victim.txt", folder / "out.yaml")
        output = "out.yaml"
    elif target == "dangling":
        os.symlink("nowhere.yaml", folder / "out.yaml")
        output = "out.yaml"
        case.checks.append(absent(folder / "nowhere.yaml"))
    elif target == "fifo":
        os.mkfifo(folder / "out.yaml")
        output = "out.yaml"
    else:
        output = "victim.txt"
    command = rng.choice([["model", "import"], ["model", "export"]])
    force = ["--force"] if rng.random() < 0.5 and target != "existing" else []
    case.commands = [command + ["--store", "app.sqlite", "--output", output] + force]
    case.checks.append(unchanged([store, victim]))
    return f"{' '.join(command)} --output onto {target}"
