// MikroORM 6's type mapping round trip: timestamps with and without a zone and a precision, date, time, interval,
// bigint as BigInt and as string, decimal as number, real, double, uuid, bytea, json, integer and text arrays, an
// enum array (a CHECK over text[]), a native enum, char, smallint, boolean, and NULL for each; queries on arrays
// (@>, &&), json and dates; a tsvector column (FullTextType) with its GIN index, filled from the title and
// searched with $fulltext. It prints what it reads back; the test compares fickle's output with PostgreSQL's.
// Usage: node mikroorm_types_check.js URL
'use strict';
const { MikroORM, EntitySchema, BigIntType, DecimalType } = require('@mikro-orm/core');
const { PostgreSqlDriver, FullTextType } = require('@mikro-orm/postgresql');
const T = new EntitySchema({ name: 'T', tableName: 'mt_types', properties: {
  id: { type: 'number', primary: true },
  ts: { type: 'datetime', length: 3, nullable: true },
  tsz: { type: 'datetime', columnType: 'timestamp(6)', nullable: true },
  d: { type: 'date', nullable: true },
  t: { type: 'time', nullable: true },
  iv: { type: 'interval', nullable: true },
  big: { type: new BigIntType('bigint'), nullable: true },
  bigs: { type: new BigIntType('string'), nullable: true },
  dec: { type: new DecimalType('number'), precision: 10, scale: 3, nullable: true },
  f: { type: 'float', nullable: true },
  dbl: { type: 'double', nullable: true },
  u: { type: 'uuid', nullable: true },
  b: { type: 'blob', nullable: true },
  j: { type: 'json', nullable: true },
  arr: { type: 'number[]', nullable: true },
  sarr: { type: 'string[]', nullable: true },
  en: { enum: true, type: 'string[]', items: ['a', 'b', 'c'], array: true, nullable: true },
  ne: { enum: true, items: ['x', 'y'], nativeEnumName: 'mt_ne', nullable: true },
  ch: { type: 'character', length: 2, nullable: true },
  tiny: { type: 'tinyint', nullable: true },
  bool: { type: 'boolean', nullable: true },
} });
const D = new EntitySchema({ name: 'D', tableName: 'mft_docs', properties: {
  id: { type: 'number', primary: true }, title: { type: 'string' },
  search: { type: new FullTextType('english'), index: 'fulltext', nullable: true, onCreate: (d) => d.title, onUpdate: (d) => d.title },
} });
async function main() {
  const orm = await MikroORM.init({ driver: PostgreSqlDriver, clientUrl: process.argv[2], entities: [T, D], debug: false, allowGlobalContext: true,
    pool: { min: 0, max: 1 }, driverOptions: { connection: { options: '-c fickle.session=mikroorm' } } });
  await orm.schema.createSchema();
  console.log('update:', JSON.stringify((await orm.schema.getUpdateSchemaSQL({ wrap: false, dropTables: false })).trim()));
  const em = orm.em.fork();
  em.create('T', { ts: new Date('2024-01-02T03:04:05.678Z'), tsz: new Date('2024-06-30T23:59:59.123Z'), d: '2024-02-29', t: '13:14:15', iv: '1 day 02:03:04',
    big: 9007199254740993n, bigs: '-9223372036854775808', dec: 1234.5678, f: 1.25, dbl: 0.1, u: '0b5e7f1c-4e2a-4b8e-9d2f-3a1b2c3d4e5f', b: Buffer.from([0, 1, 255]),
    j: [1, { a: 'x' }, null], arr: [1, 2, 3], sarr: ['a b', 'c,d', '"q"', ''], en: ['a', 'c'], ne: 'y', ch: 'z', tiny: 7, bool: true });
  em.create('T', {});
  await em.flush();
  const rows = await orm.em.fork().find('T', {}, { orderBy: { id: 'asc' } });
  for (const r of rows) {
    console.log(JSON.stringify(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() + 'n' : v instanceof Date ? v.toISOString() : Buffer.isBuffer(v) ? v.toString('hex') : v])));
  }
  const found = await orm.em.fork().find('T', { en: { $contains: ['c'] }, arr: { $overlap: [3, 9] }, j: { $ne: null } });
  console.log('found', found.length);
  const byDate = await orm.em.fork().count('T', { ts: { $gte: new Date('2024-01-01T00:00:00Z') }, d: { $lt: '2024-03-01' } });
  console.log('byDate', byDate);
  const fem = orm.em.fork();
  for (const t of ['The quick brown foxes', 'Lazy dogs sleeping', 'A fox and a dog']) fem.create('D', { title: t });
  await fem.flush();
  const r = await orm.em.fork().find('D', { search: { $fulltext: 'fox' } }, { orderBy: { id: 'asc' } });
  console.log('fox:', JSON.stringify(r.map((d) => d.title)));
  const r2 = await orm.em.fork().find('D', { search: { $fulltext: 'dogs & sleep' } });
  console.log('dogs & sleep:', JSON.stringify(r2.map((d) => d.title)));
  const all = await orm.em.fork().find('D', {}, { orderBy: { id: 'asc' } });
  console.log('vectors:', JSON.stringify(all.map((d) => d.search)));
  await orm.schema.dropSchema();
  await orm.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
