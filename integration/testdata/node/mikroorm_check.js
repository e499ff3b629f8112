// MikroORM 6 on PostgreSQL, with EntitySchema definitions (no decorators, no TypeScript build): the schema
// generator creates the mo_ tables (an enum, a decimal, json, a version column, a many-to-many pivot table with
// its foreign keys, indexes), then finds nothing to change (it reads pg_catalog and information_schema), then
// applies a changed schema (a new column and index) and finds nothing to change again; the entity manager flushes a
// unit of work across several entities, runs em.transactional committed and rolled back, detects a stale flush on
// the version property (OptimisticLockError), populates relations with both loading strategies, the
// QueryBuilder joins, groups, updates and deletes, upserts, a batch update, findByCursor, the lock modes, and
// clearDatabase (which sets session_replication_role = replica). It prints what it finds; the test compares fickle's output with
// PostgreSQL's.
// Usage: node mikroorm_check.js URL
'use strict';
const { MikroORM, EntitySchema, OptimisticLockError, LockMode, wrap, raw } = require('@mikro-orm/core');
const { PostgreSqlDriver } = require('@mikro-orm/postgresql');

function schemas(extended) {
  const Publisher = new EntitySchema({
    name: 'Publisher', tableName: 'mo_publishers',
    properties: {
      id: { type: 'number', primary: true },
      name: { type: 'string', length: 100, unique: true },
      kind: { enum: true, items: ['local', 'global'], default: 'local' },
      books: { kind: '1:m', entity: 'Book', mappedBy: 'publisher' },
    },
  });
  const authorProps = {
    id: { type: 'number', primary: true },
    name: { type: 'string', length: 120 },
    email: { type: 'string', unique: true },
    age: { type: 'number', nullable: true },
    active: { type: 'boolean', default: true },
    version: { type: 'number', version: true },
    books: { kind: '1:m', entity: 'Book', mappedBy: 'author', orphanRemoval: true },
  };
  if (extended) {
    authorProps.bio = { type: 'text', nullable: true };
  }
  const Author = new EntitySchema({
    name: 'Author', tableName: 'mo_authors', properties: authorProps,
    indexes: extended ? [{ properties: ['name'] }, { name: 'mo_authors_age_active_idx', properties: ['age', 'active'] }] : [{ properties: ['name'] }],
  });
  const Book = new EntitySchema({
    name: 'Book', tableName: 'mo_books',
    properties: {
      id: { type: 'number', primary: true },
      title: { type: 'string' },
      price: { type: 'decimal', precision: 8, scale: 2, default: 0 },
      meta: { type: 'json', nullable: true },
      author: { kind: 'm:1', entity: 'Author', deleteRule: 'cascade' },
      publisher: { kind: 'm:1', entity: 'Publisher', nullable: true },
      tags: { kind: 'm:n', entity: 'Tag', owner: true, pivotTable: 'mo_books_tags' },
    },
    uniques: [{ properties: ['author', 'title'] }],
  });
  const Tag = new EntitySchema({
    name: 'Tag', tableName: 'mo_tags',
    properties: {
      id: { type: 'number', primary: true },
      name: { type: 'string', length: 40, unique: true },
      books: { kind: 'm:n', entity: 'Book', mappedBy: 'tags' },
    },
  });
  return [Publisher, Author, Book, Tag];
}

async function open(url, extended) {
  return MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: url,
    entities: schemas(extended),
    debug: false,
    allowGlobalContext: false,
    // knex's pool replaces a connection after a failed query: fickle.session ties its connections into one
    // session, as docs/clients.md says (PostgreSQL takes it as a custom setting).
    pool: { min: 0, max: 1 },
    driverOptions: { connection: { options: '-c fickle.session=mikroorm' } },
    schemaGenerator: { ignoreSchema: [] },
  });
}

const summary = (sqlText) => sqlText.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('set ')).join('\n');

const bookView = (b) => `${b.title}/${b.author.name}/${b.price}/${b.publisher ? b.publisher.name : '-'}` +
  (b.tags.isInitialized() ? `[${b.tags.getItems().map((t) => t.name).sort().join(',')}]` : '');

