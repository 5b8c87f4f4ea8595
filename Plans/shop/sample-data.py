#!/usr/bin/env python3
"""Fills a Shop 1 store (made by `instar store create models/v1.yaml --store …`) with sample data.

Usage: sample-data.py STORE [ROWS]

ROWS (default 200) is the number of products; categories are fixed: the brands Nike, Adidas and UA
(Nike twice), look-alikes that are not brands (nike, "Nike Kids", "UA " with a space, Adidas
Originals), non-ASCII names and a category without a name. Products are generated with a fixed
seed, so the same arguments always give the same store.
"""
import random
import sqlite3
import sys

# (name, sortOrder)
CATEGORIES = [
    ("Nike", 1),
    ("Adidas", 2),
    ("UA", 3),
    ("Nike", 4),              # duplicate name: both are brands
    ("nike", 5),              # not a brand: the match is exact
    ("Nike Kids", 6),
    ("UA ", 7),               # trailing space
    ("Adidas Originals", 8),
    ("Chaussures été", 9),
    ("运动鞋", 10),
    ("Socks & Co.", 11),
    (None, 12),               # no name
    ("Empty Shelf", 13),      # no products
]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) == 3 else 200
    rng = random.Random(20261121)
    db = sqlite3.connect(path)
    with db:
        pks = [db.execute('INSERT INTO "Category" ("name", "sortOrder") VALUES (?, ?)', row).lastrowid for row in CATEGORIES]
        kinds = ["Runner", "Jacket", "Cap", "Sock", "Ball", "Schuh ü", "T-shirt ✓"]
        products = []
        for i in range(total):
            category = None if i % 17 == 16 else pks[rng.randrange(0, len(pks) - 1)]  # never "Empty Shelf"
            price = None if i % 23 == 22 else round(rng.uniform(5, 250), 2)
            products.append((f"{rng.choice(kinds)} {i + 1}", price, category))
        db.executemany('INSERT INTO "Product" ("name", "price", "category") VALUES (?, ?, ?)', products)
    db.close()
    print(f"{path}: {len(CATEGORIES)} categories, {total} products")


if __name__ == "__main__":
    main()
