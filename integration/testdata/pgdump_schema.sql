-- The schema and rows TestPgDumpMatchesPostgres builds on PostgreSQL 15 and
-- on fickle before it compares pg_dump's output of the two.
CREATE SCHEMA inventory;
COMMENT ON SCHEMA inventory IS 'stock kept apart';
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE authors (
  id serial PRIMARY KEY,
  name text NOT NULL,
  email text UNIQUE,
  mood mood DEFAULT 'ok',
  created_at timestamp DEFAULT now(),
  CONSTRAINT name_not_blank CHECK (name <> '')
);
CREATE TABLE books (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  author_id integer NOT NULL REFERENCES authors(id) ON DELETE CASCADE,
  title varchar(200) NOT NULL,
  price numeric(10,2) DEFAULT 0 CHECK (price >= 0),
  published boolean NOT NULL DEFAULT false,
  tags text[] DEFAULT '{}'
);
CREATE INDEX books_title_idx ON books (title);
CREATE INDEX books_published_idx ON books (author_id) WHERE published;
CREATE INDEX books_lower_title_idx ON books (lower(title));
CREATE UNIQUE INDEX books_author_title_key ON books (author_id, title DESC);
CREATE STATISTICS books_author_price (dependencies, mcv) ON author_id, price FROM books;
CREATE STATISTICS inventory.books_title_len ON (length(title)), published FROM books;
ALTER STATISTICS inventory.books_title_len SET STATISTICS 50;
COMMENT ON STATISTICS books_author_price IS 'who sets prices';
CREATE VIEW published_books AS
  SELECT b.id, b.title, a.name AS author FROM books b JOIN authors a ON a.id = b.author_id WHERE b.published;
CREATE SEQUENCE order_numbers START 1000 INCREMENT 5;
CREATE TABLE inventory.items (
  sku text PRIMARY KEY,
  qty integer NOT NULL DEFAULT 0,
  book_id integer REFERENCES books(id) ON DELETE SET NULL,
  order_no bigint DEFAULT nextval('order_numbers')
);
-- billing_zip sorts before the domain it is over, and the composite type uses
-- a domain: only pg_depend's rows make pg_dump create them in an order that
-- restores.
CREATE DOMAIN zip_code AS text CHECK (length(VALUE) = 5);
CREATE DOMAIN billing_zip AS zip_code NOT NULL DEFAULT '00000';
CREATE TYPE inventory.box AS (width numeric(6,2), height numeric(6,2), origin zip_code);
CREATE TABLE inventory.shipments (id integer PRIMARY KEY, zip billing_zip, parcel inventory.box);
-- A partitioned table: pg_dump copies each leaf's rows, and the load copies
-- them into the leaves.
CREATE TABLE events (id integer NOT NULL, kind text NOT NULL, at date NOT NULL) PARTITION BY LIST (kind);
CREATE TABLE events_click PARTITION OF events FOR VALUES IN ('click');
CREATE TABLE events_other PARTITION OF events DEFAULT;
CREATE FUNCTION touch_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.created_at := now();
  RETURN NEW;
END;
$$;
CREATE FUNCTION inventory.total_qty() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT sum(qty) FROM inventory.items $$;
CREATE FUNCTION inventory.add_square(bigint, integer) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT $1 + $2 * $2 $$;
CREATE FUNCTION inventory.label(bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'sum of squares: ' || $1 $$;
CREATE AGGREGATE inventory.sum_squares(integer) (SFUNC = inventory.add_square, STYPE = bigint, INITCOND = '0',
  FINALFUNC = inventory.label);
CREATE TRIGGER authors_touch BEFORE INSERT ON authors FOR EACH ROW EXECUTE FUNCTION touch_created();
COMMENT ON TABLE authors IS 'people who write';
COMMENT ON COLUMN authors.email IS 'contact address';
CREATE ROLE pgdump_reader;
GRANT SELECT ON authors, books TO pgdump_reader;
GRANT USAGE ON SCHEMA inventory TO pgdump_reader;
GRANT SELECT (sku, qty), UPDATE (qty) ON inventory.items TO pgdump_reader;
GRANT REFERENCES (id) ON books TO PUBLIC;
INSERT INTO authors (name, email, mood) VALUES ('Ann', 'ann@example.com', 'happy'), ('Bob', NULL, 'sad');
-- The trigger stamps rows with now(); fixed times make the dumps comparable.
UPDATE authors SET created_at = timestamp '2024-01-02 03:04:05.678' + id * interval '1 minute';
INSERT INTO books (author_id, title, price, published, tags)
  VALUES (1, 'First', 9.50, true, '{novel}'), (1, 'Second', 12, false, DEFAULT), (2, E'Tab\tand ''quote''\nnewline', 0, true, '{"a b",c}');
INSERT INTO inventory.items (sku, qty, book_id) VALUES ('A-1', 3, 1), ('B-2', 0, NULL);
INSERT INTO inventory.shipments VALUES (1, '12345', ROW(1.5, 2, '54321')), (2, DEFAULT, NULL);
INSERT INTO events VALUES (1, 'click', '2024-01-01'), (2, 'view', '2024-01-02'), (3, 'click', '2024-01-03');
-- Exclusion constraints: over a range alone, and with btree_gist's = beside &&, a WHERE and DEFERRABLE.
CREATE EXTENSION btree_gist;
CREATE TABLE rooms_booked (room int, during int4range, note text,
  EXCLUDE USING gist (during WITH &&) WHERE (room = 0),
  CONSTRAINT one_booking EXCLUDE USING gist (room WITH =, during WITH &&) DEFERRABLE);
INSERT INTO rooms_booked VALUES (1, '[1,5)', 'a'), (1, '[5,9)', 'b'), (2, '[1,9)', NULL);
-- Publications (change-data-capture setups): a row filter and column list, a schema, all tables.
SET client_min_messages = 'ERROR';
CREATE PUBLICATION books_pub FOR TABLE books (id, title) WHERE (price > 0) WITH (publish = 'insert, update');
CREATE PUBLICATION inventory_pub FOR TABLES IN SCHEMA inventory, TABLE authors;
CREATE PUBLICATION all_pub FOR ALL TABLES WITH (publish_via_partition_root = true);
COMMENT ON PUBLICATION all_pub IS 'everything';
RESET client_min_messages;
