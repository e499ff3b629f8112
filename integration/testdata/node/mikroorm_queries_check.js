// MikroORM 6's reads: populate with the joined strategy under LIMIT/OFFSET (a subquery pages the roots), filters on
// one-to-many and many-to-many relations, findAndCount, a virtual entity over a SQL expression, a formula property
// (a correlated subquery) in WHERE and ORDER BY, counts through a pivot table, Collection.matching and init with
// a where, QueryBuilder raw selects with an ordered string_agg, a subquery as a column, the sql tag, nativeDelete
// through a relation, em.execute with parameters, and nested, read-only and hand-run transactions. It prints what
// it finds; the test compares fickle's output with PostgreSQL's.
// Usage: node mikroorm_queries_check.js URL
'use strict';
const { MikroORM, EntitySchema, raw, sql, IsolationLevel, FlushMode } = require('@mikro-orm/core');
const { PostgreSqlDriver } = require('@mikro-orm/postgresql');
// step prints what f returns, or the error it fails with.
async function step(name, f) {
  try {
    console.log(name + ':', JSON.stringify(await f()));
  } catch (e) {
    console.log(name + ': error', e.name, e.code, e.message.split('\n').pop());
  }
}
const A = new EntitySchema({ name: 'A', tableName: 'mq_a', properties: {
  id: { type: 'number', primary: true }, name: { type: 'string' }, n: { type: 'number', default: 0 },
  bs: { kind: '1:m', entity: 'B', mappedBy: 'a' }, cs: { kind: 'm:n', entity: 'C', owner: true },
  total: { type: 'number', formula: (a) => `(select count(*) from mq_b b where b.a_id = ${a}.id)`, persist: false },
} });
const B = new EntitySchema({ name: 'B', tableName: 'mq_b', properties: {
  id: { type: 'number', primary: true }, title: { type: 'string' }, a: { kind: 'm:1', entity: 'A' },
} });
const C = new EntitySchema({ name: 'C', tableName: 'mq_c', properties: {
  id: { type: 'number', primary: true }, label: { type: 'string' }, as: { kind: 'm:n', entity: 'A', mappedBy: 'cs' },
} });
const P = new EntitySchema({ name: 'P', tableName: 'mtx_p', properties: { id: { type: 'number', primary: true }, v: { type: 'string', unique: true }, n: { type: 'number', default: 0 } } });
const V = new EntitySchema({ name: 'V', tableName: 'mq_v', expression: 'select a.name, count(b.id)::int as cnt from mq_a a left join mq_b b on b.a_id = a.id group by a.name', properties: {
  name: { type: 'string' }, cnt: { type: 'number' } } });
