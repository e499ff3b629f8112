// The first migration: an extension, an enum, two tables with a foreign key, an index, a column and a CHECK added,
// a view, a trigger function and its trigger, rows.
exports.up = (pgm) => {
  pgm.createExtension('pgcrypto', { ifNotExists: true });
  pgm.createType('mood', ['happy', 'sad']);
  pgm.createTable('npm_users', {
    id: 'id',
    email: { type: 'varchar(120)', notNull: true, unique: true },
    mood: { type: 'mood', default: 'happy' },
    created_at: { type: 'timestamptz', notNull: true, default: pgm.func('current_timestamp') },
    token: { type: 'uuid', default: pgm.func('gen_random_uuid()') },
  });
  pgm.createTable('npm_posts', {
    id: 'id',
    user_id: { type: 'integer', notNull: true, references: '"npm_users"', onDelete: 'CASCADE' },
    body: { type: 'text', notNull: true },
  });
  pgm.createIndex('npm_posts', 'user_id');
  pgm.addColumn('npm_posts', { score: { type: 'numeric(5,2)', default: 0 } });
  pgm.addConstraint('npm_posts', 'npm_posts_score_check', { check: 'score >= 0' });
  pgm.createView('npm_user_posts', {}, 'select u.email, count(p.id) as n from npm_users u left join npm_posts p on p.user_id = u.id group by u.email');
  pgm.createFunction('npm_touch', [], { returns: 'trigger', language: 'plpgsql', replace: true }, 'BEGIN NEW.body := trim(NEW.body); RETURN NEW; END;');
  pgm.createTrigger('npm_posts', 'npm_posts_touch', { when: 'BEFORE', operation: ['INSERT', 'UPDATE'], function: 'npm_touch', level: 'ROW' });
  pgm.sql("insert into npm_users (email) values ('a@x'), ('b@x')");
};
exports.down = (pgm) => {
  pgm.dropTrigger('npm_posts', 'npm_posts_touch');
  pgm.dropFunction('npm_touch', []);
  pgm.dropView('npm_user_posts');
  pgm.dropTable('npm_posts');
  pgm.dropTable('npm_users');
  pgm.dropType('mood');
};
