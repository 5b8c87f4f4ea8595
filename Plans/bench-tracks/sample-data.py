#!/usr/bin/env python3
"""sample-data.py STORE [ROWS] -- fill a store created at 'Tracks 1' with the peer benchmark's data.

The rows come from the benchmark's own generator (../shared/bench/make_store.py, used by path, not
copied), so this store holds exactly what the peers migrate: tracks with JSON artist lists, albums,
and the generator's edge cases (NULLs, duplicate artist names, non-ASCII names).
"""
import importlib.util
import random
import sqlite3
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO.parent / "shared" / "bench" / "make_store.py"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    store = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    if not GENERATOR.exists():
        sys.exit(f"error: the benchmark generator is missing: {GENERATOR} (../shared beside the repository)")
    spec = importlib.util.spec_from_file_location("make_store", GENERATOR)
    make_store = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_store)
    rng = random.Random(make_store.SEED)
    n_albums = max(1, n // 10)
    pool = make_store.artist_pool(n, rng)
    con = sqlite3.connect(store, isolation_level=None)
    con.execute("BEGIN")
    con.executemany("INSERT INTO album(id, title, year) VALUES (?,?,?)",
                    ((a, f"Album {a} {rng.choice(make_store.WORDS)}", rng.randint(1960, 2024))
                     for a in range(1, n_albums + 1)))
    con.executemany("INSERT INTO track (id, title, artist_name, json, last_played_at, image_url, album_id) "
                    "VALUES (?,?,?,?,?,?,?)", make_store.rows(n, rng, pool, n_albums))
    con.execute("COMMIT")
    con.close()
    print(f"{store}: {n} tracks, {n_albums} albums")


if __name__ == "__main__":
    main()
