#!/usr/bin/env python3
"""Creates the hand-written library database of this example (schema.sql) and fills it.

Usage: sample-data.py STORE [BOOKS]

BOOKS (default 300) is the number of books. Authors, shelves and audit lines are fixed; books are
generated with a fixed seed (some without ISBN, some with non-ASCII titles), so the same arguments
always give the same database. Refuses to overwrite an existing file.
"""
import os
import random
import sqlite3
import sys

AUTHORS = [("Ursula K. Le Guin", 1929), ("Gabriel García Márquez", 1927), ("夏目漱石", 1867), ("Anonymous", None)]
SHELVES = ["Fiction", "Classics", "To read", "Empty shelf"]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) == 3 else 300
    if os.path.exists(path):
        sys.exit("refusing to overwrite %s" % path)
    schema = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.sql"), encoding="utf-8").read()
    db = sqlite3.connect(path)
    db.executescript(schema)
    rng = random.Random(15)
    db.executemany('INSERT INTO "Author" ("FullName", "Born") VALUES (?, ?)', AUTHORS)
    db.executemany('INSERT INTO "Shelf" ("Label") VALUES (?)', [(s,) for s in SHELVES])
    for n in range(1, total + 1):
        title = rng.choice(["The Dispossessed", "Cien años de soledad", "吾輩は猫である", "Untitled"]) + " #%d" % n
        isbn = None if n % 7 == 0 else "978-%010d" % n
        pages = None if n % 11 == 0 else rng.randint(50, 900)
        db.execute('INSERT INTO "Book" ("Title", "AuthorId", "Pages", "Isbn") VALUES (?, ?, ?, ?)',
                   (title, rng.randint(1, len(AUTHORS)), pages, isbn))
        for shelf in range(1, len(SHELVES)):
            if rng.random() < 0.3:
                db.execute('INSERT INTO "ShelfBook" ("ShelfId", "BookId") VALUES (?, ?)', (shelf, n))
    db.execute('INSERT INTO "AuditLog" ("At", "Message") VALUES (1700000000.0, ?)', ("imported %d books" % total,))
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
