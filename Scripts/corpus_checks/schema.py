"""Schema and data facts of a Core Data store (a copy), and their comparison."""

import plistlib
import re
import sqlite3
import xml.etree.ElementTree as ET

from .common import ascii_upper, short_list

COREDATA_BOOKKEEPING = {"Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"}
# Metadata keys instar writes; every other key of a store's Z_PLIST must survive a migration.
COREDATA_OWN_KEYS = {"NSStoreType", "NSPersistenceFrameworkVersion", "NSStoreModelVersionHashesVersion",
                     "NSStoreModelVersionHashes", "NSStoreModelVersionIdentifiers", "NSStoreModelVersionHashesDigest",
                     "NSStoreModelVersionChecksumKey", "_NSAutoVacuumLevel"}


def coredata_bookkeeping(name):
    return (name in COREDATA_BOOKKEEPING or name.startswith(("sqlite_", "_instar_", "Z_RT_", "ANSCK")))


def schema_facts(path):
    """Tables (columns with declared types, composite key, UNIQUE constraints), indexes, Z_PRIMARYKEY,
    metadata and row data access of a Core Data store (a copy: WAL sidecars are applied)."""
    con = sqlite3.connect(str(path))
    try:
        tables = {}
        indexes = {}
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for table in names:
            if coredata_bookkeeping(table):
                continue
            info = con.execute("SELECT name, type, pk FROM pragma_table_info(?)", (table,)).fetchall()
            columns = {name: (decl or "").upper() for name, decl, _ in info}
            key = [name for name, _, pk in sorted(info, key=lambda r: r[2]) if pk > 0]
            unique = set()
            for _, iname, isunique, origin, _ in con.execute(
                    "SELECT seq, name, \"unique\", origin, partial FROM pragma_index_list(?)", (table,)):
                cols = tuple(r[0] for r in con.execute(
                    "SELECT name FROM pragma_index_info(?) ORDER BY seqno", (iname,)))
                if origin == "u":
                    unique.add(cols)
                elif origin == "c":
                    elements = tuple((r[0], r[1]) for r in con.execute(
                        "SELECT name, desc FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", (iname,)))
                    indexes[iname] = (table, elements, bool(isunique))
            tables[table] = {"columns": columns, "key": key, "unique": unique}
        pk_rows = []
        if "Z_PRIMARYKEY" in names:
            pk_rows = [tuple(r) for r in con.execute(
                "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")]
        meta = {}
        if "Z_METADATA" in names:
            row = con.execute("SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1").fetchone()
            if row and row[0]:
                meta = plistlib.loads(bytes(row[0]))
        return {"tables": tables, "indexes": indexes, "pk": pk_rows, "meta": meta}
    finally:
        con.close()


def render_index(index):
    table, elements, unique = index
    return "%s(%s) ON %s" % ("UNIQUE " if unique else "", ", ".join(
        c + (" DESC" if d else "") for c, d in elements), table)


def table_differences(expected, actual, expected_label, actual_label):
    """Exact differences of tables, columns, declared types, composite keys and UNIQUE constraints."""
    problems = []
    for table in sorted(set(expected) - set(actual)):
        problems.append("table %s missing in %s" % (table, actual_label))
    for table in sorted(set(actual) - set(expected)):
        problems.append("table %s only in %s" % (table, actual_label))
    for table in sorted(set(expected) & set(actual)):
        e, a = expected[table], actual[table]
        for column in sorted(set(e["columns"]) - set(a["columns"])):
            problems.append("%s.%s %s missing in %s" % (table, column, e["columns"][column], actual_label))
        for column in sorted(set(a["columns"]) - set(e["columns"])):
            problems.append("%s.%s %s only in %s" % (table, column, a["columns"][column], actual_label))
        for column in sorted(set(e["columns"]) & set(a["columns"])):
            if e["columns"][column] != a["columns"][column]:
                problems.append("%s.%s is %s in %s, %s in %s" % (
                    table, column, a["columns"][column], actual_label, e["columns"][column], expected_label))
        if e["key"] != a["key"]:
            problems.append("%s primary key (%s) in %s, (%s) in %s" % (
                table, ", ".join(a["key"]), actual_label, ", ".join(e["key"]), expected_label))
        if e["unique"] != a["unique"]:
            problems.append("%s UNIQUE constraints %s in %s, %s in %s" % (
                table, sorted(a["unique"]) or "none", actual_label, sorted(e["unique"]) or "none", expected_label))
    return problems


