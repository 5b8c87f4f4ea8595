-- The Library 1 schema as Scripts/bench-library creates it (before filling it).
CREATE TABLE "author" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "born" INTEGER);
CREATE TABLE "book" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "isbn" TEXT NOT NULL, "year" INTEGER, "pages" INTEGER, "author_id" INTEGER REFERENCES "author"("id"));
CREATE TABLE "member" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "email" TEXT NOT NULL, "joined" REAL NOT NULL);
CREATE TABLE "loan" ("id" INTEGER PRIMARY KEY, "out_at" REAL NOT NULL, "due_at" REAL NOT NULL, "returned_at" REAL, "note" TEXT, "book_id" INTEGER REFERENCES "book"("id"), "member_id" INTEGER REFERENCES "member"("id"));
