// knex_check.js runs what an application does with knex: migrations
// (knex.migrate.latest with its lock table), the schema builder (.alter()
// included), columnInfo, queries with joins, transactions committed and
// rolled back, and a table of fixtures.sql that the application finds in
// place. It prints every result as JSON lines, so that a test can compare
// its output against fickle with its output against PostgreSQL.
// Usage: node knex_check.js URL MIGRATIONS_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const knexFactory = require('knex');

const migrations = {
  '20240101000000_owners.js': `
exports.up = (knex) => knex.schema
  .createTable('owners', (t) => {
    t.increments('id');
    t.string('name', 80).notNullable().unique();
    t.text('bio');
  })
  .createTable('accounts', (t) => {
    t.bigIncrements('id');
    t.integer('owner_id').unsigned().references('id').inTable('owners').onDelete('CASCADE');
    t.string('label').notNullable().defaultTo('main');
    t.decimal('balance', 12, 2).defaultTo(0);
    t.boolean('active').defaultTo(true);
    t.timestamp('opened_at', { useTz: true }).defaultTo(knex.fn.now());
    t.date('closes_on');
    t.jsonb('data');
    t.uuid('token');
    t.float('rate');
    t.specificType('tags', 'text[]');
    t.index(['closes_on']);
  });
exports.down = (knex) => knex.schema.dropTable('accounts').dropTable('owners');
`,
  '20240102000000_notes.js': `
exports.up = (knex) => knex.schema
  .createTable('notes', (t) => {
    t.increments();
    t.integer('account_id').references('accounts.id');
    t.string('body', 500);
  })
  .alterTable('owners', (t) => { t.string('email', 120); t.string('bio', 300).alter(); });
exports.down = (knex) => knex.schema.dropTable('notes');
`,
};

async function main() {
  const dir = process.argv[3];
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, body] of Object.entries(migrations)) {
    fs.writeFileSync(path.join(dir, name), body);
  }
  const knex = knexFactory({ client: 'pg', connection: process.argv[2], migrations: { directory: dir } });
  const out = (label, value) => console.log(label + ' ' + JSON.stringify(value));

  const [batch, files] = await knex.migrate.latest();
  out('migrated', { batch, files: files.map((f) => path.basename(f)) });
  out('migrated again', (await knex.migrate.latest())[1].length);
  out('status', await knex.migrate.status());
  for (const table of ['owners', 'accounts', 'notes']) {
    out('hasTable ' + table, await knex.schema.hasTable(table));
    out('columnInfo ' + table, await knex(table).columnInfo());
  }
  out('columnInfo countries', await knex('countries').columnInfo());
  out('countries', await knex('countries').where('population', '>', 70000000).orderBy('code'));
  out('hasColumn', [await knex.schema.hasColumn('owners', 'email'), await knex.schema.hasColumn('owners', 'nope')]);

  const [ann] = await knex('owners').insert({ name: 'Ann', bio: 'first' }).returning('*');
  const [bob] = await knex('owners').insert({ name: 'Bob', email: 'bob@example.com' }).returning(['id', 'name']);
  out('owners', [ann, bob]);
  await knex('accounts').insert([
    { owner_id: ann.id, label: 'a1', balance: '10.50', closes_on: '2030-01-31', data: { k: 'v' }, token: '00000000-0000-0000-0000-00000000000a', rate: 0.25, tags: ['x', 'y'] },
    { owner_id: ann.id, balance: 3 },
    { owner_id: bob.id, label: 'b1', active: false },
  ]);
  out('accounts', await knex('accounts').select('id', 'owner_id', 'label', 'balance', 'active', 'closes_on', 'data', 'token', 'rate', 'tags').orderBy('id'));
  out('join', await knex('owners as o').join('accounts as a', 'a.owner_id', 'o.id').select('o.name', 'a.label').orderBy(['o.name', 'a.label']));
  out('sum', await knex('accounts').sum({ total: 'balance' }).count({ n: '*' }).first());
  out('groupBy', await knex('accounts').select('owner_id').count('* as n').groupBy('owner_id').orderBy('owner_id'));
  out('update', await knex('accounts').where({ label: 'main' }).update({ balance: knex.raw('balance + 1') }));
  out('whereIn', await knex('accounts').whereIn('label', ['a1', 'b1']).pluck('label'));

  await knex.transaction(async (trx) => {
    const [n] = await trx('notes').insert({ account_id: 1, body: 'kept' }).returning('id');
    out('note', n);
  });
  try {
    await knex.transaction(async (trx) => {
      await trx('notes').insert({ account_id: 1, body: 'undone' });
      await trx('owners').insert({ name: 'Ann' });
    });
  } catch (e) {
    out('rolled back', e.code);
  }
  out('notes', await knex('notes').pluck('body'));
  await knex('owners').where({ name: 'Bob' }).del();
  out('after cascade', await knex('accounts').count('* as n').first());
  out('rollback', (await knex.migrate.rollback())[1].map((f) => path.basename(f)));
  out('tables', (await knex.raw("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1")).rows);
  await knex.destroy();
}

main().catch((e) => { console.error(e); process.exit(1); });
