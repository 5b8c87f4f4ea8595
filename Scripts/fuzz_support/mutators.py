"""Mutations of seed inputs for Scripts/fuzz: text, XML, binary files and SQLite stores.

Every function takes a `random.Random`, so a case is reproducible from its seed and number.
"""

import base64
import plistlib
import re
import sqlite3

from . import generators

# Tokens that tend to reach unusual paths in the readers when spliced into text.
TOKENS = [b"", b"\x00", b"\xff\xfe", b"\n", b"\t", b"  ", b":", b"- ", b"[", b"]", b"{", b"}", b"&a ", b"*a",
          b"!!binary ", b"<", b">", b"</", b"&amp;", b"&#0;", b"]]>", b"\"", b"'", b"$source.", b"FUNCTION(",
          b"SUBQUERY(", b"(", b")", b"-9223372036854775808", b"9223372036854775807", b"99999999999999999999",
          b"1e999", b"NaN", b"-0", b"0x7fffffff", b"2147483648", b"4294967296", b"@count", b"..", b"#",
          b"null", b"~", b"true", b"\xe2\x80\xae", b"%@", b"\\", b"\\u0000"]


def mutate_text(data, rng, rounds=None):
    """1–4 random byte- and line-level changes."""
    data = bytearray(data)
    for _ in range(rounds or rng.randint(1, 4)):
        op = rng.randrange(9)
        if not data:
            data += rng.choice(TOKENS)
            continue
        at = rng.randrange(len(data))
        if op == 0:
            data[at] = rng.randrange(256)
        elif op == 1:
            data[at:at] = rng.choice(TOKENS)
        elif op == 2:
            del data[at:at + rng.randint(1, 64)]
        elif op == 3:
            end = min(len(data), at + rng.randint(1, 200))
            data[at:at] = data[at:end] * rng.randint(1, 30)
        elif op == 4:
            del data[at:]
        elif op == 5:
            lines = bytes(data).split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            data = bytearray(b"\n".join(lines))
        elif op == 6:
            lines = bytes(data).split(b"\n")
            i = rng.randrange(len(lines))
            lines[i:i] = [lines[i]] * rng.randint(1, 50)
            data = bytearray(b"\n".join(lines))
        elif op == 7:
            # Replace a quoted or scalar value by an extreme one.
            match = list(re.finditer(rb":\s*([^\n#]+)", bytes(data)))
            if match:
                m = rng.choice(match)
                data[m.start(1):m.end(1)] = rng.choice(TOKENS[28:])
        else:
            # Splice a generated nested or long piece.
            data[at:at] = generators.nasty_fragment(rng).encode()
    return bytes(data)


