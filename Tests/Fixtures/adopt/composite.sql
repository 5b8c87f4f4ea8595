-- Composite keys: a line table keyed by (order, line) is raw; a link table with an extra column is an
-- entity with two to-ones and compositeKey; a pure link table is a many-to-many; a self link too.
CREATE TABLE purchase (id INTEGER PRIMARY KEY, placed REAL NOT NULL);
CREATE TABLE purchase_line (purchase_id INTEGER NOT NULL REFERENCES purchase(id), line_no INTEGER NOT NULL, sku TEXT NOT NULL, PRIMARY KEY (purchase_id, line_no));
CREATE TABLE product (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE);
CREATE TABLE purchase_product (purchase_id INTEGER NOT NULL REFERENCES purchase(id), product_id INTEGER NOT NULL REFERENCES product(id), quantity INTEGER, PRIMARY KEY (purchase_id, product_id));
CREATE TABLE product_related (product_id INTEGER NOT NULL REFERENCES product(id), related_id INTEGER NOT NULL REFERENCES product(id), PRIMARY KEY (related_id, product_id));
CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE follows (follower_id INTEGER NOT NULL REFERENCES person(id), followed_id INTEGER NOT NULL REFERENCES person(id), PRIMARY KEY (follower_id, followed_id));
CREATE INDEX follows_followed ON follows(followed_id);
CREATE INDEX follows_follower ON follows(follower_id);
