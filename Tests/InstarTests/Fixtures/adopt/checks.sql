-- CHECK constraints and COLLATE make a table raw; a table referring to a raw table becomes raw too.
CREATE TABLE account (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0), kind TEXT NOT NULL DEFAULT 'user');
CREATE TABLE movement (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES account(id), amount INTEGER NOT NULL);
CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE NOT NULL);
CREATE TABLE stamp (id INTEGER PRIMARY KEY, at TEXT DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