async function main() {
  const orm = await MikroORM.init({ driver: PostgreSqlDriver, clientUrl: process.argv[2], entities: [A, B, C, V, P], debug: false, allowGlobalContext: true,
    pool: { min: 0, max: 1 }, driverOptions: { connection: { options: '-c fickle.session=mikroorm' } } });
  await step('create', () => orm.schema.createSchema());
  await step('update', async () => (await orm.schema.getUpdateSchemaSQL({ wrap: false, dropTables: false })).trim());
  const em = orm.em.fork();
  const cs = ['x', 'y', 'z'].map((label) => em.create('C', { label }));
  for (let i = 1; i <= 6; i++) {
    const a = em.create('A', { name: 'a' + i, n: i % 3, cs: cs.slice(0, i % 4) });
    for (let j = 0; j < i % 3; j++) em.create('B', { title: `b${i}.${j}`, a });
  }
  await em.flush();
  await step('joined limit', async () => (await orm.em.fork().find('A', {}, { populate: ['bs', 'cs'], orderBy: { name: 'desc' }, limit: 3, offset: 1 })).map((a) => [a.name, a.bs.length, a.cs.length, a.total]));
  await step('joined where on relation', async () => (await orm.em.fork().find('A', { bs: { title: { $like: 'b%' } }, cs: { label: 'x' } }, { populate: ['bs'], orderBy: { name: 'asc', bs: { title: 'desc' } } })).map((a) => [a.name, a.bs.getItems().map((b) => b.title)]));
  await step('findAndCount joined', async () => { const [r, c] = await orm.em.fork().findAndCount('A', { n: { $in: [1, 2] } }, { populate: ['cs'], limit: 2, orderBy: { id: 'asc' } }); return [r.map((a) => a.name), c]; });
  await step('virtual entity', async () => (await orm.em.fork().find('V', {}, { orderBy: { name: 'asc' } })).map((v) => [v.name, v.cnt]));
  await step('formula order', async () => (await orm.em.fork().find('A', { total: { $gt: 0 } }, { orderBy: { total: 'desc', name: 'asc' } })).map((a) => a.name + ':' + a.total));
  await step('count distinct', () => orm.em.fork().count('A', { cs: { label: { $in: ['x', 'y'] } } }));
  await step('collection matching', async () => { const f = orm.em.fork(); const a = await f.findOneOrFail('A', { name: 'a5' }); return (await a.bs.matching({ orderBy: { title: 'desc' }, limit: 1 })).map((b) => b.title); });
  await step('collection init where', async () => { const f = orm.em.fork(); const a = await f.findOneOrFail('A', { name: 'a3' }); await a.cs.init({ where: { label: { $ne: 'z' } }, orderBy: { label: 'asc' } }); return a.cs.getItems().map((c) => c.label); });
  await step('qb raw', () => orm.em.fork().createQueryBuilder('A', 'a').select([raw('max(a.n) as m'), raw('string_agg(a.name, \',\' order by a.name) as names')]).execute('get'));
  await step('sql tag', () => orm.em.fork().find('A', { [sql`lower(name)`]: 'a1' }).then((r) => r.map((a) => a.name)));
  await step('qb with subquery in select', async () => { const f = orm.em.fork(); const sub = f.createQueryBuilder('B', 'b').count().where({ a: sql.ref('a.id') }).as('bcount'); return (await f.createQueryBuilder('A', 'a').select(['a.name', sub]).orderBy({ name: 'asc' }).execute('all')).map((r) => [r.name, r.bcount]); });
  await step('nativeDelete cascade-less', () => orm.em.fork().nativeDelete('B', { a: { name: 'a1' } }));
  await step('em.execute', () => orm.em.fork().execute('select ?::int + ? as s', [1, 2]));
  // Transactions: nested ones through savepoints (the inner one failing alone), an isolation level, a read-only
  // one, begin/commit/rollback by hand, and a flush before a query (FlushMode.AUTO).
  const vs = async () => (await orm.em.fork().find('P', {}, { orderBy: { v: 'asc' } })).map((p) => p.v + p.n);
  await step('nested ok', () => orm.em.fork().transactional(async (em) => { em.create('P', { v: 'a' }); await em.transactional(async (em2) => { em2.create('P', { v: 'b' }); }); return 'ok'; }));
  await step('nested inner fails', () => orm.em.fork().transactional(async (em) => { em.create('P', { v: 'c' }); await em.flush();
    try { await em.transactional(async (em2) => { em2.create('P', { v: 'a' }); }); } catch (e) { return 'inner ' + e.code; } }));
  await step('after nested', vs);
  await step('serializable', () => orm.em.fork().transactional(async (em) => (await em.getConnection().execute('show transaction_isolation', [], 'get', em.getTransactionContext())).transaction_isolation, { isolationLevel: IsolationLevel.SERIALIZABLE }));
  await step('read only', () => orm.em.fork().transactional(async (em) => { em.create('P', { v: 'ro' }); }, { readOnly: true }));
  await step('explicit begin/rollback', async () => { const em = orm.em.fork(); await em.begin(); em.create('P', { v: 'x' }); await em.flush(); await em.rollback(); return vs(); });
  await step('explicit begin/commit', async () => { const em = orm.em.fork(); await em.begin(); const p = await em.findOneOrFail('P', { v: 'a' }); p.n = 5; await em.commit(); return vs(); });
  await step('flush mode auto', async () => { const em = orm.em.fork({ flushMode: FlushMode.AUTO }); em.create('P', { v: 'auto' }); return (await em.find('P', { v: 'auto' })).length; });
  await step('after', vs);
  await step('drop', () => orm.schema.dropSchema());
  await orm.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
