-- Column CHECK and COLLATE clauses, table CHECK constraints, foreign keys declared between attributes
-- (column order that is not the layout's) and link tables whose foreign keys cascade: every table here
-- stays an entity (or a many-to-many), its clauses carried by columnSQL/tableSQL/onDelete keys.
CREATE TABLE member (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL COLLATE NOCASE UNIQUE,
    display_name TEXT COLLATE NOCASE,
    tier TEXT NOT NULL DEFAULT 'basic' CHECK (tier IN ('basic', 'plus', 'staff')),
    joined_on TEXT CHECK (joined_on IS NULL OR joined_on GLOB '[0-9][0-9][0-9][0-9]-*')
);
CREATE TABLE shelf (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL CONSTRAINT shelf_code_format CHECK (length(code) BETWEEN 2 AND 8),
    capacity INTEGER NOT NULL DEFAULT 40 CHECK (capacity > 0)
);
CREATE TABLE volume (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    shelf_id INTEGER REFERENCES shelf(id) ON DELETE SET NULL,
    title TEXT NOT NULL COLLATE NOCASE,
    pages INTEGER CHECK (pages IS NULL OR pages > 0),
    owner_id INTEGER NOT NULL REFERENCES member(id) ON DELETE CASCADE,
    price_cents INTEGER NOT NULL DEFAULT 0 CHECK (price_cents >= 0),
    CHECK (typeof(title) = 'text' AND title <> '')
);
CREATE TABLE loan (
    id INTEGER PRIMARY KEY,
    volume_id INTEGER NOT NULL REFERENCES volume(id),
    borrower_id INTEGER NOT NULL REFERENCES member(id),
    starts REAL NOT NULL,
    ends REAL,
    CONSTRAINT loan_dates CHECK (ends IS NULL OR ends >= starts)
);
CREATE TABLE tag (id INTEGER PRIMARY KEY, label TEXT NOT NULL COLLATE NOCASE);
CREATE TABLE volume_tag (
    volume_id INTEGER NOT NULL REFERENCES volume(id) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES tag(id) ON DELETE CASCADE,
    PRIMARY KEY (volume_id, tag_id)
);
CREATE INDEX volume_tag_tag ON volume_tag (tag_id);
CREATE TABLE member_follow (
    member_id INTEGER NOT NULL REFERENCES member(id) ON DELETE CASCADE,
    followed_id INTEGER NOT NULL REFERENCES member(id),
    PRIMARY KEY (member_id, followed_id)
);
CREATE INDEX loan_by_borrower ON loan (borrower_id, starts DESC);
-- Named constraints: a named UNIQUE over two columns, a named single-column UNIQUE, named foreign keys
-- (as a column constraint and as a table constraint).
CREATE TABLE branch (
    id INTEGER PRIMARY KEY,
    city TEXT NOT NULL,
    street TEXT NOT NULL,
    code TEXT NOT NULL CONSTRAINT branch_code_unique UNIQUE,
    manager_id INTEGER CONSTRAINT fk_branch_manager REFERENCES member(id),
    CONSTRAINT branch_address UNIQUE (city, street)
);
CREATE TABLE copy (
    id INTEGER PRIMARY KEY,
    volume_id INTEGER NOT NULL,
    branch_id INTEGER,
    barcode TEXT NOT NULL,
    CONSTRAINT fk_copy_volume FOREIGN KEY (volume_id) REFERENCES volume(id) ON DELETE CASCADE,
    CONSTRAINT fk_copy_branch FOREIGN KEY (branch_id) REFERENCES branch(id),
    UNIQUE (barcode)
);
