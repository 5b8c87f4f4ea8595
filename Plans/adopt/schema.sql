-- A library database written by hand years ago, never seen by Instar: its own naming (PascalCase
-- tables, <Table>Id keys, prefixed index names), a foreign key declared between attributes, a link
-- table, a view, a CHECK clause on a column (kept by the model: columnSQL), and an audit table keyed by
-- time WITHOUT ROWID, which no model can express (kept as raw SQL).
CREATE TABLE "Author" (
    "AuthorId" INTEGER PRIMARY KEY,
    "FullName" varchar(120) NOT NULL,
    "Born" INTEGER
);
CREATE TABLE "Book" (
    "BookId" INTEGER PRIMARY KEY AUTOINCREMENT,
    "Title" varchar(200) NOT NULL,
    "AuthorId" INTEGER NOT NULL REFERENCES "Author" ("AuthorId"),
    "Pages" INTEGER DEFAULT 0 CHECK ("Pages" >= 0),
    "Isbn" TEXT
);
CREATE UNIQUE INDEX "UX_Book_Isbn" ON "Book" ("Isbn");
CREATE INDEX "IX_Book_Author" ON "Book" ("AuthorId");
CREATE TABLE "Shelf" (
    "ShelfId" INTEGER PRIMARY KEY,
    "Label" TEXT NOT NULL
);
CREATE TABLE "ShelfBook" (
    "ShelfId" INTEGER NOT NULL REFERENCES "Shelf" ("ShelfId"),
    "BookId" INTEGER NOT NULL REFERENCES "Book" ("BookId"),
    PRIMARY KEY ("ShelfId", "BookId")
);
CREATE INDEX "IX_ShelfBook_Book" ON "ShelfBook" ("BookId");
CREATE TABLE "AuditLog" (
    "At" REAL NOT NULL PRIMARY KEY,
    "Message" TEXT NOT NULL CHECK (length("Message") > 0)
) WITHOUT ROWID;
CREATE VIEW "BookList" AS
    SELECT b."Title" AS "Title", a."FullName" AS "Author"
    FROM "Book" AS b JOIN "Author" AS a ON a."AuthorId" = b."AuthorId";
