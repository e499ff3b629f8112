-- The schema jdbc_test.go creates on fickle and on PostgreSQL 15 before running JdbcCheck.
CREATE SCHEMA shop;
CREATE TABLE customers (id serial PRIMARY KEY, email varchar(120) NOT NULL UNIQUE, name text, created_at timestamptz DEFAULT now(), vip boolean NOT NULL DEFAULT false);
CREATE TABLE shop.products (sku char(8) PRIMARY KEY, title varchar(200) NOT NULL, price numeric(10,2) NOT NULL CHECK (price >= 0), weight real, tags text[], attrs jsonb, image bytea, uid uuid);
CREATE TABLE shop.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, customer_id int NOT NULL REFERENCES customers(id) ON DELETE CASCADE, placed date NOT NULL, note text);
CREATE TABLE shop.order_lines (order_id bigint REFERENCES shop.orders(id) ON UPDATE CASCADE ON DELETE RESTRICT, line smallint, sku char(8) NOT NULL REFERENCES shop.products, qty integer NOT NULL DEFAULT 1, PRIMARY KEY (order_id, line));
CREATE INDEX orders_placed_idx ON shop.orders (placed, customer_id);
CREATE UNIQUE INDEX products_title_uidx ON shop.products (title);
CREATE SEQUENCE shop.invoice_seq;
CREATE TABLE audit (at timestamp, who name, amount double precision, ok bool, payload json, big bigint, ratio numeric);
CREATE TABLE shop.shipments (id int PRIMARY KEY, order_id bigint, line smallint, FOREIGN KEY (order_id, line) REFERENCES shop.order_lines (order_id, line) ON DELETE SET NULL);
COMMENT ON TABLE customers IS 'who buys';
COMMENT ON COLUMN customers.email IS 'login';
-- Fixtures: rows every connection sees from the start.
INSERT INTO customers (email, name, vip) VALUES ('first@example.com', 'First', true), ('second@example.com', NULL, false);
INSERT INTO audit (at, who, amount, ok, payload, big, ratio) VALUES ('2023-12-31 23:59:59.5', 'fixture', 2.25, false, '{"a": [1, 2]}', 9007199254740993, 1.5);
CREATE VIEW shop.product_prices AS SELECT p.sku, p.title, p.price * 1.2 AS gross FROM shop.products p WHERE p.price > 0;
