// sequelize_check.js runs what an application does with Sequelize 6:
// sync() of models with associations, CRUD through them, managed and
// rolled-back transactions, describeTable, and a model over a table of
// fixtures.sql that the application finds in place. It prints every result as
// JSON lines, so that a test can compare its output against fickle with
// its output against PostgreSQL. Usage: node sequelize_check.js URL
'use strict';
const { Sequelize, DataTypes, Op } = require('sequelize');

async function main() {
  const sequelize = new Sequelize(process.argv[2], { logging: false });
  const out = (label, value) => console.log(label + ' ' + JSON.stringify(value));

  const User = sequelize.define('User', {
    name: { type: DataTypes.STRING(100), allowNull: false },
    email: { type: DataTypes.STRING, unique: true },
    birthday: DataTypes.DATEONLY,
    active: { type: DataTypes.BOOLEAN, defaultValue: true },
    score: DataTypes.FLOAT,
    balance: { type: DataTypes.DECIMAL(10, 2), defaultValue: 0 },
    meta: DataTypes.JSONB,
    token: DataTypes.UUID,
  }, { timestamps: false });
  const Post = sequelize.define('Post', {
    title: { type: DataTypes.STRING(200), allowNull: false },
    body: DataTypes.TEXT,
    published: DataTypes.DATE,
  }, { timestamps: false, indexes: [{ fields: ['title'] }] });
  const Tag = sequelize.define('Tag', { label: { type: DataTypes.STRING(30), unique: true } }, { timestamps: false });
  User.hasMany(Post, { foreignKey: 'authorId', onDelete: 'CASCADE' });
  Post.belongsTo(User, { as: 'author', foreignKey: 'authorId' });
  Post.belongsToMany(Tag, { through: 'PostTags', timestamps: false });
  Tag.belongsToMany(Post, { through: 'PostTags', timestamps: false });

  await sequelize.authenticate();
  await sequelize.sync({ force: true });
  for (const table of ['Users', 'Posts', 'Tags', 'PostTags']) {
    out('describe ' + table, await sequelize.getQueryInterface().describeTable(table));
    const indexes = await sequelize.getQueryInterface().showIndex(table);
    out('indexes ' + table, indexes.map((i) => ({ name: i.name, primary: i.primary, unique: i.unique, fields: i.fields.map((f) => f.attribute) })));
  }

  const Country = sequelize.define('Country', {
    code: { type: DataTypes.CHAR(2), primaryKey: true },
    name: DataTypes.STRING(60),
    population: DataTypes.BIGINT,
    joined: DataTypes.DATEONLY,
  }, { tableName: 'countries', timestamps: false });
  out('describe countries', await sequelize.getQueryInterface().describeTable('countries'));
  out('countries', await Country.findAll({ order: [['code', 'ASC']], raw: true }));
  out('country by pk', (await Country.findByPk('fr')).toJSON());

  const ann = await User.create({ name: 'Ann', email: 'ann@example.com', birthday: '1990-02-03', score: 1.5, balance: '12.34', meta: { a: [1, 2] }, token: '00000000-0000-0000-0000-000000000001' });
  await User.bulkCreate([{ name: 'Bob', email: 'bob@example.com', active: false }, { name: 'Cy', email: 'cy@example.com', score: 3 }]);
  const [red, blue] = await Tag.bulkCreate([{ label: 'red' }, { label: 'blue' }]);
  const post = await Post.create({ title: 'Hello', body: 'first', authorId: ann.id, published: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)) });
  await post.addTags([red, blue]);
  await Post.create({ title: 'Again', authorId: ann.id });
  out('users', await User.findAll({ order: [['id', 'ASC']], raw: true }));
  out('posts with authors and tags', (await Post.findAll({
    include: [{ model: User, as: 'author', attributes: ['name'] }, { model: Tag, attributes: ['label'], through: { attributes: [] } }],
    order: [['id', 'ASC'], [Tag, 'label', 'ASC']],
  })).map((p) => p.toJSON()));
  out('json path', await User.findAll({ where: { 'meta.a': { [Op.ne]: null } }, attributes: ['name'], raw: true }));
  out('json contains', await User.findAll({ where: { meta: { [Op.contains]: { a: [2] } } }, attributes: ['name'], raw: true }));
  out('count active', await User.count({ where: { active: true } }));
  out('like', await User.findAll({ where: { name: { [Op.like]: 'B%' } }, attributes: ['name'], raw: true }));
  out('update', await User.update({ score: 9 }, { where: { email: 'bob@example.com' } }));
  out('increment', (await ann.increment('balance', { by: 1 })).balance !== undefined);
  await ann.reload();
  out('reloaded', { balance: ann.balance, active: ann.active });

  try {
    await sequelize.transaction(async (t) => {
      await User.create({ name: 'Dee', email: 'dee@example.com' }, { transaction: t });
      await User.create({ name: 'Dup', email: 'ann@example.com' }, { transaction: t });
    });
  } catch (e) {
    out('rolled back', e.name);
  }
  await sequelize.transaction(async (t) => {
    const u = await User.create({ name: 'Eve', email: 'eve@example.com' }, { transaction: t });
    await Post.create({ title: 'By Eve', authorId: u.id }, { transaction: t });
  });
  out('emails', (await User.findAll({ attributes: ['email'], order: [['email', 'ASC']], raw: true })).map((u) => u.email));
  await User.destroy({ where: { name: 'Eve' } });
  out('posts after cascade', await Post.count());
  out('raw', await sequelize.query('SELECT count(*)::int AS n FROM "Users"', { type: Sequelize.QueryTypes.SELECT }));
  await sequelize.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
