// node-pg-migrate 9: the migrations of pgmigrate/ run up, down one at a time, and up again (under the advisory lock
// node-pg-migrate takes, recording them in its pgmigrations table), then the schema and rows they leave are read
// back through information_schema and pg_catalog. It prints what it finds; the test compares fickle's output with
// PostgreSQL's.
// Usage: node pgmigrate_check.mjs URL
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { runner } from 'node-pg-migrate';

// Each run opens a connection of its own: fickle.session ties them into one session, as docs/clients.md says
// (PostgreSQL takes it as a custom setting).
const url = process.argv[2];
const connection = { connectionString: url, options: '-c fickle.session=pgmigrate' };
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pgmigrate');
const names = (ms) => ms.map((m) => m.name).join(', ');
const migrate = (direction, count) =>
  runner({ databaseUrl: connection, dir, direction, count, migrationsTable: 'pgmigrations', log: () => {}, singleTransaction: true });

console.log('up:', names(await migrate('up', Infinity)));
console.log('down:', names(await migrate('down', 1)));
console.log('down:', names(await migrate('down', 1)));
console.log('up:', names(await migrate('up', Infinity)));
console.log('up again:', names(await migrate('up', Infinity)));

const client = new pg.Client(connection);
await client.connect();
const q = async (text) => (await client.query(text)).rows;
await q("insert into npm_posts (user_id, content) values (1, '  hello  '), (1, 'x'), (2, 'y')");
try {
  await q("insert into npm_posts (user_id, content, score) values (1, 'bad', -1)");
} catch (e) {
  console.log('check:', e.code, e.constraint);
}
console.log('posts:', JSON.stringify(await q('select user_id, content, score from npm_posts order by id')));
console.log('view:', JSON.stringify(await q('select email, n from npm_user_posts order by email')));
console.log('columns:', JSON.stringify(await q(`select table_name, column_name, data_type, numeric_precision, numeric_scale,
  is_nullable, column_default is not null as has_default from information_schema.columns
  where table_name in ('npm_users', 'npm_posts') order by table_name, ordinal_position`)));
console.log('indexes:', JSON.stringify(await q("select indexname, indexdef from pg_indexes where tablename like 'npm\\_%' order by 1")));
console.log('triggers:', JSON.stringify(await q("select tgname from pg_trigger where tgrelid = 'npm_posts'::regclass and not tgisinternal")));
console.log('enum:', JSON.stringify(await q("select enum_range(null::mood)::text as r")));
console.log('migrations:', JSON.stringify(await q('select name from pgmigrations order by id')));
await client.end();
