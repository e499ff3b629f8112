"""psycopg 3 as an application uses it, against the database the PG*
environment variables name: parameters of many types (text and binary),
transactions and savepoints, named (server-side) cursors, COPY in and out
(text and binary), pipeline mode and prepared statements. It prints what
it reads, so that runs on two servers can be compared line by line."""
import datetime
import decimal
import uuid

import psycopg
from psycopg.types.json import Jsonb

TZ = datetime.timezone(datetime.timedelta(hours=2))


def show(label, value):
    print(label, repr(value))


def main():
    with psycopg.connect("", autocommit=True) as conn:
        conn.execute("SET TimeZone = 'Europe/Paris'")
        conn.execute("DROP TABLE IF EXISTS item, note")
        conn.execute("""CREATE TABLE item (
            id serial PRIMARY KEY, name text NOT NULL UNIQUE, qty int, price numeric(10, 2), ratio float8,
            flag boolean, born date, seen timestamptz, span interval, tag uuid, doc jsonb, tags text[], raw bytea)""")
        conn.execute("CREATE TABLE note (id int PRIMARY KEY, item_id int REFERENCES item, body text)")

        row = ("alpha", 3, decimal.Decimal("9.99"), 0.25, True, datetime.date(2024, 2, 29),
               datetime.datetime(2024, 3, 1, 12, 30, 15, 123456, tzinfo=TZ), datetime.timedelta(days=1, seconds=3661),
               uuid.UUID("12345678-1234-5678-1234-567812345678"), Jsonb({"a": [1, 2, None], "b": "x"}), ["x", "y z", None],
               b"\x00\xffbytes")
        cols = "name, qty, price, ratio, flag, born, seen, span, tag, doc, tags, raw"
        ph = ", ".join(["%s"] * 12)
        conn.execute(f"INSERT INTO item ({cols}) VALUES ({ph})", row)
        with conn.cursor(binary=True) as cur:
            cur.execute(f"INSERT INTO item ({cols}) VALUES ({ph}) RETURNING id", ("beta",) + row[1:])
            show("binary insert id", cur.fetchone())
        for binary in (False, True):
            with conn.cursor(binary=binary) as cur:
                cur.execute(f"SELECT {cols} FROM item WHERE name = %s", ("alpha",))
                show("select binary=%s" % binary, cur.fetchone())
                show("description", [(d.name, d.type_code) for d in cur.description])
        show("typed params", conn.execute("SELECT %s::int + %s, %s || 'x', %s::date + 1, %s::text IS NULL", (1, 2, "a", datetime.date(2024, 1, 31), None)).fetchone())
        show("prepared", [conn.execute("SELECT qty * %s FROM item WHERE name = %s", (n, "alpha"), prepare=True).fetchone() for n in range(1, 7)])

        # Transactions and savepoints.
        conn.autocommit = False
        with conn.transaction():
            conn.execute("UPDATE item SET qty = qty + 1 WHERE name = 'alpha'")
            try:
                with conn.transaction():
                    conn.execute("INSERT INTO item (name) VALUES ('alpha')")
            except psycopg.errors.UniqueViolation as e:
                show("savepoint rolled back", e.sqlstate)
            with conn.transaction():
                conn.execute("INSERT INTO note VALUES (1, 1, 'kept')")
        try:
            with conn.transaction():
                conn.execute("INSERT INTO note VALUES (2, 1, 'gone')")
                raise RuntimeError("rollback")
        except RuntimeError:
            pass
        show("after transactions", conn.execute("SELECT (SELECT qty FROM item WHERE name = 'alpha'), (SELECT count(*) FROM note)").fetchone())
        conn.commit()

        # Named cursors.
        with conn.transaction():
            conn.execute("INSERT INTO note SELECT g, 1, 'n' || g FROM generate_series(10, 60) g")
        with conn.transaction():
            with conn.cursor(name="notes") as cur:
                cur.itersize = 7
                cur.execute("SELECT id, body FROM note WHERE id >= %s ORDER BY id", (10,))
                show("named cursor description", [d.name for d in cur.description])
                ids = [r[0] for r in cur]
                show("named cursor", (len(ids), ids[:3], ids[-2:]))
            with conn.cursor(name="scroll", scrollable=True) as cur:
                cur.execute("SELECT id FROM note ORDER BY id")
                show("fetchmany", cur.fetchmany(3))
                cur.scroll(-2)
                show("after scroll back", cur.fetchone())
                cur.scroll(5, mode="absolute")
                show("absolute", cur.fetchone())
        with conn.cursor(name="held", withhold=True) as cur:
            cur.execute("SELECT count(*) FROM note")
            conn.commit()
            show("withhold after commit", cur.fetchone())
        conn.commit()

        # COPY, text and binary, in and out.
        with conn.cursor() as cur:
            with cur.copy("COPY note (id, item_id, body) FROM STDIN") as copy:
                for i in range(100, 105):
                    copy.write_row((i, 2, "copied\t%d\n" % i))
            with cur.copy("COPY note (id, item_id, body) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["int4", "int4", "text"])
                for i in range(200, 203):
                    copy.write_row((i, None, "bin %d" % i))
            conn.commit()
            with cur.copy("COPY (SELECT id, body FROM note WHERE id >= 100 ORDER BY id) TO STDOUT") as copy:
                show("copy out text", [r for r in copy.rows()])
            with cur.copy("COPY (SELECT id, body FROM note WHERE id >= 200 ORDER BY id) TO STDOUT (FORMAT BINARY)") as copy:
                copy.set_types(["int4", "text"])
                show("copy out binary", [r for r in copy.rows()])
        conn.commit()

        # Pipeline mode.
        with conn.pipeline():
            cur = conn.execute("SELECT count(*) FROM note")
            conn.execute("INSERT INTO note VALUES (300, 1, 'piped')")
            cur2 = conn.execute("SELECT body FROM note WHERE id = %s", (300,))
            conn.execute("UPDATE note SET body = upper(body) WHERE id = 300")
            cur3 = conn.execute("SELECT body FROM note WHERE id = 300")
        show("pipeline", (cur.fetchone(), cur2.fetchone(), cur3.fetchone()))
        conn.commit()
        try:
            with conn.pipeline():
                conn.execute("INSERT INTO note VALUES (301, 1, 'x')")
                conn.execute("INSERT INTO note VALUES (301, 1, 'dup')")
                conn.execute("INSERT INTO note VALUES (302, 1, 'after')")
        except psycopg.errors.UniqueViolation as e:
            show("pipeline error", e.sqlstate)
        conn.rollback()
        show("pipeline rolled back", conn.execute("SELECT count(*) FROM note WHERE id > 300").fetchone())
        conn.rollback()

        with conn.cursor() as cur:
            cur.executemany("INSERT INTO note VALUES (%s, %s, %s)", [(400 + i, 1, "many %d" % i) for i in range(5)])
            show("executemany", cur.rowcount)
        conn.commit()
        show("final", conn.execute("SELECT count(*), sum(id) FROM note").fetchone())

        # A str parameter compared with a composite column: psycopg sends it
        # untyped, PostgreSQL types it record and cannot read it (0A000);
        # two in an IN list take the column's type.
        conn.execute("CREATE TYPE point2 AS (x int, y int)")
        conn.execute("CREATE TABLE spot (id int, p point2)")
        conn.execute("INSERT INTO spot VALUES (1, '(1,2)'), (2, '(3,4)')")
        conn.commit()
        for query, args in [
            ("SELECT id FROM spot WHERE p = %s", ("(1,2)",)),
            ("SELECT id FROM spot WHERE %s < p", ("(1,2)",)),
            ("SELECT id FROM spot WHERE p IS DISTINCT FROM %s", ("(1,2)",)),
            ("SELECT id FROM spot WHERE p IN (%s)", ("(1,2)",)),
            ("SELECT id FROM spot WHERE p IN (%s, %s) ORDER BY id", ("(1,2)", "(3,4)")),
            ("SELECT id FROM spot WHERE p = %s", (None,)),
            ("SELECT id FROM spot WHERE p = %s::point2", ("(3,4)",)),
        ]:
            try:
                show(query, conn.execute(query, args).fetchall())
            except psycopg.Error as e:
                show(query, (e.sqlstate, e.diag.message_primary))
            conn.rollback()


if __name__ == "__main__":
    main()
