// The second migration: a column renamed (and the trigger function that reads it replaced), a type widened, an
// index added.
exports.up = (pgm) => {
  pgm.renameColumn('npm_posts', 'body', 'content');
  pgm.createFunction('npm_touch', [], { returns: 'trigger', language: 'plpgsql', replace: true },
    'BEGIN NEW.content := trim(NEW.content); RETURN NEW; END;');
  pgm.alterColumn('npm_posts', 'score', { type: 'numeric(6,2)' });
  pgm.addIndex('npm_users', ['mood', 'created_at'], { name: 'npm_users_mood_created' });
};
exports.down = (pgm) => {
  pgm.dropIndex('npm_users', ['mood', 'created_at'], { name: 'npm_users_mood_created' });
  pgm.alterColumn('npm_posts', 'score', { type: 'numeric(5,2)' });
  pgm.renameColumn('npm_posts', 'content', 'body');
  pgm.createFunction('npm_touch', [], { returns: 'trigger', language: 'plpgsql', replace: true },
    'BEGIN NEW.body := trim(NEW.body); RETURN NEW; END;');
};
