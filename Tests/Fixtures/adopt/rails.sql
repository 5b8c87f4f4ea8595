-- A Rails-style app: varchar without length, datetime(6), DEFAULT literals, named foreign key
-- constraints, index_<table>_on_<column> names, schema_migrations with a text primary key (raw).
CREATE TABLE IF NOT EXISTS "schema_migrations" ("version" varchar NOT NULL PRIMARY KEY);
CREATE TABLE IF NOT EXISTS "ar_internal_metadata" ("key" varchar NOT NULL PRIMARY KEY, "value" varchar, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL);
CREATE TABLE IF NOT EXISTS "users" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "email" varchar DEFAULT '' NOT NULL, "admin" boolean DEFAULT 0 NOT NULL, "sign_in_count" integer DEFAULT 0 NOT NULL, "balance" decimal(8,2) DEFAULT 0.0, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL);
CREATE UNIQUE INDEX "index_users_on_email" ON "users" ("email");
CREATE TABLE IF NOT EXISTS "posts" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "user_id" integer NOT NULL, "title" varchar NOT NULL, "body" text, "score" float DEFAULT 0, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL, CONSTRAINT "fk_rails_5b5ddfd518" FOREIGN KEY ("user_id") REFERENCES "users" ("id"));
CREATE INDEX "index_posts_on_user_id" ON "posts" ("user_id");
CREATE TABLE IF NOT EXISTS "comments" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "post_id" integer NOT NULL, "user_id" integer, "body" text NOT NULL, "created_at" datetime(6) NOT NULL, CONSTRAINT "fk_rails_2fd19c0db7" FOREIGN KEY ("post_id") REFERENCES "posts" ("id") ON DELETE CASCADE, CONSTRAINT "fk_rails_03de2dc08c" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE SET NULL);
CREATE INDEX "index_comments_on_post_id" ON "comments" ("post_id");
CREATE INDEX "index_comments_on_user_id_and_created_at" ON "comments" ("user_id", "created_at");
