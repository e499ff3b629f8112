"""pg8000, the pure-Python driver, as an application uses it, against the
database the PG* environment variables name: it binds every parameter
with the type it infers from the Python value and reads most results in
the binary format (numeric, timestamps, arrays, uuid, json), through the
DB-API: transactions, an error and the rollback after it, executemany.
It prints what it reads, so that runs on two servers compare line by
line."""
import datetime
import decimal
import json
import os
import uuid

import pg8000

con = pg8000.connect(user=os.environ["PGUSER"], host=os.environ["PGHOST"], port=int(os.environ["PGPORT"]),
                     database=os.environ["PGDATABASE"])
cur = con.cursor()


def plain(v):
    """A value as it prints the same on any run: datetimes in ISO form
    (pg8000's UTC object prints its address)."""
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, datetime.datetime):
        return "datetime " + v.isoformat()
    return v


def run(label, sql, args=()):
    try:
        cur.execute(sql, args)
    except pg8000.ProgrammingError as e:
        print(label, "error", e.args[2])
        con.rollback()
        return
    if cur.description is None:
        print(label, "rowcount", cur.rowcount)
        return
    print(label, [d[0] for d in cur.description], repr(plain(cur.fetchall())))


run("drop", "DROP TABLE IF EXISTS ledger")
run("create", """CREATE TABLE ledger (id serial PRIMARY KEY, name text UNIQUE, amount numeric(10, 2), at timestamptz,
    day date, ok boolean, meta jsonb, tags text[], ref uuid, blob bytea, ratio float8, big bigint, local timestamp)""")
con.commit()
run("insert", """INSERT INTO ledger (name, amount, at, day, ok, meta, tags, ref, blob, ratio, big, local)
    VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id""",
    ("rent", decimal.Decimal("1.50"), datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=pg8000.utc), datetime.date(2024, 2, 29), True,
     json.dumps({"a": [1, "two"]}), ["a", "b"], uuid.UUID("12345678-1234-5678-1234-567812345678"), pg8000.Binary(b"\x00\x01"),
     1.5, 2**40, datetime.datetime(2024, 1, 2, 3, 4, 5, 678000)))
run("select", "SELECT name, amount, at, day, ok, meta, tags, ref, blob, ratio, big, local FROM ledger")
run("filter", "SELECT count(*) FROM ledger WHERE name = %s AND amount > %s", ("rent", 1))
run("arith", "SELECT %s::int + 1, %s || '!', %s * 2", (41, "hi", decimal.Decimal("-3.140")))
run("types", "SELECT array[1, 2], NULL::text, interval '1 day 2 hours', '12:34'::time, 1.5::float4, 'x'::varchar, "
    "'c'::char(3), 5::smallint, 10::oid, pg_typeof(pg_current_xact_id())::text")
con.commit()
run("update", "UPDATE ledger SET name = 'gone'")
con.rollback()
run("after rollback", "SELECT name FROM ledger")
run("division", "SELECT 1 / 0")
run("unique", "INSERT INTO ledger (name) VALUES (%s)", ("rent",))
run("recovered", "SELECT 1")
cur.executemany("INSERT INTO ledger (name, amount) VALUES (%s, %s)", [("a", decimal.Decimal("2")), ("b", None)])
con.commit()
run("many", "SELECT name, amount FROM ledger ORDER BY id")
run("any", "SELECT %s = ANY(%s), %s::date + 1", (2, [1, 2, 3], datetime.date(2020, 2, 28)))
con.close()
