-- WITHOUT ROWID and text primary keys are kept as raw SQL; an entity table beside them.
CREATE TABLE setting (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
CREATE TABLE country (code TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country_code TEXT REFERENCES country(code));
CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT);
