-- Generated columns (stored and virtual) are kept raw.
CREATE TABLE box (id INTEGER PRIMARY KEY, w REAL NOT NULL, h REAL NOT NULL, area REAL GENERATED ALWAYS AS (w * h) STORED, half REAL AS (w / 2));
CREATE TABLE shelf (id INTEGER PRIMARY KEY, name TEXT);
