-- Library 3 -> 4: book.isbn and member.email lose NOT NULL: both tables rebuilt.
BEGIN;
CREATE TABLE "book_v4" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "isbn" TEXT, "year" INTEGER, "page_count" INTEGER, "author_id" INTEGER REFERENCES "author"("id"));
INSERT INTO "book_v4" SELECT "id", "title", "isbn", "year", "page_count", "author_id" FROM "book";
DROP TABLE "book";
ALTER TABLE "book_v4" RENAME TO "book";
CREATE INDEX "book_title_idx" ON "book" ("title");
CREATE TABLE "member_v4" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "email" TEXT, "joined" REAL NOT NULL, "phone" TEXT);
INSERT INTO "member_v4" SELECT "id", "name", "email", "joined", "phone" FROM "member";
DROP TABLE "member";
ALTER TABLE "member_v4" RENAME TO "member";
COMMIT;
