#!/usr/bin/env python3
"""Fills a Garage 1 store (made by `instar store create models/v1.yaml --store …`) with sample data.

Usage: sample-data.py STORE [ROWS]

ROWS (default 200) is the number of cars. Owners are fixed, with non-ASCII and duplicate names and
one owner without cars. The first cars are fixed edge cases (no owner, no color, no year, non-ASCII
color, duplicate plates); the rest are generated with a fixed seed, so the same arguments always
give the same store.
"""
import random
import sqlite3
import sys

# (name, phone)
OWNERS = [
    ("Ada Lovelace", "+44 20 7946 0000"),
    ("José Núñez", None),
    ("Ada Lovelace", "+44 20 7946 0001"),   # same name, another owner
    ("山田太郎", "+81 3-1234-5678"),
    ("Carless Carla", None),                # owns no car
]
# (plate, color, year, owner index or None)
EDGE_CARS = [
    ("B-AD 1815", "red", 1965, 0),
    ("M-JN 42", "azul eléctrico", 2019, 1),
    ("M-JN 42", "azul eléctrico", 2019, 2),  # same plate and color, other owner
    ("品川 300 あ 12-34", "白", 2021, 3),
    ("NO-OWNER", "green", 1999, None),
    ("NO-COLOR", None, 2005, 0),
    ("NO-YEAR", "black", None, 1),
    ("EMPTY-COLOR", "", 32767, None),        # empty string, int16 maximum
]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) == 3 else 200
    rng = random.Random(20261121)
    cars = list(EDGE_CARS[:total])
    colors = ["red", "blue", "silver", "black", "white", "British racing green", "gelb", "bleu nuit", None]
    for i in range(len(cars), total):
        cars.append((f"XX-{i + 1:04d}", rng.choice(colors), rng.choice([None, rng.randint(1950, 2025)]),
                     None if rng.random() < 0.1 else rng.randrange(0, 4)))
    db = sqlite3.connect(path)
    with db:
        pks = [db.execute('INSERT INTO "Owner" ("name", "phone") VALUES (?, ?)', row).lastrowid for row in OWNERS]
        db.executemany(
            'INSERT INTO "Car" ("plate", "color", "year", "owner") VALUES (?, ?, ?, ?)',
            [(plate, color, year, None if owner is None else pks[owner]) for plate, color, year, owner in cars])
    db.close()
    print(f"{path}: {len(OWNERS)} owners, {len(cars)} cars")


if __name__ == "__main__":
    main()
