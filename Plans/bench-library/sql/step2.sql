-- Library 2 -> 3: book.pages renamed page_count.
BEGIN;
ALTER TABLE "book" RENAME COLUMN "pages" TO "page_count";
COMMIT;
