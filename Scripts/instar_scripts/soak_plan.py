"""The plan Scripts/soak races: four versions, hooks whose every effect is a countable row in `Log`.

Written at run time into a folder, once per layout, because the hooks' SQL names the layout's tables
and columns (instar `"Item"."_pk"`, coredata `"ZITEM"."Z_PK"` / `"ZN"`, sql `"Item"."id"`).

    V1 ─(after: inline)─▶ V2 ─(after: batch, own)─▶ V3 ─(before: slow)─▶ V4

  inline  SQL next to the schema change: runs inside the step's transaction (fused with V2 → V3's);
          one `inline` marker, and fills `note` for every third item.
  batch   batchedSQL over Item, BATCH keys a batch, each batch committing with its checkpoint: one
          `batch:<key>` marker per item.
  own     SQL after a non-SQL hook: its own transaction with the journal; one `own` marker.
  slow    inline SQL that burns CPU (a recursive count) before writing one `slow` marker: it keeps
          the last step's transaction open long enough for a second launch to arrive while it runs.
  mark, sleepy  (the InstarChaos plan only) InstarChaos's Swift hooks: `mark:0`…`mark:3`,
          `mark:final` (checkpointed units and one without) and `sleepy`.

V2 → V3 rebuilds Item (`note` becomes required with a default that fills the NULLs, `label` goes):
with ROWS items, slicing (`--slices 100rows`) and small time budgets bite.
"""

from pathlib import Path

VERSIONS = ["V1", "V2", "V3", "V4"]
ROWS = 3000
BATCH = 250
SLOW_COUNT = 400000  # iterations of the slow hook's recursive count (a few hundred ms in a debug-free SQLite)

MODELS = {
    "V1": ["n: int64 = 0", "label: string?"],
    "V2": ["n: int64 = 0", "label: string?", "note: string?"],
    "V3": ["n: int64 = 0", "note: string = none", "score: double = 0"],
    "V4": ["n: int64 = 0", "note: string = none", "score: double = 0", "extra: string?"],
}
# The column whose arrival tells a version apart from the one before (see version_of).
NEW_COLUMN = {"V2": "note", "V3": "score", "V4": "extra"}
SWIFT_MARKERS = ["mark:0", "mark:1", "mark:2", "mark:3", "mark:final", "sleepy"]


class Names:
    """How a layout names the tables and columns the hooks write."""

    def __init__(self, layout):
        self.layout = layout
        if layout == "coredata":
            self.item, self.log, self.pk = "ZITEM", "ZLOG", "Z_PK"
            self.column = lambda name: "Z" + name.upper()
        else:
            self.item, self.log = "Item", "Log"
            self.pk = "id" if layout == "sql" else "_pk"
            self.column = lambda name: name

    def q(self, name):
        return '"' + name.replace('"', '""') + '"'

    def sql(self, text):
        """`text` with {Item}, {Log}, {pk} and {col:NAME} replaced by the layout's quoted names."""
        out = text.replace("{Item}", self.q(self.item)).replace("{Log}", self.q(self.log)).replace("{pk}", self.q(self.pk))
        for name in ("n", "msg", "note", "label", "score", "extra"):
            out = out.replace("{col:" + name + "}", self.q(self.column(name)))
        return out


def yaml_string(text):
    return "'" + text.replace("'", "''") + "'"


def plan_text(names, swift=False, batch=BATCH, slow=SLOW_COUNT):
    s = names.sql
    inline = [s("INSERT INTO {Log} ({col:msg}) VALUES ('inline')"),
              s("UPDATE {Item} SET {col:note} = 'note ' || {col:n} WHERE {pk} % 3 = 0")]
    batch_sql = s("INSERT INTO {Log} ({col:msg}) SELECT 'batch:' || {pk} FROM {Item} "
                  "WHERE {pk} BETWEEN :start AND :end")
    own = [s("INSERT INTO {Log} ({col:msg}) SELECT 'own' WHERE (SELECT count(*) FROM {Item}) > 0")]
    slow_sql = [s("INSERT INTO {Log} ({col:msg}) SELECT 'slow' WHERE (WITH RECURSIVE c(x) AS "
                  f"(SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {slow}) SELECT count(*) FROM c) > 0")]
    lines = [f"name: soak", f"layout: {names.layout}", "versions: [V1.yaml, V2.yaml, V3.yaml, V4.yaml]", "stages:",
             "  - from: V1", "    to: V2", "    after: [inline" + (", mark" if swift else "") + "]",
             "  - from: V2", "    to: V3", *(["    before: [sleepy]"] if swift else []), "    after: [batch, own]",
             "  - from: V3", "    to: V4", "    before: [slow]",
             "hooks:",
             "  inline:", "    sql:", *[f"      - {yaml_string(x)}" for x in inline],
             "  batch:", f"    batchedSQL: {{table: {names.item if names.layout != 'instar' else 'Item'}, size: {batch}, "
                         f"sql: {yaml_string(batch_sql)}}}",
             "  own:", "    sql:", *[f"      - {yaml_string(x)}" for x in own],
             "  slow:", "    sql:", *[f"      - {yaml_string(x)}" for x in slow_sql]]
    if swift:
        lines += ["  mark: {swift: mark}", "  sleepy: {swift: sleepy}"]
    return "\n".join(lines) + "\n"


def write_plan(folder, layout, swift=False):
    """Writes V1…V4.yaml and plan.yaml (plan-swift.yaml with `swift`) into `folder`; returns the plan's path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for version, attributes in MODELS.items():
        body = "".join(f"      {a}\n" for a in attributes)
        (folder / f"{version}.yaml").write_text(
            f"name: {version}\nentities:\n  Item:\n    attributes:\n{body}  Log:\n    attributes:\n      msg: string?\n")
    plan = folder / ("plan-swift.yaml" if swift else "plan.yaml")
    plan.write_text(plan_text(Names(layout), swift=swift))
    return plan


def expected_markers(swift=False, rows=ROWS):
    """Every marker the plan writes, each exactly once."""
    found = {"inline": 1, "own": 1, "slow": 1}
    found.update({f"batch:{k}": 1 for k in range(1, rows + 1)})
    if swift:
        found.update({m: 1 for m in SWIFT_MARKERS})
    return found


def fill(db, names, rows=ROWS):
    """Items 1…rows in a V1 store (an open sqlite3 connection), committed."""
    columns = [names.pk, names.column("n"), names.column("label")]
    db.executemany(f"INSERT INTO {names.q(names.item)} ({', '.join(names.q(c) for c in columns)}) VALUES (?, ?, ?)",
                   [(k, k % 7, f"item {k}") for k in range(1, rows + 1)])
    if names.layout == "coredata":
        db.execute('UPDATE "ZITEM" SET "Z_ENT" = (SELECT "Z_ENT" FROM "Z_PRIMARYKEY" WHERE "Z_NAME" = \'Item\'), "Z_OPT" = 1')
        db.execute('UPDATE "Z_PRIMARYKEY" SET "Z_MAX" = ? WHERE "Z_NAME" = \'Item\'', (rows,))
    db.commit()


def version_of(db, names):
    """The store's version as its Item table's columns say (committed state), or None when unreadable."""
    columns = {row[1] for row in db.execute(f"PRAGMA table_info({names.q(names.item)})")}
    if not columns:
        return None
    version = "V1"
    for candidate in VERSIONS[1:]:
        if names.column(NEW_COLUMN[candidate]) in columns:
            version = candidate
    return version
