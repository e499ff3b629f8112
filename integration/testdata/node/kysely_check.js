// Kysely with its PostgresDialect on node-postgres: the Migrator (its migration and lock tables) runs four
// migrations (tables with references, a unique and a plain index, an alterTable adding and renaming columns, a
// PL/pgSQL trigger function in raw sql) to the latest, one down and up again; then typed queries: inserts with
// RETURNING, ON CONFLICT upserts, joins, a subquery, aggregates, transactions committed and rolled back,
// SELECT ... FOR UPDATE, jsonArrayFrom/jsonObjectFrom from kysely/helpers/postgres, and the schema read back
// through db.introspection. It prints what it finds; the test compares fickle's output with PostgreSQL's.
// Usage: node kysely_check.js URL
'use strict';
const { Pool } = require('pg');
const { Kysely, PostgresDialect, Migrator, sql, CamelCasePlugin } = require('kysely');
const { jsonArrayFrom, jsonObjectFrom, jsonBuildObject } = require('kysely/helpers/postgres');

// step prints what f returns, or the error it fails with.
async function step(name, f) {
  try {
    console.log(name + ':', JSON.stringify(await f()));
  } catch (e) {
    console.log(name + ': error', e.code, e.message);
  }
}

const migrations = {
  '0001_authors': {
    async up(db) {
      await db.schema.createTable('ky_authors')
        .addColumn('id', 'serial', (c) => c.primaryKey())
        .addColumn('email', 'varchar(120)', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
    },
    async down(db) {
      await db.schema.dropTable('ky_authors').execute();
    },
  },
  '0002_posts': {
    async up(db) {
      await db.schema.createTable('ky_posts')
        .addColumn('id', 'serial', (c) => c.primaryKey())
        .addColumn('author_id', 'integer', (c) => c.notNull().references('ky_authors.id').onDelete('cascade'))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('words', 'integer', (c) => c.notNull().defaultTo(0).check(sql`words >= 0`))
        .addColumn('meta', 'jsonb')
        .execute();
      await db.schema.createIndex('ky_posts_author_idx').on('ky_posts').column('author_id').execute();
      await db.schema.createIndex('ky_posts_title_uq').on('ky_posts').columns(['author_id', 'title']).unique().execute();
    },
    async down(db) {
      await db.schema.dropTable('ky_posts').execute();
    },
  },
  '0003_alter': {
    async up(db) {
      await db.schema.alterTable('ky_posts').addColumn('published', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
      await db.schema.alterTable('ky_posts').addColumn('edits', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('ky_authors').renameColumn('name', 'display_name').execute();
      await db.schema.alterTable('ky_authors').alterColumn('display_name', (c) => c.setDataType('varchar(80)')).execute();
    },
    async down(db) {
      await db.schema.alterTable('ky_authors').alterColumn('display_name', (c) => c.setDataType('text')).execute();
      await db.schema.alterTable('ky_authors').renameColumn('display_name', 'name').execute();
      await db.schema.alterTable('ky_posts').dropColumn('edits').execute();
      await db.schema.alterTable('ky_posts').dropColumn('published').execute();
    },
  },
  '0004_trigger': {
    async up(db) {
      await sql`CREATE FUNCTION ky_count_edit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.title IS DISTINCT FROM OLD.title THEN
            NEW.edits := OLD.edits + 1;
          END IF;
          RETURN NEW;
        END $$`.execute(db);
      await sql`CREATE TRIGGER ky_posts_edits BEFORE UPDATE ON ky_posts FOR EACH ROW EXECUTE FUNCTION ky_count_edit()`.execute(db);
    },
    async down(db) {
      await sql`DROP TRIGGER ky_posts_edits ON ky_posts`.execute(db);
      await sql`DROP FUNCTION ky_count_edit()`.execute(db);
    },
  },
};

const provider = { getMigrations: async () => migrations };

function report(label, r) {
  if (r.error) {
    console.log(label, 'error:', r.error.code, r.error.message);
  }
  console.log(label, JSON.stringify((r.results || []).map((m) => [m.migrationName, m.direction, m.status])));
}

// pgCode is the SQLSTATE of a failed query (with its constraint, where there is one).
const pgCode = (e) => (e.constraint ? `${e.code} ${e.constraint}` : `${e.code}`);

async function main() {
  // pg's pool replaces a connection after a failed query: fickle.session ties its connections into one session,
  // as docs/clients.md says (PostgreSQL takes it as a custom setting).
  const pool = new Pool({ connectionString: process.argv[2], max: 1, options: '-c fickle.session=kysely' });
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  const migrator = new Migrator({ db, provider });

  report('latest:', await migrator.migrateToLatest());
  report('latest again:', await migrator.migrateToLatest());
  report('down:', await migrator.migrateDown());
  report('down:', await migrator.migrateDown());
  const cols = await db.introspection.getTables();
  const authors = cols.find((t) => t.name === 'ky_authors');
  console.log('after down, ky_authors columns:', authors.columns.map((c) => `${c.name}:${c.dataType}`).join(','));
  report('latest:', await migrator.migrateToLatest());
  const mig = await migrator.getMigrations();
  console.log('migrations:', JSON.stringify(mig.map((m) => [m.name, m.executedAt !== undefined])));

  const ws = await db.insertInto('ky_authors')
    .values([
      { email: 'ada@example.com', display_name: 'Ada' },
      { email: 'alan@example.com', display_name: 'Alan' },
      { email: 'grace@example.com', display_name: 'Grace' },
    ])
    .returning(['id', 'display_name'])
    .execute();
  console.log('authors:', JSON.stringify(ws));
  const ids = Object.fromEntries(ws.map((w) => [w.display_name, w.id]));
  const ps = await db.insertInto('ky_posts')
    .values([
      { author_id: ids.Ada, title: 'Notes', words: 900, meta: JSON.stringify({ tags: ['math'] }) },
      { author_id: ids.Ada, title: 'Engines', words: 4200 },
      { author_id: ids.Alan, title: 'Computable numbers', words: 12000, published: true },
      { author_id: ids.Grace, title: 'Compilers', words: 3100, published: true },
    ])
    .returning(['id', 'title', 'published', 'edits'])
    .execute();
  console.log('posts:', JSON.stringify(ps));

  for (const bad of [
    () => db.insertInto('ky_posts').values({ author_id: ids.Ada, title: 'Negative', words: -1 }).execute(),
    () => db.insertInto('ky_authors').values({ email: 'ada@example.com', display_name: 'Ada again' }).execute(),
    () => db.insertInto('ky_posts').values({ author_id: 999999, title: 'Orphan' }).execute(),
  ]) {
    try {
      await bad();
      console.log('no error');
    } catch (e) {
      console.log('refused:', pgCode(e));
    }
  }

  // Upserts: on the unique email, and on the two-column unique index with a WHERE on the update.
  const up1 = await db.insertInto('ky_authors')
    .values({ email: 'ada@example.com', display_name: 'Ada Lovelace' })
    .onConflict((oc) => oc.column('email').doUpdateSet({ display_name: (eb) => eb.ref('excluded.display_name') }))
    .returning(['id', 'display_name'])
    .executeTakeFirst();
  console.log('upsert update:', up1.id === ids.Ada, up1.display_name);
  const up2 = await db.insertInto('ky_authors')
    .values({ email: 'alan@example.com', display_name: 'Nobody' })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .execute();
  console.log('upsert nothing:', up2.length);
  const up3 = await db.insertInto('ky_posts')
    .values({ author_id: ids.Ada, title: 'Notes', words: 950 })
    .onConflict((oc) => oc.columns(['author_id', 'title']).doUpdateSet((eb) => ({ words: eb.ref('excluded.words') }))
      .where('ky_posts.words', '<', 1000))
    .returning(['title', 'words', 'edits'])
    .execute();
  console.log('upsert posts:', JSON.stringify(up3));

  // The trigger counts title changes.
  const ed = await db.updateTable('ky_posts').set({ title: 'Analytical engines' }).where('title', '=', 'Engines')
    .returning(['title', 'edits']).executeTakeFirstOrThrow();
  console.log('edited:', JSON.stringify(ed));

  const joined = await db.selectFrom('ky_posts as p')
    .innerJoin('ky_authors as a', 'a.id', 'p.author_id')
    .select(['a.display_name', 'p.title', 'p.words'])
    .where('p.published', '=', true)
    .orderBy('p.words', 'desc')
    .execute();
  console.log('published:', JSON.stringify(joined));
  const left = await db.selectFrom('ky_authors as a')
    .leftJoin('ky_posts as p', 'p.author_id', 'a.id')
    .select(['a.display_name', (eb) => eb.fn.count('p.id').as('n'), (eb) => eb.fn.coalesce(eb.fn.sum('p.words'), sql`0`).as('words')])
    .groupBy('a.display_name')
    .orderBy('a.display_name')
    .execute();
  console.log('per author:', JSON.stringify(left));
  const busy = await db.selectFrom('ky_authors')
    .select('display_name')
    .where('id', 'in', (eb) => eb.selectFrom('ky_posts').select('author_id').groupBy('author_id').having((h) => h.fn.countAll(), '>', 1))
    .execute();
  console.log('more than one post:', JSON.stringify(busy));
  const longest = await db.selectFrom('ky_authors as a')
    .select((eb) => ['a.display_name',
      eb.selectFrom('ky_posts as p').select('p.title').whereRef('p.author_id', '=', 'a.id').orderBy('p.words', 'desc').limit(1).as('longest')])
    .orderBy('a.id')
    .execute();
  console.log('longest:', JSON.stringify(longest));
  const tags = await db.selectFrom('ky_posts').select([sql`meta->'tags'->>0`.as('tag')]).where(sql`meta ? 'tags'`).execute();
  console.log('tags:', JSON.stringify(tags));

  const nested = await db.selectFrom('ky_authors as a')
    .select((eb) => ['a.display_name',
      jsonArrayFrom(eb.selectFrom('ky_posts as p').select(['p.title', 'p.words']).whereRef('p.author_id', '=', 'a.id').orderBy('p.title')).as('posts')])
    .orderBy('a.display_name')
    .execute();
  console.log('jsonArrayFrom:', JSON.stringify(nested));
  const withAuthor = await db.selectFrom('ky_posts as p')
    .select((eb) => ['p.title',
      jsonObjectFrom(eb.selectFrom('ky_authors as a').select(['a.display_name', 'a.email']).whereRef('a.id', '=', 'p.author_id')).as('author')])
    .orderBy('p.title')
    .execute();
  console.log('jsonObjectFrom:', JSON.stringify(withAuthor));

  // Transactions: one committed, one rolled back by an error, one locking a row with FOR UPDATE.
  await db.transaction().execute(async (trx) => {
    const a = await trx.insertInto('ky_authors').values({ email: 'edsger@example.com', display_name: 'Edsger' }).returning('id').executeTakeFirstOrThrow();
    await trx.insertInto('ky_posts').values({ author_id: a.id, title: 'Goto', words: 1200, published: true }).execute();
  });
  try {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('ky_authors').values({ email: 'barbara@example.com', display_name: 'Barbara' }).execute();
      await trx.updateTable('ky_posts').set({ words: sql`words - 100000` }).where('title', '=', 'Goto').execute();
    });
  } catch (e) {
    console.log('rolled back:', pgCode(e));
  }
  try {
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('ky_posts').execute();
      throw new Error('changed my mind');
    });
  } catch (e) {
    console.log('rolled back:', e.message);
  }
  const counts = await db.selectFrom('ky_authors').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const pcount = await db.selectFrom('ky_posts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  console.log('after transactions:', counts.n, 'authors', pcount.n, 'posts');
  const locked = await db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
    const row = await trx.selectFrom('ky_posts').select(['id', 'words']).where('title', '=', 'Goto').forUpdate().executeTakeFirstOrThrow();
    const skip = await trx.selectFrom('ky_posts').select('title').where('published', '=', true).orderBy('id').forUpdate().skipLocked().execute();
    await trx.updateTable('ky_posts').set({ words: row.words + 1 }).where('id', '=', row.id).execute();
    return [row.words, skip.map((r) => r.title)];
  });
  console.log('for update:', JSON.stringify(locked));
  const deleted = await db.deleteFrom('ky_authors').where('email', '=', 'grace@example.com').returning('display_name').execute();
  const left2 = await db.selectFrom('ky_posts').select('title').orderBy('title').execute();
  console.log('deleted', JSON.stringify(deleted), 'cascade leaves', JSON.stringify(left2.map((r) => r.title)));

  const tables = (await db.introspection.getTables()).filter((t) => t.name.startsWith('ky'))
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const t of tables) {
    const cs = t.columns.map((c) => [c.name, c.dataType, c.isNullable ? 'null' : 'not null', c.hasDefaultValue ? 'default' : '',
      c.isAutoIncrementing ? 'auto' : ''].filter(Boolean).join(' '));
    console.log('table', t.schema, t.name, t.isView ? 'view' : 'table', '|', cs.join(', '));
  }
  const schemas = (await db.introspection.getSchemas()).map((s) => s.name).filter((n) => n === 'public');
  console.log('schemas:', JSON.stringify(schemas));
  // A second part, in a schema of its own: an enum, an identity column, a stored generated column, a unique
  // constraint with NULLS NOT DISTINCT, named constraints, GIN, expression and partial indexes, a view, column
  // changes, then DISTINCT ON, WITH (RECURSIVE), LATERAL joins, aggregates with ORDER BY and DISTINCT, CASE, array
  // and json operators, UPDATE ... FROM, DELETE ... USING, INSERT ... SELECT, MERGE, savepoints, access modes, the
  // schema read back, and drops that other objects depend on. Kysely's alterTable().addIndex() sends MySQL's
  // ALTER TABLE ... ADD INDEX, which PostgreSQL reads as a column of an unknown type.
  await step('schema', () => db.schema.createSchema('kyx').ifNotExists().execute());
  await step('enum', () => db.schema.createType('kyx.mood').asEnum(['sad', 'ok', 'happy']).execute());
  await step('table', () => db.schema.createTable('kyx.people')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('first', 'varchar(40)', (c) => c.notNull())
    .addColumn('last', 'varchar(40)')
    .addColumn('full', 'text', (c) => c.generatedAlwaysAs(sql`first || ' ' || coalesce(last, '')`).stored())
    .addColumn('mood', sql`kyx.mood`, (c) => c.defaultTo('ok'))
    .addColumn('tags', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('doc', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('score', 'numeric(6, 2)')
    .addUniqueConstraint('people_first_last_uq', ['first', 'last'], (b) => b.nullsNotDistinct())
    .addCheckConstraint('people_score_ck', sql`score >= 0`)
    .execute());
  await step('pets', () => db.schema.createTable('kyx.pets')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('owner', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('species', 'text')
    .addForeignKeyConstraint('pets_owner_fk', ['owner'], 'kyx.people', ['id'], (cb) => cb.onDelete('cascade').onUpdate('cascade'))
    .execute());
  await step('gin', () => db.schema.createIndex('people_tags_gin').on('kyx.people').using('gin').column('tags').execute());
  await step('expr idx', () => db.schema.createIndex('people_lower_first').on('kyx.people').expression(sql`lower(first)`).execute());
  await step('partial idx', () => db.schema.createIndex('pets_species_idx').on('kyx.pets').column('species').where('species', 'is not', null).execute());
  await step('view', () => db.schema.createView('kyx.pet_owners').as(db.selectFrom('kyx.pets as p').innerJoin('kyx.people as o', 'o.id', 'p.owner').select(['p.name as pet', 'o.first as owner'])).execute());
  await step('alter default', () => db.schema.alterTable('kyx.pets').alterColumn('species', (c) => c.setDefault('cat')).execute());
  await step('alter not null', () => db.schema.alterTable('kyx.pets').alterColumn('species', (c) => c.setNotNull()).execute());
  await step('alter drop not null', () => db.schema.alterTable('kyx.pets').alterColumn('species', (c) => c.dropNotNull()).execute());
  await step('alter add fk', () => db.schema.alterTable('kyx.pets').addColumn('vet', 'integer').execute());
  await step('alter add fk2', () => db.schema.alterTable('kyx.pets').addForeignKeyConstraint('pets_vet_fk', ['vet'], 'kyx.people', ['id']).onDelete('set null').execute());
  await step('add unique', () => db.schema.alterTable('kyx.pets').addUniqueConstraint('pets_owner_name_uq', ['owner', 'name']).execute());
  await step('drop constraint', () => db.schema.alterTable('kyx.pets').dropConstraint('pets_owner_name_uq').execute());
  await step('add index alter', () => db.schema.alterTable('kyx.pets').addIndex('pets_name_idx').column('name').execute());
  await step('rename table', () => db.schema.alterTable('kyx.pets').renameTo('animals').execute());
  await step('rename back', () => db.schema.alterTable('kyx.animals').renameTo('pets').execute());
  await step('ins', () => db.insertInto('kyx.people').values([
    { first: 'Ann', last: 'Lee', mood: 'happy', tags: sql`ARRAY['a','b']`, doc: JSON.stringify({ k: 1 }), score: '3.5' },
    { first: 'Bob', last: null, tags: ['x'] },
    { first: 'Cy', last: 'Ng', score: '10' },
  ]).returning(['id', 'full', 'mood', 'tags', 'doc', 'score']).execute());
  await step('nulls not distinct', () => db.insertInto('kyx.people').values({ first: 'Bob', last: null }).execute());
  await step('pets', () => db.insertInto('kyx.pets').values([
    { owner: 1, name: 'Rex', species: 'dog' }, { owner: 1, name: 'Tom' }, { owner: 2, name: 'Fin', species: 'fish' }, { owner: 3, name: 'Pip', species: null }]).returningAll().execute());
  await step('distinctOn', () => db.selectFrom('kyx.pets').distinctOn('owner').select(['owner', 'name']).orderBy('owner').orderBy('name', 'desc').execute());
  await step('cte', () => db.with('counts', (qb) => qb.selectFrom('kyx.pets').select(['owner', (eb) => eb.fn.countAll().as('n')]).groupBy('owner'))
    .selectFrom('kyx.people as p').innerJoin('counts as c', 'c.owner', 'p.id').select(['p.first', 'c.n']).orderBy('p.first').execute());
  await step('recursive', () => db.withRecursive('t(n)', (qb) => qb.selectNoFrom(sql`1`.as('n')).unionAll((qb2) => qb2.selectFrom('t').select(sql`n + 1`.as('n')).where('n', '<', 5)))
    .selectFrom('t').select((eb) => eb.fn.sum('n').as('s')).execute());
  await step('lateral', () => db.selectFrom('kyx.people as p').innerJoinLateral((eb) => eb.selectFrom('kyx.pets as x').select('x.name').whereRef('x.owner', '=', 'p.id').orderBy('x.name').limit(1).as('f'), (j) => j.onTrue())
    .select(['p.first', 'f.name']).orderBy('p.first').execute());
  await step('array_agg', () => db.selectFrom('kyx.pets').select(['owner', (eb) => eb.fn.agg('array_agg', ['name']).orderBy('name').as('names'),
    (eb) => eb.fn.agg('string_agg', ['name', sql.lit(',')]).distinct().as('s')]).groupBy('owner').orderBy('owner').execute());
  await step('case', () => db.selectFrom('kyx.people').select(['first', (eb) => eb.case().when('score', '>', 5).then('hi').when('score', 'is', null).then('none').else('lo').end().as('band')]).orderBy('first').execute());
  await step('array ops', () => db.selectFrom('kyx.people').select('first').where('tags', '@>', sql`ARRAY['a']::text[]`).execute());
  await step('any', () => db.selectFrom('kyx.people').select('first').where(sql`'x'`, '=', (eb) => eb.fn.any('tags')).execute());
  await step('json ops', () => db.selectFrom('kyx.people').select(['first', (eb) => eb.ref('doc', '->>').key('k').as('k'), sql`doc @> '{"k":1}'`.as('has')]).orderBy('first').execute());
  await step('jsonBuildObject', () => db.selectFrom('kyx.people').select((eb) => ['first', jsonBuildObject({ f: eb.ref('first'), s: eb.ref('score') }).as('o')]).orderBy('first').execute());
  await step('jsonArrayFrom empty', () => db.selectFrom('kyx.people as p').select((eb) => ['p.first', jsonArrayFrom(eb.selectFrom('kyx.pets as x').select('x.name').whereRef('x.owner', '=', 'p.id').where('x.species', '=', 'dog')).as('dogs')]).orderBy('p.first').execute());
  await step('ilike', () => db.selectFrom('kyx.people').select('first').where('first', 'ilike', 'a%').execute());
  await step('update from', () => db.updateTable('kyx.pets as x').from('kyx.people as p').set((eb) => ({ name: eb.fn('concat', ['x.name', sql.lit('-'), 'p.first']) })).whereRef('x.owner', '=', 'p.id').where('p.first', '=', 'Ann').returning(['x.name']).execute());
  await step('delete using', () => db.deleteFrom('kyx.pets as x').using('kyx.people as p').whereRef('x.owner', '=', 'p.id').where('p.first', '=', 'Cy').returning('x.name').execute());
  await step('insert select', () => db.insertInto('kyx.pets').columns(['owner', 'name', 'species']).expression((eb) => eb.selectFrom('kyx.people').select(['id', sql`first || '''s pet'`.as('n'), sql.lit('cat').as('s')]).where('first', '=', 'Bob')).returning('name').execute());
  await step('merge', () => db.mergeInto('kyx.pets as t').using('kyx.people as s', 's.id', 't.owner').whenMatchedAnd('s.first', '=', 'Bob').thenUpdateSet({ species: 'bird' }).whenNotMatched().thenInsertValues((eb) => ({ owner: eb.ref('s.id'), name: 'new' })).executeTakeFirst().then((r) => Number(r.numChangedRows)));
  await step('after merge', () => db.selectFrom('kyx.pets').select(['owner', 'name', 'species']).orderBy('owner').orderBy('name').execute());
  await step('numUpdatedRows', () => db.updateTable('kyx.pets').set({ species: 'x' }).where('species', 'is', null).executeTakeFirst().then((r) => Number(r.numUpdatedRows)));
  await step('forShare', () => db.transaction().execute((t) => t.selectFrom('kyx.people').select('first').forShare().noWait().orderBy('first').execute()));
  await step('union', () => db.selectFrom('kyx.people').select('first as n').union(db.selectFrom('kyx.pets').select('name as n')).orderBy('n').execute());
  await step('intersect', () => db.selectFrom('kyx.people').select('id').intersect(db.selectFrom('kyx.pets').select('owner')).orderBy('id').execute());
  await step('exists', () => db.selectFrom('kyx.people as p').select('first').where((eb) => eb.not(eb.exists(eb.selectFrom('kyx.pets').select(sql`1`.as('one')).whereRef('owner', '=', 'p.id')))).execute());
  await step('cast', () => db.selectNoFrom((eb) => [eb.cast(eb.val('12'), 'integer').as('i'), sql`${'2024-01-02'}::date + 1`.as('d')]).execute());
  await step('params types', () => db.selectNoFrom((eb) => [eb.val(1.5).as('f'), eb.val(true).as('b'), eb.val(null).as('n'), eb.val([1, 2]).as('a')]).execute());
  await step('camel', () => db.withPlugin(new CamelCasePlugin()).selectFrom('kyx.people').select(['first']).orderBy('first').execute());
  await step('savepoint', async () => {
    const trx = await db.startTransaction().execute();
    await trx.insertInto('kyx.people').values({ first: 'Dee' }).execute();
    const sp = await trx.savepoint('sp1').execute();
    await sp.insertInto('kyx.people').values({ first: 'Eve' }).execute();
    const back = await sp.rollbackToSavepoint('sp1').execute();
    const rel = await back.releaseSavepoint('sp1').execute();
    await rel.commit().execute();
    return (await db.selectFrom('kyx.people').select('first').orderBy('first').execute()).map((r) => r.first);
  });
  await step('serializable', () => db.transaction().setIsolationLevel('serializable').execute((t) => t.selectFrom('kyx.pets').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()));
  await step('accessMode', () => db.transaction().setAccessMode('read only').execute((t) => t.insertInto('kyx.people').values({ first: 'Zed' }).execute()));
  const meta = await db.introspection.getTables({ withInternalKyselyTables: true });
  for (const t of meta.filter((t) => t.schema === 'kyx').sort((a, b) => a.name.localeCompare(b.name))) {
    console.log('table', t.schema, t.name, t.isView, t.columns.map((c) => [c.name, c.dataType, c.dataTypeSchema, c.isNullable, c.hasDefaultValue, c.isAutoIncrementing, c.comment].join(':')).join(' '));
  }
  console.log('schemas', (await db.introspection.getSchemas()).map((s) => s.name).sort().join(','));
  await step('drop view', () => db.schema.dropView('kyx.pet_owners').ifExists().execute());
  await step('drop table', () => db.schema.dropTable('kyx.pets').cascade().execute());
  await step('drop type', () => db.schema.dropType('kyx.mood').ifExists().execute());
  await step('drop schema', () => db.schema.dropSchema('kyx').cascade().execute());
  // A third part: a Migrator keeping its tables in a schema of its own, a composite primary key and a deferred
  // composite foreign key, CREATE TABLE AS, a temporary table dropped on commit, a materialized view refreshed,
  // column changes, CREATE INDEX IF NOT EXISTS, withSchema and getMetadata.
  const migrations2 = {
    a: { up: async (d) => { await d.schema.createTable('k2_t').ifNotExists().addColumn('a', 'integer').addColumn('b', 'integer').addPrimaryKeyConstraint('k2_t_pk', ['a', 'b']).execute(); } },
    b: { up: async (d) => { await d.schema.createTable('k2_u').addColumn('x', 'integer').addColumn('y', 'integer').addColumn('z', 'text', (c) => c.defaultTo('q'))
      .addForeignKeyConstraint('k2_u_fk', ['x', 'y'], 'k2_t', ['a', 'b'], (c) => c.onDelete('restrict').deferrable().initiallyDeferred()).execute(); } },
  };
  const m = new Migrator({ db, provider: { getMigrations: async () => migrations2 }, migrationTableSchema: 'k2mig', migrationTableName: 'k2_migrations', migrationLockTableName: 'k2_lock', allowUnorderedMigrations: true });
  await step('schema', () => db.schema.createSchema('k2mig').execute());
  await step('migrate', async () => (await m.migrateToLatest()).results.map((r) => r.status));
  await step('meta', async () => (await db.introspection.getMetadata({ withInternalKyselyTables: true })).tables.filter((t) => t.name.startsWith('k2')).map((t) => [t.schema, t.name, t.columns.length]).sort());
  await step('deferred fk', () => db.transaction().execute(async (t) => { await t.insertInto('k2_u').values({ x: 1, y: 2 }).execute(); await t.insertInto('k2_t').values({ a: 1, b: 2 }).execute(); return 'ok'; }));
  await step('deferred fk fails', () => db.transaction().execute(async (t) => { await t.insertInto('k2_u').values({ x: 5, y: 5 }).execute(); return 'no'; }));
  await step('restrict', () => db.deleteFrom('k2_t').execute());
  await step('ctas', () => db.schema.createTable('k2_copy').as(db.selectFrom('k2_u').select(['x', 'z'])).execute());
  await step('temp', () => db.schema.createTable('k2_tmp').temporary().onCommit('drop').addColumn('v', 'integer').execute());
  await step('matview', () => db.schema.createView('k2_mv').materialized().as(db.selectFrom('k2_u').select((eb) => eb.fn.countAll().as('n'))).execute());
  await step('refresh', () => db.schema.refreshMaterializedView('k2_mv').execute());
  await step('mv', () => db.selectFrom('k2_mv').selectAll().execute());
  await step('drop default', () => db.schema.alterTable('k2_u').alterColumn('z', (c) => c.dropDefault()).execute());
  await step('drop column cascade', () => db.schema.alterTable('k2_u').dropColumn('z').execute());
  await step('idx if not exists', () => db.schema.createIndex('k2_u_x').ifNotExists().on('k2_u').columns(['x', 'y desc']).execute());
  await step('idx again', () => db.schema.createIndex('k2_u_x').ifNotExists().on('k2_u').column('x').execute());
  await step('withSchema', () => db.withSchema('k2mig').selectFrom('k2_migrations').select('name').orderBy('name').execute());
  await step('tables', async () => (await db.introspection.getTables()).filter((t) => t.name.startsWith('k2')).map((t) => t.name + (t.isView ? '(view)' : '')).sort());
  await step('returning star update', () => db.updateTable('k2_u').set({ x: 1 }).returningAll().execute());
  await step('drop mv', () => db.schema.dropView('k2_mv').materialized().execute());
  await step('drop', () => db.schema.dropTable('k2_t').cascade().execute());
  await db.destroy();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
