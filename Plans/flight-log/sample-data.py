#!/usr/bin/env python3
"""Fills a Flight Log 1 store (made by `instar store create models/v1.yaml --store …`) with sample data.

Usage: sample-data.py STORE [ROWS]

ROWS (default 200) is the number of log entries. The first ones are fixed edge cases: the same
aircraft or airport written in other cases or with spaces, pilots with non-ASCII names, a pilot
name that differs only in case, empty strings and NULLs, a circuit (departure = arrival), and
flight data that is NULL, empty, or contains zero bytes. The rest are generated with a fixed seed,
so the same arguments always give the same store. Dates are ISO-8601 text in UTC.
"""
import random
import sqlite3
import sys

# (date, aircraftRegistration, pilotName, departureAirport, arrivalAirport, minutes, remarks, flightData)
EDGE_CASES = [
    ("2024-03-01T08:15:00.000Z", "D-EABC", "Amelia Earhart", "EDDF", "EDDM", 55, None, bytes(range(256))),
    ("2024-03-01T12:40:00.000Z", "d-eabc ", " Amelia Earhart", "eddm", "EDDF ", 58, "same aircraft, same pilot", b"\x00\x00\x01"),
    ("2024-03-02T09:00:00.000Z", " D-EABC", "Zoë Ångström", "EDFE", "EDFE", 42, "Platzrunden ✈ böiger Wind", b""),
    ("2024-03-03T10:30:00.000Z", "G-BOAC", "李娜", "EGLL", "KJFK", 210, "Concorde 🛫", b"\xff" * 5000),
    ("2024-03-04T06:05:00.000Z", "JA8119", "amelia earhart", "RJTT", "RJAA", None, "case differs: another pilot", None),
    ("2024-03-05T07:00:00.000Z", None, None, None, None, None, None, None),
    ("2024-03-06T07:30:00.000Z", "", "", "", "  ", 0, "", None),
    ("2024-03-07T16:45:00.000Z", "N12345", "Seán O'Connor", "KJFK", None, 95, "diverted; arrival unknown", b"\x00"),
    ("2024-03-08T18:20:00.000Z", "N12345", "Seán O'Connor", None, "KBOS", 61, None, b"GPS,1,2,3\n"),
]
REGISTRATIONS = ["D-EABC", "D-EFGH", "G-BOAC", "N12345", "JA8119", "F-GZCP", "OE-LBA", "HB-JNA"]
PILOTS = ["Amelia Earhart", "Zoë Ångström", "李娜", "Seán O'Connor", "Jürgen Müller", "Ana Lúcia", "Olga Иванова"]
AIRPORTS = ["EDDF", "EDDM", "EDFE", "EGLL", "KJFK", "KBOS", "RJTT", "RJAA", "LFPG", "LOWW", "LSZH"]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) == 3 else 200
    rng = random.Random(20261121)
    rows = list(EDGE_CASES[:total])
    for i in range(len(rows), total):
        registration = rng.choice(REGISTRATIONS)
        if rng.random() < 0.2:
            registration = registration.lower()
        departure, arrival = rng.sample(AIRPORTS, 2)
        data = None if rng.random() < 0.15 else rng.randbytes(rng.randint(1, 4096))
        rows.append((
            f"2024-{rng.randint(4, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00.000Z",
            registration, rng.choice(PILOTS), departure, arrival, rng.randint(20, 600),
            None if rng.random() < 0.5 else f"entry {i + 1}", data))
    db = sqlite3.connect(path)
    with db:
        db.executemany(
            'INSERT INTO "LogEntry" ("date", "aircraftRegistration", "pilotName", "departureAirport", "arrivalAirport",'
            ' "minutes", "remarks", "flightData") VALUES (?, ?, ?, ?, ?, ?, ?, ?)', rows)
    db.close()
    print(f"{path}: {len(rows)} log entries")


if __name__ == "__main__":
    main()