async function main() {
  const url = process.argv[2];
  let orm = await open(url, false);
  const gen = orm.getSchemaGenerator();
  await gen.createSchema();
  console.log('update after create:', JSON.stringify(summary(await gen.getUpdateSchemaSQL({ wrap: false, dropTables: false }))));
  await orm.close();

  orm = await open(url, true);
  const diff = summary(await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false, dropTables: false }));
  console.log('changed schema:', diff);
  await orm.getSchemaGenerator().updateSchema({ dropTables: false });
  console.log('update after update:', JSON.stringify(summary(await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false, dropTables: false }))));

  // One unit of work across every entity: publishers, authors, books and the pivot rows of their tags.
  let em = orm.em.fork();
  const pubs = { acme: em.create('Publisher', { name: 'Acme', kind: 'global' }), tiny: em.create('Publisher', { name: 'Tiny' }) };
  const tags = Object.fromEntries(['math', 'history', 'computing'].map((n) => [n, em.create('Tag', { name: n })]));
  const ada = em.create('Author', { name: 'Ada', email: 'ada@example.com', age: 36 });
  const alan = em.create('Author', { name: 'Alan', email: 'alan@example.com', age: 41 });
  const grace = em.create('Author', { name: 'Grace', email: 'grace@example.com', active: false });
  em.create('Book', { title: 'Notes', price: '12.50', author: ada, publisher: pubs.acme, tags: [tags.math, tags.computing], meta: { pages: 65 } });
  em.create('Book', { title: 'Engines', author: ada, tags: [tags.history] });
  em.create('Book', { title: 'Computable numbers', price: '30.00', author: alan, publisher: pubs.tiny, tags: [tags.math] });
  em.create('Book', { title: 'Compilers', price: '8.75', author: grace, publisher: pubs.acme, tags: [tags.computing, tags.history] });
  await em.flush();
  console.log('flushed: versions', ada.version, alan.version, grace.version, 'ids assigned', [ada, alan, grace].every((a) => a.id > 0));

  em = orm.em.fork();
  const found = await em.find('Author', {}, { populate: ['books', 'books.tags', 'books.publisher'], orderBy: { name: 'asc' } });
  for (const a of found) {
    console.log('joined populate:', a.name, a.version, a.active, a.books.getItems().map(bookView).sort().join(' | '));
  }
  em = orm.em.fork();
  const books = await em.find('Book', { price: { $gt: 5 } }, { populate: ['author', 'tags'], orderBy: { title: 'asc' }, strategy: 'select-in' });
  console.log('select-in populate:', books.map(bookView).join(' | '));
  const counted = await em.count('Book', { tags: { name: 'math' } });
  console.log('books tagged math:', counted);
  const [page, total] = await em.findAndCount('Book', {}, { orderBy: { title: 'desc' }, limit: 2, offset: 1 });
  console.log('page:', page.map((b) => b.title).join(','), 'of', total);
  const meta = await em.findOne('Book', { meta: { pages: { $gte: 60 } } });
  console.log('json query:', meta && meta.title, meta && JSON.stringify(meta.meta));

  // Changes to loaded entities are flushed together; a collection change rewrites the pivot rows.
  const notes = await em.findOneOrFail('Book', { title: 'Notes' }, { populate: ['tags'] });
  notes.tags.remove((t) => t.name === 'math');
  notes.price = '13.00';
  const alan2 = await em.findOneOrFail('Author', { email: 'alan@example.com' });
  alan2.age = 42;
  await em.flush();
  console.log('after flush: alan version', alan2.version);
  em = orm.em.fork();
  const reread = await em.findOneOrFail('Book', { title: 'Notes' }, { populate: ['tags', 'author'] });
  console.log('reread:', bookView(reread));

  // em.transactional: committed, then rolled back by a unique violation and by a thrown error.
  const edsger = await orm.em.fork().transactional(async (tem) => {
    const e = tem.create('Author', { name: 'Edsger', email: 'edsger@example.com', age: 72 });
    tem.create('Book', { title: 'Goto', price: '1.00', author: e });
    return e;
  });
  console.log('transactional committed:', edsger.name, edsger.version);
  try {
    await orm.em.fork().transactional(async (tem) => {
      tem.create('Author', { name: 'Barbara', email: 'barbara@example.com' });
      tem.create('Author', { name: 'Ada again', email: 'ada@example.com' });
    });
  } catch (e) {
    console.log('transactional rolled back:', e.name, e.code, e.constraint);
  }
  try {
    await orm.em.fork().transactional(async (tem) => {
      const a = await tem.findOneOrFail('Author', { name: 'Grace' });
      a.age = 85;
      await tem.flush();
      throw new Error('changed my mind');
    });
  } catch (e) {
    console.log('transactional rolled back:', e.message);
  }
  em = orm.em.fork();
  const all = await em.find('Author', {}, { orderBy: { name: 'asc' } });
  console.log('authors:', all.map((a) => `${a.name}:${a.age}:${a.version}`).join(' '));

  // Optimistic locking: two contexts load Alan; the first flush wins, the second is stale.
  const em1 = orm.em.fork();
  const em2 = orm.em.fork();
  const a1 = await em1.findOneOrFail('Author', { name: 'Alan' });
  const a2 = await em2.findOneOrFail('Author', { name: 'Alan' });
  a1.age = 43;
  await em1.flush();
  a2.age = 99;
  try {
    await em2.flush();
    console.log('stale flush: no error');
  } catch (e) {
    console.log('stale flush:', e instanceof OptimisticLockError, e.name);
  }
  try {
    await orm.em.fork().transactional(async (tem) => {
      await tem.findOneOrFail('Author', { name: 'Alan' }, { lockMode: LockMode.OPTIMISTIC, lockVersion: 1 });
    });
    console.log('lockVersion check: no error');
  } catch (e) {
    console.log('lockVersion check:', e instanceof OptimisticLockError);
  }
  const locked = await orm.em.fork().transactional(async (tem) => {
    const a = await tem.findOneOrFail('Author', { name: 'Alan' }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    a.age += 1;
    return a;
  });
  const fresh = await orm.em.fork().findOneOrFail('Author', { name: 'Alan' });
  console.log('pessimistic write:', locked.age, 'stored', fresh.age, 'version', fresh.version);

  // QueryBuilder: a join with aggregates, a subquery, an update and a delete.
  em = orm.em.fork();
  const perAuthor = await em.createQueryBuilder('Author', 'a')
    .select(['a.name', raw('count(b.id) as books'), raw('coalesce(sum(b.price), 0) as total')])
    .leftJoin('a.books', 'b')
    .groupBy('a.name')
    .orderBy({ 'a.name': 'asc' })
    .execute('all', false);
  console.log('qb per author:', JSON.stringify(perAuthor));
  const tagged = await em.createQueryBuilder('Book', 'b')
    .select(['b.title'])
    .join('b.tags', 't')
    .where({ 't.name': { $in: ['history', 'computing'] } })
    .distinct()
    .orderBy({ 'b.title': 'asc' })
    .execute('all');
  console.log('qb tagged:', tagged.map((r) => r.title).join(','));
  const sub = em.createQueryBuilder('Book', 'b2').select('b2.author').where({ price: { $gte: 10 } }).getKnexQuery();
  const rich = await em.createQueryBuilder('Author', 'a').select('a.name').where({ id: { $in: sub } }).orderBy({ name: 'asc' }).execute('all');
  console.log('qb subquery:', rich.map((r) => r.name).join(','));
  const raised = await em.createQueryBuilder('Book').update({ price: 20 }).where({ publisher: { name: 'Acme' } }).execute('run');
  console.log('qb update affected:', raised.affectedRows);
  const qbBooks = await em.createQueryBuilder('Book', 'b').select('*').leftJoinAndSelect('b.author', 'a')
    .where({ 'a.active': true }).orderBy({ 'b.title': 'asc' }).getResultList();
  console.log('qb entities:', qbBooks.map((b) => `${b.title}:${b.price}:${b.author.name}`).join(' '));

  // Removing an author cascades to its books and their pivot rows; orphan removal drops a book.
  em = orm.em.fork();
  const g = await em.findOneOrFail('Author', { name: 'Grace' });
  await em.removeAndFlush(g);
  const e2 = await em.findOneOrFail('Author', { name: 'Ada' }, { populate: ['books'] });
  e2.books.remove((b) => b.title === 'Engines');
  await em.flush();
  em = orm.em.fork();
  const left = await em.find('Book', {}, { populate: ['author', 'tags'], orderBy: { title: 'asc' } });
  console.log('after removals:', left.map(bookView).join(' | '));
  const pivot = await em.getConnection().execute('select count(*)::int as n from mo_books_tags');
  console.log('pivot rows:', pivot[0].n);
  const asObj = wrap(left[0]).toObject();
  console.log('toObject keys:', Object.keys(asObj).sort().join(','));

  // Upserts (INSERT ... ON CONFLICT ... RETURNING), a native update, a batch update of several loaded entities
  // (one UPDATE with CASE per column, the versions checked) and keyset pagination with findByCursor.
  em = orm.em.fork();
  const up = await em.upsert('Author', { email: 'alan@example.com', name: 'Alan Turing', age: 41 });
  console.log('upsert:', up.name, up.age);
  const ups = await orm.em.fork().upsertMany('Author', [{ email: 'ada@example.com', name: 'Ada King', age: 37 }, { email: 'kurt@example.com', name: 'Kurt', age: 71 }]);
  console.log('upsertMany:', ups.map((a) => `${a.name}:${a.age}`).join(' '));
  console.log('nativeUpdate:', await orm.em.fork().nativeUpdate('Author', { age: { $gt: 60 } }, { active: false }));
  em = orm.em.fork();
  const everyone = await em.find('Author', {}, { orderBy: { email: 'asc' } });
  everyone.forEach((a) => { a.age = (a.age || 0) + 1; });
  await em.flush();
  const after = await orm.em.fork().find('Author', {}, { orderBy: { email: 'asc' } });
  console.log('batch update:', after.map((a) => `${a.name}:${a.age}:${a.active}:${a.version}`).join(' '));
  em = orm.em.fork();
  const c1 = await em.findByCursor('Author', {}, { first: 2, orderBy: { age: 'desc', email: 'asc' } });
  const c2 = await em.findByCursor('Author', {}, { first: 2, after: c1, orderBy: { age: 'desc', email: 'asc' } });
  console.log('cursor:', c1.items.map((a) => a.name).join(','), '|', c2.items.map((a) => a.name).join(','), c1.totalCount, c2.hasNextPage);
  for (const mode of ['PESSIMISTIC_READ', 'PESSIMISTIC_PARTIAL_WRITE', 'PESSIMISTIC_WRITE_OR_FAIL']) {
    const names = await orm.em.fork().transactional(async (tem) =>
      (await tem.find('Author', { active: true }, { lockMode: LockMode[mode], orderBy: { email: 'asc' } })).map((a) => a.name));
    console.log('lock', mode, names.join(','));
  }

  // clearDatabase empties every table with session_replication_role = replica (no foreign key checks) and
  // restarts the identities.
  await orm.getSchemaGenerator().clearDatabase();
  em = orm.em.fork();
  console.log('after clearDatabase:', await em.count('Author'), await em.count('Book'), await em.count('Tag'));
  const again = em.create('Author', { name: 'New', email: 'new@example.com' });
  await em.flush();
  console.log('identity restarted:', again.id);

  await orm.getSchemaGenerator().dropSchema();
  const rest = await orm.em.fork().getConnection().execute("select count(*)::int as n from pg_tables where tablename like 'mo\\_%'");
  console.log('after dropSchema:', rest[0].n, 'tables');
  await orm.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