def mutate_binary(data, rng):
    """Flipped bytes, overwritten big-endian integers, truncation, duplicated ranges."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        if not data:
            break
        op = rng.randrange(6)
        at = rng.randrange(len(data))
        if op in (0, 1):
            data[at] ^= 1 << rng.randrange(8)
        elif op == 2:
            size = rng.choice([1, 2, 4, 8])
            value = rng.choice([0, 1, 0x7F, 0x80, 0xFF, 0x7FFFFFFF, 0xFFFFFFFF, 2**63 - 1, 2**64 - 1,
                                rng.randrange(2 ** (8 * size))]) % (2 ** (8 * size))
            data[at:at + size] = value.to_bytes(size, "big")
        elif op == 3:
            del data[rng.randrange(len(data) // 2, len(data)):]
        elif op == 4:
            # Object markers of a binary plist: turn one into another type (UID, dict, array, string).
            data[at] = rng.choice([0x80, 0xD1, 0xDF, 0xA1, 0xAF, 0x5F, 0x6F, 0x13, 0x23, 0x33])
        else:
            end = min(len(data), at + rng.randint(1, 64))
            data[at:at] = data[at:end]
    return bytes(data)


def mutate_xml(data, rng):
    """Text mutations, or targeted ones: a predicate or expression replaced, archived data mutated."""
    choice = rng.random()
    if choice < 0.35:
        return mutate_text(data, rng)
    text = data.decode("utf-8", "replace")
    if choice < 0.6:
        # Archived data (valueexpressiondata, userinfodata, model data): decode, mutate, encode.
        blobs = list(re.finditer(r'(type="binary">)([A-Za-z0-9+/=\s]+)(<)', text))
        if blobs:
            m = rng.choice(blobs)
            try:
                raw = base64.b64decode("".join(m.group(2).split()))
            except ValueError:
                raw = b""
            encoded = base64.b64encode(mutate_binary(raw, rng) if raw else b"").decode()
            return (text[:m.start(2)] + encoded + text[m.end(2):]).encode()
    if choice < 0.8:
        strings = list(re.finditer(r'(name="(?:sourcefilterpredicatestring|sourcekeypath|sourceexpression'
                                   r'|name|sourcename|destinationname)" type="string">)([^<]*)(<)', text))
        if strings:
            m = rng.choice(strings)
            value = generators.expression(rng) if rng.random() < 0.7 else generators.nasty_fragment(rng)
            value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            return (text[:m.start(2)] + value + text[m.end(2):]).encode()
    # Deeply nested elements, or an archived expression generated from scratch.
    if rng.random() < 0.5:
        depth = rng.choice([300, 3000, 30000])
        at = text.find("<object")
        at = at if at >= 0 else len(text) // 2
        return (text[:at] + "<x>" * depth + "</x>" * depth + text[at:]).encode()
    blobs = list(re.finditer(r'(name="valueexpressiondata" type="binary">)([^<]*)(<)', text))
    archive = base64.b64encode(generators.archived_expression(rng)).decode()
    if blobs:
        m = rng.choice(blobs)
        return (text[:m.start(2)] + archive + text[m.end(2):]).encode()
    return mutate_text(data, rng)


def mutate_store(path, rng, wals):
    """Changes a copied store in place; returns a note saying what was done."""
    op = rng.randrange(9)
    if op == 0:
        return corrupt_pages(path, rng)
    if op == 1 and wals:
        wal = rng.choice(wals)
        with open(wal, "rb") as source, open(str(path) + "-wal", "wb") as target:
            target.write(source.read())
        return f"-wal from {wal}"
    try:
        with sqlite3.connect(path, isolation_level=None) as db:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if op in (1, 2) and "Z_METADATA" in tables:
                return odd_metadata(db, rng)
            if op == 3 and "Z_PRIMARYKEY" in tables:
                value = rng.choice(["'text'", "x'00ff'", "1e300", "9223372036854775807", "-1", "NULL", "2.5"])
                column = rng.choice(["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"])
                db.execute(f'UPDATE "Z_PRIMARYKEY" SET "{column}" = {value} WHERE rowid IN '
                           f'(SELECT rowid FROM "Z_PRIMARYKEY" ORDER BY random() LIMIT 2)')
                return f"Z_PRIMARYKEY.{column} = {value}"
            if op == 4 and "_instar_metadata" in tables:
                value = rng.choice(["12", "x'ff00'", "NULL", "'{'", "'{\"a\": 1}'", "2.5", "'" + "x" * 5000 + "'"])
                db.execute(f'UPDATE "_instar_metadata" SET "value" = {value} WHERE rowid IN '
                           f'(SELECT rowid FROM "_instar_metadata" ORDER BY random() LIMIT 2)')
                return f"_instar_metadata.value = {value[:20]}"
            if op in (5, 6):
                return odd_lease(db, rng) if op == 5 else odd_journal(db, rng)
            if op == 7:
                return odd_schema(db, rng)
    except sqlite3.DatabaseError as error:
        return f"sqlite refused a change: {error}"
    return corrupt_pages(path, rng)


def corrupt_pages(path, rng):
    with open(path, "r+b") as handle:
        data = bytearray(handle.read())
        changes = []
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(data)) if rng.random() < 0.7 else rng.randrange(min(len(data), 200))
            data[at] = rng.randrange(256)
            changes.append(at)
        if rng.random() < 0.15:
            del data[rng.randrange(len(data)):]
        handle.seek(0)
        handle.truncate()
        handle.write(data)
    return f"bytes changed at {changes[:4]}"


def odd_metadata(db, rng):
    row = db.execute('SELECT "Z_PLIST" FROM "Z_METADATA" LIMIT 1').fetchone()
    plist = row[0] if row and row[0] else b""
    kind = rng.randrange(6)
    if kind == 0 and plist:
        value, note = mutate_binary(plist, rng), "Z_PLIST bytes mutated"
    elif kind == 1:
        value, note = rng.choice(["'text'", "12", "x'00'", "NULL"]), "Z_PLIST of another type"
        db.execute(f'UPDATE "Z_METADATA" SET "Z_PLIST" = {value}')
        return note
    elif kind == 2:
        odd = rng.choice([[1, 2], "string", {"NSStoreModelVersionHashes": "not a dict"},
                          {"NSStoreModelVersionHashes": {"A": 5, "B": [1]}, "NSStoreModelVersionIdentifiers": 7},
                          {"NSStoreModelVersionHashes": {"E" * 3000: b"x" * 32}}])
        value, note = plistlib.dumps(odd, fmt=plistlib.FMT_BINARY), f"Z_PLIST = {str(odd)[:40]}"
    elif kind == 3:
        nested = "x"
        for _ in range(rng.choice([100, 1000, 5000])):
            nested = [nested]
        try:
            value = plistlib.dumps({"NSStoreModelVersionHashes": nested}, fmt=plistlib.FMT_XML)
        except RecursionError:
            value = b"<plist>" + b"<array>" * 3000
        note = "Z_PLIST nested deeply"
    elif kind == 4:
        value, note = b"<?xml version='1.0'?><plist><dict><key>a</key>" + b"<array>" * 20000, "XML plist nested"
    else:
        db.execute('UPDATE "Z_METADATA" SET "Z_UUID" = ?', (rng.choice([12, b"\x00\xff", 2.5]),))
        return "Z_UUID of another type"
    db.execute('UPDATE "Z_METADATA" SET "Z_PLIST" = ?', (value,))
    return note


def odd_lease(db, rng):
    db.execute('CREATE TABLE IF NOT EXISTS "_instar_lease" ("id" INTEGER PRIMARY KEY, "owner", "pid", "host", '
               '"since", "heartbeat")')
    pid = rng.choice(["'text'", "2147483648", "9223372036854775807", "-1", "NULL", "x'01'", "1.5", "0"])
    since = rng.choice(["0", "'yesterday'", "NULL", "1e308", "-1e308"])
    owner = rng.choice(["'me'", "NULL", "42", "x'ff'"])
    db.execute('DELETE FROM "_instar_lease"')
    db.execute(f'INSERT INTO "_instar_lease" VALUES (1, {owner}, {pid}, \'host\', {since}, {since})')
    return f"lease pid {pid}, since {since}, owner {owner}"


def odd_journal(db, rng):
    db.execute('CREATE TABLE IF NOT EXISTS "_instar_journal" ("run" PRIMARY KEY, "plan", "status", "step", '
               '"phase", "hook", "checkpoint", "attempts", "lastError", "owner", "startedAt", "updatedAt", "entry")')
    entry = rng.choice(["NULL", "12", "x'00'", "'{'", "'[]'", "'{\"run\": 5}'", "'" + "[" * 5000 + "'",
                        "'{\"run\":\"r\",\"plan\":\"p\",\"status\":\"running\",\"step\":99999999999}'"])
    status = rng.choice(["'running'", "NULL", "3", "'finished'"])
    db.execute(f'INSERT OR REPLACE INTO "_instar_journal" ("run", "status", "updatedAt", "entry") '
               f'VALUES (\'r\', {status}, \'2026\', {entry})')
    return f"journal entry {entry[:30]}, status {status}"


def odd_schema(db, rng):
    """A view or trigger or table that is legal SQLite but unusual."""
    sql = rng.choice([
        'CREATE VIEW "v" AS SELECT 1',
        'CREATE TABLE "t" ("a" INTEGER PRIMARY KEY, "b" REFERENCES "missing"("x"))',
        'CREATE TABLE "' + "q" * 2000 + '" ("a")',
        'CREATE TABLE "t2" ("a" DEFAULT (1+1), "b" GENERATED ALWAYS AS (a*2))',
        'CREATE INDEX "i" ON "Z_PRIMARYKEY" (Z_NAME || \'x\')',
        'CREATE TABLE "Z_METADATA" ("Z_VERSION", "Z_UUID", "Z_PLIST")',
        'CREATE TABLE "_instar_metadata" ("key", "value")',
    ])
    db.execute(sql)
    return f"schema: {sql[:60]}"
