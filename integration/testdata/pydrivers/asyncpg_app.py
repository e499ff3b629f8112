"""asyncpg as an application uses it, against the database the PG*
environment variables name: parameters and results in the binary
protocol, prepared statements, transactions and savepoints, cursors over
portals, COPY in and out, executemany. It prints what it reads, so that
runs on two servers can be compared line by line."""
import asyncio
import datetime
import decimal
import json
import uuid

import asyncpg

TZ = datetime.timezone(datetime.timedelta(hours=2))


def show(label, value):
    print(label, repr(value))


async def main():
    conn = await asyncpg.connect(server_settings={"TimeZone": "Europe/Paris"})
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
    await conn.execute("DROP TABLE IF EXISTS acct, entry")
    await conn.execute("""CREATE TABLE acct (
        id bigserial PRIMARY KEY, owner text NOT NULL UNIQUE, balance numeric(12, 2) NOT NULL DEFAULT 0,
        opened date, seen timestamptz, rate float8, active boolean, tag uuid, meta jsonb, labels text[], blob bytea)""")
    await conn.execute("CREATE TABLE entry (id int PRIMARY KEY, acct_id bigint REFERENCES acct, amount numeric(12, 2), at timestamp)")

    row = ("ann", decimal.Decimal("100.50"), datetime.date(2024, 2, 29), datetime.datetime(2024, 3, 1, 12, 0, 0, 250000, tzinfo=TZ),
           0.5, True, uuid.UUID("87654321-4321-8765-4321-876543218765"), {"k": [1, "two"]}, ["a", None, "c"], b"\x01\x02")
    ins = "INSERT INTO acct (owner, balance, opened, seen, rate, active, tag, meta, labels, blob) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id"
    show("insert id", await conn.fetchval(ins, *row))
    show("insert id", await conn.fetchval(ins, "bob", *row[1:]))
    rec = await conn.fetchrow("SELECT owner, balance, opened, seen, rate, active, tag, meta, labels, blob FROM acct WHERE owner = $1", "ann")
    show("record", tuple(rec))
    show("expressions", tuple(await conn.fetchrow("SELECT $1::int * 2, $2::text || '!', $3::numeric + 1, $4::date - 1, $5::text[]",
                                                     21, "hi", decimal.Decimal("1.25"), datetime.date(2024, 3, 1), ["x", "y"])))
    # Arrays other than text[] make asyncpg introspect their types (a query
    # over pg_type with array_agg(... ORDER BY ...) and regtype casts).
    show("introspected arrays", tuple(await conn.fetchrow("SELECT $1::int[], $2::numeric[], $3::int8[] || 7::int8",
                                                            [1, None, 3], [decimal.Decimal("1.5")], [5, 6])))

    stmt = await conn.prepare("SELECT owner FROM acct WHERE balance >= $1 ORDER BY owner")
    show("prepared params", [(p.name, p.kind) for p in stmt.get_parameters()])
    show("prepared attributes", [(a.name, a.type.name) for a in stmt.get_attributes()])
    show("prepared", [await stmt.fetch(decimal.Decimal(v)) for v in ("0", "100.50", "1000")])

    async with conn.transaction():
        await conn.execute("UPDATE acct SET balance = balance - 10 WHERE owner = 'ann'")
        try:
            async with conn.transaction():
                await conn.execute("INSERT INTO acct (owner) VALUES ('ann')")
        except asyncpg.UniqueViolationError as e:
            show("savepoint error", e.sqlstate)
        async with conn.transaction():
            await conn.execute("INSERT INTO entry VALUES (1, 1, -10, '2024-03-02 10:00')")
    try:
        async with conn.transaction():
            await conn.execute("INSERT INTO entry VALUES (2, 1, 5, NULL)")
            raise RuntimeError
    except RuntimeError:
        pass
    show("after transactions", tuple(await conn.fetchrow("SELECT (SELECT balance FROM acct WHERE owner = 'ann'), (SELECT count(*) FROM entry)")))

    await conn.executemany("INSERT INTO entry VALUES ($1, $2, $3, $4)",
                           [(i, 2, decimal.Decimal(i) / 4, datetime.datetime(2024, 1, 1) + datetime.timedelta(hours=i)) for i in range(10, 40)])
    async with conn.transaction():
        cur = await conn.cursor("SELECT id, amount FROM entry WHERE acct_id = $1 ORDER BY id", 2)
        show("cursor fetch", await cur.fetch(4))
        await cur.forward(10)
        show("cursor after forward", await cur.fetchrow())
        seen = [r["id"] async for r in conn.cursor("SELECT id FROM entry ORDER BY id", prefetch=6)]
        show("cursor iteration", (len(seen), seen[:3], seen[-1]))

    show("copy in", await conn.copy_records_to_table("entry", records=[(100 + i, 1, decimal.Decimal("0.01") * i, None) for i in range(5)]))
    import io
    buf = io.BytesIO()
    show("copy out", await conn.copy_from_query("SELECT id, amount FROM entry WHERE id >= $1 ORDER BY id", 100, output=buf))
    print(buf.getvalue().decode())
    buf = io.BytesIO()
    await conn.copy_from_table("entry", columns=["id", "amount"], output=buf, format="csv", header=True)
    print(buf.getvalue().decode())

    try:
        await conn.execute("INSERT INTO entry VALUES (500, 999, 1, NULL)")
    except asyncpg.ForeignKeyViolationError as e:
        show("fk error", (e.sqlstate, e.constraint_name, e.detail))
    show("final", tuple(await conn.fetchrow("SELECT count(*), sum(amount) FROM entry")))
    await conn.close()


asyncio.run(main())
