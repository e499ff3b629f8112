-- The schema psql_describe_test.go creates on fickle and on PostgreSQL 15
-- before running psql's describe commands against both.
CREATE SCHEMA app;
COMMENT ON SCHEMA public IS 'standard public schema';
CREATE TABLE authors (id serial PRIMARY KEY, name text NOT NULL UNIQUE, born date DEFAULT '1900-01-01');
CREATE TABLE app.books (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, author_id int NOT NULL REFERENCES authors(id),
  title varchar(200) NOT NULL, price numeric(8,2) CHECK (price >= 0), tags text COLLATE "C" DEFAULT 'none');
CREATE INDEX books_title_idx ON app.books (title);
CREATE SEQUENCE app.ticket_seq START 100 INCREMENT 5;
COMMENT ON TABLE authors IS 'people who write';
CREATE UNIQUE INDEX authors_name_ci ON authors (lower(name), (born + 1)) WHERE born IS NOT NULL;
CREATE VIEW app.book_titles AS SELECT b.id, b.title, a.name AS author FROM app.books b JOIN authors a ON a.id = b.author_id WHERE b.price > 10;
CREATE VIEW author_names (who) AS SELECT name FROM authors ORDER BY name;
CREATE ROLE describe_reader NOLOGIN;
CREATE ROLE describe_app LOGIN CREATEDB CONNECTION LIMIT 3 IN ROLE describe_reader;
GRANT SELECT ON authors TO describe_reader;
CREATE FUNCTION app.book_count(author int, min_price numeric DEFAULT 0) RETURNS bigint LANGUAGE sql STABLE
  AS 'SELECT count(*) FROM app.books WHERE author_id = author AND price >= min_price';
CREATE FUNCTION trim_name() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.name := trim(NEW.name); RETURN NEW; END $$;
CREATE TRIGGER authors_trim BEFORE INSERT OR UPDATE OF name ON authors FOR EACH ROW EXECUTE FUNCTION trim_name();
CREATE TRIGGER books_audit AFTER DELETE ON app.books FOR EACH STATEMENT EXECUTE FUNCTION trim_name();
CREATE PROCEDURE app.transfer(src bigint, dst bigint, amount numeric) LANGUAGE plpgsql
  AS $$ BEGIN UPDATE app.books SET price = price - amount WHERE id = src; UPDATE app.books SET price = price + amount WHERE id = dst; END $$;
CREATE FUNCTION app.priced(floor numeric, OUT title varchar, OUT price numeric) RETURNS SETOF record LANGUAGE sql STABLE STRICT
  SECURITY DEFINER SET search_path = app, pg_temp AS 'SELECT title, price FROM app.books WHERE price >= floor';
CREATE TRIGGER authors_renamed AFTER UPDATE ON authors FOR EACH ROW WHEN (NEW.name IS DISTINCT FROM OLD.name) EXECUTE FUNCTION trim_name();
CREATE EXTENSION pgcrypto;
CREATE TABLE app.keys (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), secret text DEFAULT crypt('', gen_salt('md5')), token bytea DEFAULT public.gen_random_bytes(16));
CREATE DOMAIN app.us_zip AS text DEFAULT '00000' CONSTRAINT five_digits CHECK (length(VALUE) = 5);
CREATE TYPE app.address AS (street text, zip app.us_zip);
CREATE TABLE app.stays (room int, nights daterange, EXCLUDE USING gist (nights WITH &&) WHERE (room > 0), EXCLUDE (room WITH =) DEFERRABLE INITIALLY DEFERRED);
