// MikroORM 6's migrations (@mikro-orm/migrations, JavaScript emitted, no snapshot): an initial migration generated
// from the schema diff, up, the executed and pending lists, a second migration adding a table, columns and a
// foreign key, up, an insert through the new relation, down (the columns dropped), up again failing inside its
// transaction on a table MikroORM's down leaves, and down to the start failing on the initial migration that has no
// down. fixtures.sql's table is kept out of the diffs. It prints what it finds; the test compares fickle's output
// with PostgreSQL's.
// Usage: node mikroorm_migrations_check.js URL
'use strict';
const fs = require('fs');
const path = require('path');
const { MikroORM, EntitySchema } = require('@mikro-orm/core');
const { PostgreSqlDriver } = require('@mikro-orm/postgresql');
const { Migrator } = require('@mikro-orm/migrations');
// step prints what f returns, or the error it fails with (migration names, which hold the time, masked).
async function step(name, f) {
  try {
    console.log(name + ':', JSON.stringify(await f()));
  } catch (e) {
    console.log(name + ': error', e.name, e.code, e.message.split('\n').slice(-2).join(' ').replace(/Migration\d+/g, 'MigrationN'));
  }
}
function ents(v) {
  return [new EntitySchema({ name: 'Note', tableName: 'mm_notes', properties: {
    id: { type: 'number', primary: true }, body: { type: 'text' },
    ...(v >= 2 ? { pinned: { type: 'boolean', default: false }, author: { kind: 'm:1', entity: 'Person', nullable: true } } : {}),
  } }), ...(v >= 2 ? [new EntitySchema({ name: 'Person', tableName: 'mm_people', properties: { id: { type: 'number', primary: true }, name: { type: 'string', unique: true } } })] : [])];
}
async function open(url, dir, v) {
  return MikroORM.init({ driver: PostgreSqlDriver, clientUrl: url, entities: ents(v), debug: false, allowGlobalContext: true, extensions: [Migrator], schemaGenerator: { skipTables: ['countries'] },
    migrations: { path: dir, emit: 'js', snapshot: false, transactional: true, allOrNothing: true, tableName: 'mm_migrations', dropTables: false, silent: true },
    pool: { min: 0, max: 1 }, driverOptions: { connection: { options: '-c fickle.session=mikroorm' } } });
}
async function main() {
  // The generated migrations require @mikro-orm/migrations: they are written beside node_modules.
  const dir = fs.mkdtempSync(path.join(__dirname, '.mikro-mig-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  let orm = await open(process.argv[2], dir, 1);
  let mig = orm.getMigrator();
  await step('needed', () => mig.checkMigrationNeeded());
  await step('create initial', async () => { const r = await mig.createMigration(undefined, false, true); return r.diff; });
  await step('pending', async () => (await mig.getPendingMigrations()).length);
  await step('up', async () => (await mig.up()).length);
  await step('executed', async () => (await mig.getExecutedMigrations()).length);
  await step('needed after', () => mig.checkMigrationNeeded());
  await orm.close();
  orm = await open(process.argv[2], dir, 2);
  mig = orm.getMigrator();
  // Migration names hold the second they were made in.
  await new Promise((r) => setTimeout(r, 1100));
  await step('create v2', async () => (await mig.createMigration()).diff);
  await step('up v2', async () => (await mig.up()).length);
  await step('insert', async () => { const em = orm.em.fork(); const p = em.create('Person', { name: 'Ann' }); em.create('Note', { body: 'hi', author: p, pinned: true }); await em.flush(); return em.count('Note'); });
  await step('down', async () => (await mig.down()).length);
  await step('columns after down', () => orm.em.getConnection().execute("select column_name from information_schema.columns where table_name = 'mm_notes' order by ordinal_position").then((r) => r.map((x) => x.column_name)));
  await step('up again', async () => (await mig.up()).length);
  await step('down all', async () => (await mig.down({ to: 0 })).length);
  await step('tables', () => orm.em.getConnection().execute("select tablename from pg_tables where tablename like 'mm%' order by 1").then((r) => r.map((x) => x.tablename)));
  await orm.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
