"""A small peewee 3 application (playhouse.postgres_ext over psycopg2), run against the database
PGHOST/PGPORT/PGUSER/PGDATABASE name.

  app.py schema   create_tables, a migration (a column, an index, a rename), then what playhouse.reflection
                  and the database's introspection (tables, indexes, columns, foreign keys, primary keys) read back
  app.py app      models over those tables: atomic blocks and savepoints, an IntegrityError, joins with
                  aggregates, jsonb and array queries, updates, ON DELETE CASCADE, an upsert reading xmax = 0

It prints what it reads; the test compares fickle's output with PostgreSQL's."""
import datetime
import decimal
import os
import sys

from peewee import *
from playhouse.postgres_ext import PostgresqlExtDatabase, BinaryJSONField, ArrayField
from playhouse.migrate import PostgresqlMigrator, migrate
from playhouse.reflection import Introspector

db = PostgresqlExtDatabase(os.environ['PGDATABASE'], host=os.environ['PGHOST'], port=int(os.environ['PGPORT']), user=os.environ['PGUSER'])

class Base(Model):
    class Meta:
        database = db

class Author(Base):
    name = CharField(unique=True)
    born = DateField(null=True)
    meta = BinaryJSONField(null=True)
    tags = ArrayField(TextField, null=True)

class Book(Base):
    author = ForeignKeyField(Author, backref='books', on_delete='CASCADE')
    title = TextField()
    price = DecimalField(max_digits=8, decimal_places=2, default=0)
    published = DateTimeField(default=datetime.datetime(2020, 1, 1))
    class Meta:
        indexes = ((('author', 'title'), True),)

def schema():
    db.drop_tables([Book, Author], safe=True)
    db.create_tables([Author, Book])
    m = PostgresqlMigrator(db)
    migrate(m.add_column('book', 'pages', IntegerField(null=True)), m.add_index('book', ('price',), False), m.rename_column('author', 'born', 'birth'))
    intro = Introspector.from_database(db)
    models = intro.generate_models()
    for name in sorted(models):
        mdl = models[name]
        print(name, sorted((f.name, type(f).__name__, f.null) for f in mdl._meta.sorted_fields))
    print(sorted(db.get_tables()))
    for t in ('author', 'book'):
        print(t, sorted((i.name, i.columns, i.unique) for i in db.get_indexes(t)))
        print(t, [(c.name, c.data_type, c.null) for c in db.get_columns(t)])
        print(t, [(f.column, f.dest_table, f.dest_column) for f in db.get_foreign_keys(t)])
        print(t, db.get_primary_keys(t))

def app():
    class Author2(Base):
        name = CharField(unique=True)
        birth = DateField(null=True)
        meta = BinaryJSONField(null=True)
        tags = ArrayField(TextField, null=True)
        class Meta:
            table_name = 'author'
    class Book2(Base):
        author = ForeignKeyField(Author2, backref='books', on_delete='CASCADE')
        title = TextField()
        price = DecimalField(max_digits=8, decimal_places=2, default=0)
        pages = IntegerField(null=True)
        published = DateTimeField(default=datetime.datetime(2020, 1, 1))
        class Meta:
            table_name = 'book'
    with db.atomic():
        a = Author2.create(name='ada', birth=datetime.date(1815, 12, 10), meta={'k': [1, 2]}, tags=['x', 'y'])
        b = Author2.create(name='alan')
        Book2.insert_many([{'author': a, 'title': 'notes', 'price': decimal.Decimal('9.99')}, {'author': a, 'title': 'engines', 'pages': 10}, {'author': b, 'title': 'numbers'}]).execute()
    try:
        with db.atomic():
            Author2.create(name='ada')
    except IntegrityError as e:
        print('integrity', type(e).__name__)
    with db.atomic():
        with db.atomic() as sp:
            Book2.delete().where(Book2.title == 'notes').execute()
            sp.rollback()
    q = (Author2.select(Author2.name, fn.COUNT(Book2.id).alias('n'), fn.SUM(Book2.price).alias('s')).join(Book2, JOIN.LEFT_OUTER).group_by(Author2.name).order_by(Author2.name))
    print([(r.name, r.n, str(r.s)) for r in q])
    print([(x.name, x.meta, x.tags) for x in Author2.select().where(Author2.meta['k'].contains([1])).order_by(Author2.id)])
    print(Book2.update(price=Book2.price + 1).where(Book2.pages.is_null()).execute())
    print([(bk.title, str(bk.price), bk.pages) for bk in Book2.select().order_by(Book2.title)])
    Author2.delete().where(Author2.name == 'ada').execute()
    print(Book2.select().count())
    print(list(Author2.select(Author2.name).where(Author2.tags.contains('x')).tuples()))
    print(db.execute_sql("insert into author (name) values ('z') on conflict (name) do update set name = excluded.name returning (xmax = 0)").fetchone())

if __name__ == '__main__':
    {'schema': schema, 'app': app}[sys.argv[1]]()
