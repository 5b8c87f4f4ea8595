-- A full-text virtual table (its shadow tables come with it) beside an entity table.
CREATE TABLE doc (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT);
CREATE VIRTUAL TABLE doc_search USING fts5(title, body, content='doc', content_rowid='id');