def xml_renaming_ids(version_path):
    """Entity name -> renaming identifier (`elementID`) from a version's contents XML."""
    try:
        root = ET.parse(version_path / "contents").getroot()
    except (OSError, ET.ParseError):
        return {}
    return {e.get("name"): e.get("elementID") or e.get("renamingIdentifier") for e in root.findall("entity")
            if e.get("elementID") or e.get("renamingIdentifier")}


def pk_rows_difference(expected, actual, expected_label, actual_label, renamed=None):
    """Differences of Z_PRIMARYKEY rows (Z_ENT, Z_NAME, Z_SUPER), and notes. A row of `actual` naming an
    entity whose renaming identifier is `expected`'s name for that Z_ENT is Core Data's quirk (it
    leaves a renamed entity's old name), noted but not a difference."""
    e = [tuple(r[:3]) for r in expected]
    a = [tuple(r[:3]) for r in actual]
    notes = []
    renamed = renamed or {}
    by_number = {r[0]: r for r in e}
    normalised = []
    for row in a:
        other = by_number.get(row[0])
        if other and other != row and other[2] == row[2] and renamed.get(row[1]) == other[1]:
            notes.append("Z_NAME of Z_ENT %d is %s in %s, %s (its old name) in %s" % (
                row[0], row[1], actual_label, other[1], expected_label))
            row = other
        normalised.append(row)
    if e == normalised:
        return [], notes
    return ["Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER) rows only in %s: %s; only in %s: %s" % (
        actual_label, short_list([str(r) for r in normalised if r not in e], 8),
        expected_label, short_list([str(r) for r in e if r not in normalised], 8))], notes


def entity_tables(pk_rows):
    """Entity name -> (Z_ENT, table of its root) from Z_PRIMARYKEY rows."""
    by_number = {r[0]: r for r in pk_rows}
    result = {}
    for number, name, parent, _ in pk_rows:
        root = name
        seen = set()
        current = parent
        while current and current in by_number and current not in seen:
            seen.add(current)
            root = by_number[current][1]
            current = by_number[current][2]
        result[name] = (number, "Z" + ascii_upper(root))
    return result


def rows_by_key(con, table, number):
    cursor = con.execute('SELECT * FROM "%s" WHERE Z_ENT = ?' % table.replace('"', '""'), (number,))
    names = [d[0] for d in cursor.description]
    return {row[names.index("Z_PK")]: dict(zip(names, row)) for row in cursor}


def data_differences(before_path, before, after_path, after, renames, removed):
    """Rows of surviving entities: counts by Z_ENT and values of unchanged columns, row by row."""
    problems = []
    old_entities = entity_tables(before["pk"])
    new_entities = entity_tables(after["pk"])
    old_con = sqlite3.connect(str(before_path))
    new_con = sqlite3.connect(str(after_path))
    checked_rows = 0
    try:
        for old_name, (old_number, old_table) in sorted(old_entities.items()):
            if old_name in removed:
                continue
            new_name = renames.get(old_name, old_name)
            if new_name not in new_entities:
                problems.append("%s survives the step (as %s) but is not in the migrated Z_PRIMARYKEY" % (
                    old_name, new_name))
                continue
            new_number, new_table = new_entities[new_name]
            if old_table not in before["tables"] or new_table not in after["tables"]:
                problems.append("%s: table %s or %s missing" % (old_name, old_table, new_table))
                continue
            old_rows = rows_by_key(old_con, old_table, old_number)
            new_rows = rows_by_key(new_con, new_table, new_number)
            if len(old_rows) != len(new_rows):
                problems.append("%s: %d rows (Z_ENT %d in %s) before, %d rows (Z_ENT %d in %s) after" % (
                    old_name, len(old_rows), old_number, old_table, len(new_rows), new_number, new_table))
                continue
            old_columns = before["tables"][old_table]["columns"]
            new_columns = after["tables"][new_table]["columns"]
            # Unchanged columns: same name and declared type; Z_ENT and the entity-key columns
            # (Z<n>_<REL>, renumbered with the entities) hold entity numbers, checked separately.
            common = sorted(c for c in set(old_columns) & set(new_columns)
                            if old_columns[c] == new_columns[c] and c != "Z_ENT" and not re.match(r"^Z\d+_", c))
            for key, old_row in sorted(old_rows.items()):
                new_row = new_rows.get(key)
                if new_row is None:
                    problems.append("%s: row Z_PK %s is gone" % (old_name, key))
                    break
                changed = [c for c in common if old_row.get(c) != new_row.get(c)]
                if changed:
                    problems.append("%s row Z_PK %s: %s" % (old_name, key, ", ".join(
                        "%s %r -> %r" % (c, old_row.get(c), new_row.get(c)) for c in changed[:4])))
                    break
                checked_rows += 1
    finally:
        old_con.close()
        new_con.close()
    return problems, checked_rows
