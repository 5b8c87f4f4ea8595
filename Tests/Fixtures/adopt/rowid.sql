-- Tables without a declared primary key (only SQLite's rowid), one with untyped columns.
CREATE TABLE log (at REAL NOT NULL, level INTEGER DEFAULT 1, message TEXT);
CREATE TABLE kv (k, v);
CREATE INDEX log_at ON log (at DESC);
