-- A GRDB-style app: camelCase columns, AUTOINCREMENT, cascading foreign keys, grdb_migrations.
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
CREATE TABLE "team" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL, "color" TEXT);
CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "teamId" INTEGER REFERENCES "team"("id") ON DELETE CASCADE, "name" TEXT NOT NULL, "score" INTEGER NOT NULL DEFAULT 0, "photo" BLOB, "isCaptain" BOOLEAN NOT NULL DEFAULT 0);
CREATE INDEX "player_on_teamId" ON "player"("teamId");
CREATE TABLE "award" ("id" INTEGER PRIMARY KEY, "playerId" INTEGER NOT NULL REFERENCES "player"("id") ON DELETE CASCADE, "title" TEXT NOT NULL, "year" INTEGER NOT NULL, UNIQUE("playerId", "title", "year"));
