// MikroORM 6's schema generator over a schema that changes: version 1 of two entities (a native enum, a text enum
// with its CHECK, bigserial, numeric, date, arrays, uuid, jsonb with a default, a foreign key with ON DELETE SET
// NULL, smallint, char, interval, bytea, time, indexes, named CHECKs, a table comment) is created, version 2 changes
// nearly everything (an enum value added, columns retyped, widened, made nullable, dropped and added, defaults,
// the foreign key's action, indexes, a partial index, a unique constraint, CHECKs, comments), then version 1 comes
// back; after each update the generator reads the catalogs again and prints what it would still change. The test
// compares fickle's output with PostgreSQL's.
// Usage: node mikroorm_schema_check.js URL
'use strict';
const { MikroORM, EntitySchema } = require('@mikro-orm/core');
const { PostgreSqlDriver } = require('@mikro-orm/postgresql');
function ents(v) {
  const Cat = new EntitySchema({ name: 'Cat', tableName: 'mz_cats', comment: v === 1 ? 'cats' : 'felines', properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    name: { type: 'string', length: v === 1 ? 50 : 80, comment: v === 1 ? undefined : 'the name' },
    color: { enum: true, items: v === 1 ? ['black', 'white'] : ['black', 'white', 'ginger'], nativeEnumName: 'mz_color', nullable: true },
    mood: { enum: true, items: v === 1 ? ['calm', 'wild'] : ['calm', 'wild', 'sleepy'], default: 'calm' },
    weight: { type: 'decimal', precision: v === 1 ? 5 : 6, scale: 2, nullable: v !== 1 },
    born: { type: v === 1 ? 'date' : 'datetime', nullable: true },
    tags: { type: 'string[]', nullable: true },
    chip: { type: 'uuid', nullable: true, unique: v === 1 },
    ...(v === 1 ? { legacy: { type: 'integer', nullable: true } } : {}),
    flags: { type: 'json', default: v === 1 ? '{}' : undefined, defaultRaw: v === 1 ? undefined : `'{"a":1}'`, nullable: true },
    owner: { kind: 'm:1', entity: 'Owner', nullable: true, deleteRule: v === 1 ? 'set null' : 'cascade' },
    score: { type: 'float', nullable: true },
    small: { type: 'smallint', default: v === 1 ? 0 : 1 },
    flag: { type: 'boolean', default: false },
    txt: { type: 'character', length: 3, nullable: true },
    interval: { type: 'interval', nullable: true },
    bytes: { type: 'blob', nullable: true },
    t: { type: 'time', nullable: true },
  }, indexes: v === 1 ? [{ properties: ['name', 'color'] }, { name: 'mz_cats_weight_idx', properties: ['weight'] }] : [{ properties: ['name', 'color'] }, { name: 'mz_cats_weight_idx', properties: ['weight', 'born'] }, { name: 'mz_partial', expression: 'create index "mz_partial" on "mz_cats" ("name") where "flag"' }],
  uniques: v === 1 ? [] : [{ name: 'mz_cats_name_owner_uq', properties: ['name', 'owner'] }],
  checks: v === 1 ? [{ name: 'mz_weight_ck', expression: 'weight > 0' }] : [{ name: 'mz_weight_ck', expression: 'weight >= 0' }, { name: 'mz_small_ck', expression: 'small < 100' }] });
  const Owner = new EntitySchema({ name: 'Owner', tableName: 'mz_owners', properties: {
    id: { type: 'number', primary: true },
    name: { type: 'string' },
    ...(v === 2 ? { email: { type: 'string', nullable: true, index: true } } : {}),
  } });
  return [Cat, Owner];
}
async function open(url, v) {
  return MikroORM.init({ driver: PostgreSqlDriver, clientUrl: url, entities: ents(v), debug: false, allowGlobalContext: true,
    pool: { min: 0, max: 1 }, driverOptions: { connection: { options: '-c fickle.session=mikroorm' } } });
}
const sum = (s) => s.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('set ')).join('\n');
async function main() {
  const url = process.argv[2];
  for (const v of [1, 2, 1]) {
    const orm = await open(url, v);
    try {
      if (v === 1 && !(await orm.schema.getUpdateSchemaSQL({ wrap: false, dropTables: false })).includes('alter')) await orm.schema.createSchema();
      console.log('v' + v, 'diff:\n' + sum(await orm.schema.getUpdateSchemaSQL({ wrap: false, dropTables: false })));
      await orm.schema.updateSchema({ dropTables: false, safe: false });
      console.log('v' + v, 'after:', JSON.stringify(sum(await orm.schema.getUpdateSchemaSQL({ wrap: false, dropTables: false }))));
    } catch (e) {
      console.log('v' + v, 'error', e.code, e.message);
    }
    await orm.close();
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
