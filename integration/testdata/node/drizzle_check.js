// Drizzle ORM with Drizzle Kit: pushSchema (what `drizzle-kit push` runs, for the drz_ tables) creates an enum, two tables with a serial
// key, a foreign key with ON DELETE CASCADE, a unique and a plain index, jsonb, numeric, defaults and a check, then
// pushes again and must find nothing to change (it introspects pg_catalog, information_schema and
// pg_stat_user_indexes); then the query builder: inserts with RETURNING, an upsert, a join, aggregates, updates,
// deletes that cascade, and transactions committed and rolled back. It prints what it finds; the test compares
// fickle's output with PostgreSQL's.
// Usage: node drizzle_check.js URL
'use strict';
const { Pool } = require('pg');
const { drizzle } = require('drizzle-orm/node-postgres');
const { pgTable, pgEnum, serial, integer, text, varchar, boolean, timestamp, jsonb, numeric, index, uniqueIndex, check } =
  require('drizzle-orm/pg-core');
const { eq, and, gt, desc, asc, sql, count, sum, inArray } = require('drizzle-orm');
const { pushSchema } = require('drizzle-kit/api');

const status = pgEnum('drz_status', ['draft', 'published']);
const writers = pgTable('drz_writers', {
  id: serial('id').primaryKey(),
  email: varchar('email', { length: 120 }).notNull(),
  name: text('name').notNull(),
  active: boolean('active').default(true).notNull(),
  joined: timestamp('joined', { withTimezone: true }).defaultNow().notNull(),
  meta: jsonb('meta'),
}, (t) => [uniqueIndex('drz_writers_email_idx').on(t.email)]);
const articles = pgTable('drz_articles', {
  id: serial('id').primaryKey(),
  writer: integer('writer').references(() => writers.id, { onDelete: 'cascade' }).notNull(),
  title: text('title').notNull(),
  price: numeric('price', { precision: 8, scale: 2 }).default('0').notNull(),
  state: status('state').default('draft').notNull(),
  words: integer('words').notNull(),
}, (t) => [index('drz_articles_writer_idx').on(t.writer), check('drz_articles_words_check', sql`${t.words} >= 0`)]);
const schema = { status, writers, articles };

// quietly runs f with Drizzle Kit's progress spinner (written to stdout, its frames timing-dependent) silenced.
async function quietly(f) {
  const write = process.stdout.write;
  process.stdout.write = () => true;
  try {
    return await f();
  } finally {
    process.stdout.write = write;
  }
}

// pgError is the PostgreSQL error under Drizzle's wrapping.
const pgError = (e) => e.cause || e;

async function main() {
  // pg's pool replaces a connection after a failed query: fickle.session ties its connections into one session,
  // as docs/clients.md says (PostgreSQL takes it as a custom setting).
  const pool = new Pool({ connectionString: process.argv[2], max: 1, options: '-c fickle.session=drizzle' });
  const db = drizzle(pool);

  const first = await quietly(() => pushSchema(schema, db, ['public'], ['drz_*']));
  console.log('push: data loss', first.hasDataLoss, 'warnings', first.warnings.length, 'statements', first.statementsToExecute.length);
  await quietly(() => first.apply());
  const second = await quietly(() => pushSchema(schema, db, ['public'], ['drz_*']));
  console.log('push again:', JSON.stringify(second.statementsToExecute));

  const ws = await db.insert(writers).values([
    { email: 'ada@example.com', name: 'Ada', meta: { langs: ['en', 'fr'] } },
    { email: 'alan@example.com', name: 'Alan' },
    { email: 'grace@example.com', name: 'Grace', active: false },
  ]).returning({ id: writers.id, name: writers.name, active: writers.active });
  console.log('writers:', JSON.stringify(ws));
  const ids = Object.fromEntries(ws.map((w) => [w.name, w.id]));
  await db.insert(articles).values([
    { writer: ids.Ada, title: 'Notes', price: '12.50', words: 900, state: 'published' },
    { writer: ids.Ada, title: 'Engines', words: 4200 },
    { writer: ids.Alan, title: 'Computable numbers', price: '30', words: 12000, state: 'published' },
    { writer: ids.Grace, title: 'Compilers', price: '8.75', words: 3100 },
  ]);
  try {
    await db.insert(articles).values({ writer: ids.Alan, title: 'Negative', words: -1 });
  } catch (e) {
    console.log('check violation:', pgError(e).code, pgError(e).constraint);
  }
  try {
    await db.insert(writers).values({ email: 'ada@example.com', name: 'Ada again' });
  } catch (e) {
    console.log('unique violation:', pgError(e).code, pgError(e).constraint);
  }
  const up = await db.insert(writers).values({ email: 'alan@example.com', name: 'Alan Turing' })
    .onConflictDoUpdate({ target: writers.email, set: { name: sql`excluded.name` } })
    .returning({ id: writers.id, name: writers.name });
  console.log('upsert:', JSON.stringify(up), up[0].id === ids.Alan);

  const joined = await db.select({ writer: writers.name, title: articles.title, price: articles.price, state: articles.state })
    .from(articles).innerJoin(writers, eq(articles.writer, writers.id))
    .where(and(eq(writers.active, true), gt(articles.words, 1000))).orderBy(desc(articles.words));
  console.log('long articles of active writers:', JSON.stringify(joined));
  const totals = await db.select({ writer: writers.name, n: count(articles.id), total: sum(articles.price) })
    .from(writers).leftJoin(articles, eq(articles.writer, writers.id)).groupBy(writers.name).orderBy(asc(writers.name));
  console.log('totals:', JSON.stringify(totals));
  const meta = await db.select({ name: writers.name, langs: sql`${writers.meta}->'langs'` }).from(writers)
    .where(sql`${writers.meta} ? 'langs'`);
  console.log('meta:', JSON.stringify(meta));

  const published = await db.update(articles).set({ state: 'published', price: sql`${articles.price} + 1` })
    .where(eq(articles.state, 'draft')).returning({ title: articles.title, price: articles.price });
  console.log('published:', JSON.stringify(published.sort((a, b) => a.title.localeCompare(b.title))));

  await db.transaction(async (tx) => {
    await tx.update(writers).set({ active: true }).where(eq(writers.name, 'Grace'));
    await tx.insert(articles).values({ writer: ids.Grace, title: 'Nanoseconds', words: 50 });
  });
  try {
    await db.transaction(async (tx) => {
      await tx.delete(articles).where(eq(articles.writer, ids.Ada));
      throw new Error('changed my mind');
    });
  } catch (e) {
    console.log('rolled back:', e.message);
  }
  const gone = await db.delete(writers).where(inArray(writers.name, ['Alan Turing'])).returning({ name: writers.name });
  console.log('deleted:', JSON.stringify(gone));
  const left = await db.select({ title: articles.title, state: articles.state }).from(articles).orderBy(articles.title);
  console.log('articles left:', JSON.stringify(left));
  const [{ n }] = await db.select({ n: count() }).from(writers).where(eq(writers.active, true));
  console.log('active writers:', n);
  await pool.end();
}

main().catch((e) => { console.error(e); process.exit(1); });
