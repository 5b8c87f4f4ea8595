-- Library 1 -> Library 6 by hand, fused: one transaction, each table rewritten at most once
-- (book and member rebuilt, loan by DROP COLUMN), the join table filled in its key's order and
-- every index built after its table is filled. Run with the sqlite3 CLI (foreign_keys off).
BEGIN;
CREATE TABLE "book_v6" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "isbn" TEXT, "year" INTEGER, "page_count" INTEGER);
INSERT INTO "book_v6" ("id", "title", "isbn", "year", "page_count")
  SELECT "id", "title", "isbn", "year", "pages" FROM "book";
CREATE TABLE "author_book" ("author_id" INTEGER NOT NULL REFERENCES "author"("id"), "book_id" INTEGER NOT NULL REFERENCES "book"("id"), PRIMARY KEY ("author_id", "book_id"));
INSERT INTO "author_book" ("author_id", "book_id")
  SELECT "author_id", "id" FROM "book" WHERE "author_id" IS NOT NULL ORDER BY "author_id", "id";
DROP TABLE "book";
ALTER TABLE "book_v6" RENAME TO "book";
CREATE INDEX "book_title_idx" ON "book" ("title");
CREATE INDEX "author_book_book_idx" ON "author_book" ("book_id");
CREATE TABLE "member_v6" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "email" TEXT, "joined" REAL NOT NULL, "phone" TEXT);
INSERT INTO "member_v6" ("id", "name", "email", "joined", "phone")
  SELECT "id", "name", "email", "joined", NULL FROM "member";
DROP TABLE "member";
ALTER TABLE "member_v6" RENAME TO "member";
ALTER TABLE "loan" DROP COLUMN "note";
COMMIT;
