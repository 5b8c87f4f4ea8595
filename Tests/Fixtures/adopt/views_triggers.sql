-- Views and triggers over entity tables: kept raw, recreated around steps.
CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, updated REAL);
CREATE TABLE "order" (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), total REAL NOT NULL DEFAULT 0);
CREATE VIEW customer_totals AS SELECT c.id, c.name, sum(o.total) AS total FROM customer c LEFT JOIN "order" o ON o.customer_id = c.id GROUP BY c.id;
CREATE TRIGGER customer_touch AFTER UPDATE OF name ON customer BEGIN UPDATE customer SET updated = julianday('now') WHERE id = new.id; END;
