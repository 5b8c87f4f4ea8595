-- Written to the sql layout's own conventions: only NOT NULL keys and the link table get naming keys.
CREATE TABLE artist (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE album (id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER, artist_id INTEGER REFERENCES artist(id));
CREATE TABLE tag (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
CREATE TABLE album_tag (album_id INTEGER NOT NULL REFERENCES album(id), tag_id INTEGER NOT NULL REFERENCES tag(id), PRIMARY KEY (album_id, tag_id));
CREATE INDEX album_tag_tag_idx ON album_tag(tag_id);
-- A foreign key written without the parent's column: it names the parent's primary key.
CREATE TABLE review (id INTEGER PRIMARY KEY, album_id INTEGER NOT NULL REFERENCES album, stars INTEGER NOT NULL DEFAULT 3);
