#!/usr/bin/env python3
"""Fills a Music 1 store (made by `instar store create models/v1.yaml --store …`) with sample tracks.

Usage: sample-data.py STORE [ROWS]

ROWS (default 200) is the number of tracks in all; the first ones are fixed edge cases (several
artists, duplicates, non-ASCII, escaped Unicode, NULL / empty / malformed JSON, artistName fallback),
the rest are generated with a fixed seed, so the same arguments always give the same store.
"""
import json
import random
import sqlite3
import sys

ARTISTS = [
    "Adele", "Sia", "Björk", "Beyoncé", "Sigur Rós", "坂本龍一", "Mötley Crüe", "Guns N' Roses",
    "\"Weird Al\" Yankovic", "Daft Punk", "Nina Simone", "Rosalía", "BTS (방탄소년단)", "Ólafur Arnalds",
]


def artists_json(names, ascii_only=False, spaced=False):
    separators = (", ", ": ") if spaced else (",", ":")
    return json.dumps([{"name": n} for n in names], ensure_ascii=ascii_only, separators=separators)


# (title, duration, json, artistName)
EDGE_CASES = [
    ("Hello", 295, artists_json(["Adele"]), "Adele"),
    ("Chandelier Duet", 216, artists_json(["Adele", "Sia"]), "Adele"),
    ("Joga", 305, artists_json(["Björk"]), "Björk"),
    # The same artist, written with \u escapes: one Artist, two tracks.
    ("Jóga (live)", 312, artists_json(["Björk"], ascii_only=True), "Bjork"),
    # Named twice in one track: one link.
    ("Titanium Remix", 245, artists_json(["Sia", "Sia"]), "Sia"),
    # Spaces around a name are trimmed: the same Adele.
    ("Someone Like You", 285, json.dumps([{"name": " Adele "}]), " Adele "),
    # Other keys besides name, nested values.
    ("Merry Christmas Mr. Lawrence", 277,
     json.dumps([{"name": "坂本龍一", "role": "composer", "ids": {"mbid": "x"}}], ensure_ascii=False), "坂本龍一"),
    # Quotes in names.
    ("Sweet Child O' Mine", 356, artists_json(["Guns N' Roses"]), "Guns N' Roses"),
    ("White & Nerdy", 170, artists_json(["\"Weird Al\" Yankovic"], spaced=True), "\"Weird Al\" Yankovic"),
    # No JSON: the artist comes from artistName.
    ("Feeling Good", 173, None, "Nina Simone"),
    # Empty array: artistName again.
    ("Malamente", 150, "[]", "Rosalía"),
    # Malformed JSON: skipped, artistName used.
    ("Broken Import", 100, "[{\"name\": \"Daft Punk\"", "Daft Punk"),
    # Elements without a usable name are skipped: nothing left, so artistName is used.
    ("Nameless", 60, json.dumps([{"id": 3}, {"name": None}, {"name": 42}, {"name": "   "}, "Sia"]), "Ólafur Arnalds"),
    # Some usable, some not: only the usable one counts (artistName is not used).
    ("Partly Named", 61, json.dumps([{"name": None}, {"name": "Sigur Rós"}], ensure_ascii=False), "Someone Else"),
    # JSON that is not an array: skipped.
    ("Object Not Array", 62, json.dumps({"name": "Beyoncé"}, ensure_ascii=False), None),
    # Nobody at all: the track keeps no artist.
    ("Unknown Artist", None, None, None),
    ("Empty Everything", None, "", ""),
    # Duplicate title, other artists.
    ("Hello", 250, artists_json(["Mötley Crüe", "BTS (방탄소년단)", "Beyoncé"]), "Mötley Crüe"),
]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) == 3 else 200
    rng = random.Random(20261121)
    rows = list(EDGE_CASES[:total])
    for i in range(len(rows), total):
        names = rng.sample(ARTISTS, rng.choice([1, 1, 1, 2, 2, 3]))
        text = artists_json(names, ascii_only=rng.random() < 0.2, spaced=rng.random() < 0.5)
        rows.append((f"Track {i + 1}", rng.randint(90, 600), text, names[0]))
    db = sqlite3.connect(path)
    with db:
        db.executemany('INSERT INTO "Track" ("title", "duration", "json", "artistName") VALUES (?, ?, ?, ?)', rows)
    db.close()
    print(f"{path}: {len(rows)} tracks")


if __name__ == "__main__":
    main()
