// TypeORM 0.3: schema synchronization (created, then found up to date), a one-to-many relation with ON DELETE
// CASCADE, a unique column, an index, an enum, arrays, jsonb, a uuid from uuid-ossp, a version column, CRUD, a
// managed transaction, the query builder with a join and aggregates, paging, and the schema read back. It prints
// what it finds; the test compares fickle's output with PostgreSQL's.
// Usage: node typeorm_check.js URL
'use strict';
require("reflect-metadata");
const { DataSource, EntitySchema } = require("typeorm");

const Author = new EntitySchema({
  name: "Author", tableName: "authors",
  columns: {
    id: { type: Number, primary: true, generated: true },
    name: { type: String, unique: true },
    email: { type: "varchar", length: 200, nullable: true },
    createdAt: { type: "timestamptz", createDate: true },
    tags: { type: "text", array: true, nullable: true },
    meta: { type: "jsonb", nullable: true },
    uuid: { type: "uuid", generated: "uuid" },
    rank: { type: "enum", enum: ["low", "high"], default: "low" },
  },
  indices: [{ name: "idx_author_email", columns: ["email"] }],
  relations: { books: { type: "one-to-many", target: "Book", inverseSide: "author" } },
});
const Book = new EntitySchema({
  name: "Book", tableName: "books",
  columns: {
    id: { type: Number, primary: true, generated: "increment" },
    title: { type: String },
    price: { type: "numeric", precision: 10, scale: 2, default: 0 },
    version: { type: Number, version: true },
  },
  relations: { author: { type: "many-to-one", target: "Author", inverseSide: "books", onDelete: "CASCADE", nullable: false } },
});

async function main() {
  const ds = new DataSource({ type: "postgres", url: process.argv[2], entities: [Author, Book], synchronize: false, logging: false });
  await ds.initialize();
  await ds.synchronize(true);          // drop and create
  await ds.synchronize();              // a second sync must find nothing to change
  const pending = await ds.driver.createSchemaBuilder().log();
  console.log("pending after sync:", pending.upQueries.map(q => q.query));
  const authors = ds.getRepository("Author"), books = ds.getRepository("Book");
  const a = await authors.save({ name: "Ann", email: "ann@x", tags: ["a", "b"], meta: { k: 1 } });
  const b = await authors.save({ name: "Bob", rank: "high" });
  await books.save([{ title: "One", price: "9.50", author: a }, { title: "Two", author: a }, { title: "Three", price: 3, author: b }]);
  try { await authors.save({ name: "Ann" }); console.log("duplicate accepted!"); } catch (e) { console.log("duplicate:", e.code); }
  const withBooks = await authors.find({ relations: { books: true }, order: { name: "ASC", books: { title: "ASC" } } });
  console.log(JSON.stringify(withBooks.map(x => ({ name: x.name, tags: x.tags, meta: x.meta, rank: x.rank, books: x.books.map(k => [k.title, k.price, k.version]) }))));
  await ds.transaction(async m => {
    const bk = await m.getRepository("Book").findOneBy({ title: "One" });
    bk.price = "10.00"; await m.getRepository("Book").save(bk);
  });
  const q = await ds.getRepository("Book").createQueryBuilder("b").leftJoin("b.author", "a")
    .select("a.name", "name").addSelect("COUNT(*)", "n").addSelect("SUM(b.price)", "total")
    .groupBy("a.name").orderBy("a.name").getRawMany();
  console.log(JSON.stringify(q));
  const page = await ds.getRepository("Book").find({ skip: 1, take: 1, order: { id: "ASC" }, relations: { author: true } });
  console.log(JSON.stringify(page.map(p => [p.title, p.author.name, p.version])));
  await authors.delete({ name: "Ann" });
  console.log("books left:", await books.count());
  const qr = ds.createQueryRunner();
  const t = await qr.getTable("books");
  console.log("books table:", t.columns.map(c => `${c.name}:${c.type}:${c.isNullable}:${c.default}`).join(", "));
  console.log("fks:", t.foreignKeys.map(f => `${f.columnNames}->${f.referencedTableName}(${f.referencedColumnNames}) ${f.onDelete}`));
  const ta = await qr.getTable("authors");
  console.log("authors indices:", ta.indices.map(i => `${i.name}:${i.columnNames}:${i.isUnique}`), "uniques:", ta.uniques.map(u => u.columnNames));
  await qr.release();
  await ds.destroy();
}
main().catch(e => { console.error("FAILED:", e.message, e.query || "", e.code || ""); process.exit(1); });
