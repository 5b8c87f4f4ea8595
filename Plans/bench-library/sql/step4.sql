-- Library 4 -> 5: book.author (to-one) becomes book.authors <-> author.books: the join table is
-- filled from book.author_id, then book is rebuilt without it (a foreign key column cannot be dropped).
BEGIN;
CREATE TABLE "author_book" ("author_id" INTEGER NOT NULL REFERENCES "author"("id"), "book_id" INTEGER NOT NULL REFERENCES "book"("id"), PRIMARY KEY ("author_id", "book_id"));
INSERT INTO "author_book" ("author_id", "book_id")
  SELECT "author_id", "id" FROM "book" WHERE "author_id" IS NOT NULL ORDER BY "author_id", "id";
CREATE INDEX "author_book_book_idx" ON "author_book" ("book_id");
CREATE TABLE "book_v5" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "isbn" TEXT, "year" INTEGER, "page_count" INTEGER);
INSERT INTO "book_v5" SELECT "id", "title", "isbn", "year", "page_count" FROM "book";
DROP TABLE "book";
ALTER TABLE "book_v5" RENAME TO "book";
CREATE INDEX "book_title_idx" ON "book" ("title");
COMMIT;
