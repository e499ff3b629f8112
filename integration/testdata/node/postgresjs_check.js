// postgres.js (porsager/postgres), a Node.js driver of its own: it reads the array types from pg_type when it
// connects, sends tagged-template queries as named prepared statements over the extended protocol and pipelines
// them on one connection. The check runs its dynamic helpers (inserts and updates from objects, IN lists, arrays,
// json), transactions with savepoints, a cursor fetching a few rows at a time (portals with a row limit), forEach,
// describe(), simple-protocol and unsafe queries, COPY in and out as streams, concurrent queries on a pool and the
// errors it reports. It prints what it finds; the test compares fickle's output with PostgreSQL's.
// Usage: node postgresjs_check.js URL
'use strict';
const postgres = require('postgres');
const { pipeline } = require('node:stream/promises');
const { Readable, Writable } = require('node:stream');

async function step(name, f) {
  try {
    const v = await f();
    console.log(name + ':', JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x)));
  } catch (e) {
    console.log(name + ': error', e.code, e.message);
  }
}

const rows = (r) => r.map((x) => ({ ...x }));

async function main() {
  // The pool's four connections are one fickle session (fickle.session, a startup parameter here): each sees what
  // the others committed before, as one application's requests do.
  const sql = postgres(process.argv[2], { max: 4, connection: { 'fickle.session': 'postgresjs' },
    onnotice: (n) => console.log('notice:', n.message) });
  await sql`create table pj_items (id serial primary key, name text not null unique, tags text[], price numeric(8,2),
    meta jsonb, made timestamptz default '2024-01-01 00:00:00+00')`;
  await step('insert objects', async () => rows(await sql`insert into pj_items ${sql([
    { name: 'bolt', tags: ['metal', 'small'], price: '0.25', meta: sql.json({ size: 3 }) },
    { name: 'nut', tags: ['metal'], price: '0.10', meta: sql.json({ size: 2 }) },
    { name: 'gear', tags: [], price: '12.00', meta: null },
  ], 'name', 'tags', 'price', 'meta')} returning id, name, tags, price, meta`));
  await step('select in', async () => rows(await sql`select name from pj_items where name in ${sql(['bolt', 'gear'])} order by name`));
  await step('array param', async () => rows(await sql`select name from pj_items where tags && ${sql.array(['small', 'x'])} order by 1`));
  await step('json param', async () => rows(await sql`select name from pj_items where meta @> ${sql.json({ size: 2 })}`));
  await step('jsonb key param', async () => rows(await sql`select name from pj_items where meta ? ${'size'} order by 1`));
  await step('update object', async () => rows(await sql`update pj_items set ${sql({ price: '0.30', tags: ['metal', 'zinc'] }, 'price', 'tags')}
    where name = ${'bolt'} returning name, price, tags`));
  await step('dynamic columns', async () => rows(await sql`select ${sql(['name', 'price'])} from pj_items order by ${sql('price')} desc`));
  await step('types', async () => rows(await sql`select ${1}::int as i, ${2n}::int8 as b, ${1.5}::float8 as f, ${true} as t,
    ${new Date(Date.UTC(2024, 1, 3, 4, 5, 6))}::timestamptz as ts, ${'x'} as s, ${null}::int as n, ${[1, 2, 3]}::int[] as a`));

  await step('transaction with savepoint', async () => {
    const out = await sql.begin(async (tx) => {
      await tx`insert into pj_items (name) values ('washer')`;
      try {
        await tx.savepoint(async (sp) => {
          await sp`insert into pj_items (name) values ('nut')`;
        });
      } catch (e) {
        console.log('savepoint rolled back:', e.code);
      }
      return rows(await tx`select count(*)::int as n from pj_items`);
    });
    return out;
  });
  await step('rolled back', async () => {
    try {
      await sql.begin(async (tx) => {
        await tx`insert into pj_items (name) values ('spring')`;
        throw new Error('abort');
      });
    } catch (e) {
      console.log('begin threw:', e.message);
    }
    return rows(await sql`select name from pj_items where name = 'spring'`);
  });

  await sql`insert into pj_items (name, price) select 'part' || g, g from generate_series(1, 25) g`;
  await step('cursor', async () => {
    const seen = [];
    for await (const batch of sql`select name from pj_items where name like 'part%' order by price`.cursor(10)) {
      seen.push(batch.length + ':' + batch[0].name);
    }
    return seen;
  });
  await step('forEach', async () => {
    let n = 0;
    await sql`select id from pj_items`.forEach(() => { n++; });
    return n;
  });
  await step('describe', async () => {
    const d = await sql`select name, price from pj_items where id = ${1} and tags @> ${['a']}`.describe();
    return { types: d.types, columns: d.columns.map((c) => c.name + ':' + c.type) };
  });
  await step('simple', async () => rows(await sql`select count(*)::int as n from pj_items`.simple()));
  await step('unsafe multi', async () => (await sql.unsafe('select 1 as a; select 2 as b')).map(rows));
  await step('unsafe params', async () => rows(await sql.unsafe('select $1::text || $2 as s', ['a', 'b'])));

  await sql`create table pj_copy (a int, b text)`;
  await step('copy from stdin', async () => {
    const w = await sql`copy pj_copy from stdin`.writable();
    await pipeline(Readable.from(['1\tone\n', '2\ttwo\n', '3\t\\N\n']), w);
    return rows(await sql`select * from pj_copy order by a`);
  });
  await step('copy to stdout', async () => {
    const r = await sql`copy (select * from pj_copy order by a) to stdout with (format csv)`.readable();
    let text = '';
    await pipeline(r, new Writable({ write(chunk, _enc, cb) { text += chunk; cb(); } }));
    return text;
  });

  await step('concurrent', async () => {
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => sql`select ${i}::int * 2 as v`));
    return all.map((r) => r[0].v);
  });
  await step('unique violation', async () => {
    try {
      await sql`insert into pj_items (name) values ('bolt')`;
      return 'inserted';
    } catch (e) {
      return [e.code, e.constraint_name, e.table_name, e.detail];
    }
  });
  await step('syntax error', async () => {
    try {
      await sql`select from where`;
      return 'ran';
    } catch (e) {
      return [e.code, e.position];
    }
  });
  await step('missing table', async () => {
    try {
      await sql`select * from pj_missing`;
      return 'ran';
    } catch (e) {
      return [e.code, e.message];
    }
  });
  await sql.end();
}

main().catch((e) => {
  console.log('FAILED', e);
  process.exit(1);
});
