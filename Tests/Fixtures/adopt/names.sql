-- Awkward names: spaces, keywords, quotes, non-ASCII, mixed case; expression and partial indexes.
CREATE TABLE "Order Details" ("Line Id" INTEGER PRIMARY KEY, "select" TEXT, "café" REAL DEFAULT 1.5, "He said ""hi""" TEXT DEFAULT 'it''s', "Group" INTEGER DEFAULT -3);
CREATE TABLE "MixedCase" ("ID" INTEGER PRIMARY KEY, "Value" TEXT, "Ref" INTEGER REFERENCES "Order Details"("Line Id"));
CREATE INDEX "by select" ON "Order Details" ("select");
CREATE INDEX lower_select ON "Order Details" (lower("select"));
CREATE INDEX partial_value ON "MixedCase" ("Value") WHERE "Value" IS NOT NULL;
CREATE UNIQUE INDEX "unique ref" ON "MixedCase" ("Ref", "Value");
