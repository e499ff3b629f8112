"""A small SQLObject application (over psycopg2), run against the database PGHOST/PGPORT/PGUSER/PGDATABASE name.

  app.py schema   createTable for classes with a foreign key, a many-to-many join table, indexes, an alternate
                  ID and defaults; then the tables read back from the catalog by SQLObject's own introspection
                  (fromDatabase = True: columnsFromSchema, the table's primary key and foreign keys)
  app.py app      inserts, selectBy and select() with sqlbuilder expressions (AND, OR, IN, LIKE, joins through
                  the foreign key), counts, sums, ordering and slicing, the many-to-many join, updates, a
                  transaction rolled back, a duplicate alternate ID, cascading deletes

It prints what it reads; the test compares fickle's output with PostgreSQL's."""
import datetime
import decimal
import os
import sys

from sqlobject import *
from sqlobject.sqlbuilder import AND, OR, IN, LIKE, LEFTJOINOn

# A SQLObject transaction runs on a connection of its own: fickle.session (through libpq's PGOPTIONS, which PostgreSQL
# takes as a custom setting) makes the pool's connections one session, each seeing what the others committed.
os.environ['PGOPTIONS'] = '-c fickle.session=sqlobject'
uri = 'postgres://%s@%s:%s/%s?driver=psycopg2' % (os.environ['PGUSER'], os.environ['PGHOST'], os.environ['PGPORT'],
                                                os.environ['PGDATABASE'])
sqlhub.processConnection = connectionForURI(uri)


class Author(SQLObject):
    name = StringCol(alternateID=True, length=80)
    born = DateCol(default=None)
    rating = DecimalCol(size=6, precision=2, default=decimal.Decimal('0'))
    active = BoolCol(default=True)
    books = MultipleJoin('Book')
    genres = RelatedJoin('Genre')


class Book(SQLObject):
    title = UnicodeCol(notNone=True)
    author = ForeignKey('Author', cascade=True)
    pages = IntCol(default=0)
    published = DateTimeCol(default=datetime.datetime(2020, 1, 1))
    titleIndex = DatabaseIndex('title')


class Genre(SQLObject):
    label = StringCol(alternateID=True, length=40)
    authors = RelatedJoin('Author')


def schema():
    for cls in (Author, Genre, Book):
        cls.createTable(ifNotExists=True)
    conn = sqlhub.processConnection
    for table in ('author', 'book', 'genre'):
        reflected = type('Reflected_' + table, (SQLObject,), {'_fromDatabase': True, '_idName': 'id',
                                                              'sqlmeta': type('sqlmeta', (), {'table': table, 'fromDatabase': True})})
        cols = sorted((c.name, type(c).__name__, c.dbName, getattr(c, 'notNone', None), repr(c.default))
                      for c in reflected.sqlmeta.columnList)
        print('reflected', table, cols)
    for row in conn.queryAll("""select table_name, column_name, data_type, is_nullable, coalesce(column_default, '')
                                  from information_schema.columns where table_schema = 'public'
                                 order by table_name, ordinal_position"""):
        print('column', *row)
    for row in conn.queryAll("select tablename, indexdef from pg_indexes where schemaname = 'public' order by 1, 2"):
        print('index', *row)
    for row in conn.queryAll("""select conrelid::regclass::text, conname, pg_get_constraintdef(oid) from pg_constraint
                                 where connamespace = 'public'::regnamespace order by 1, 2"""):
        print('constraint', *row)


def app():
    ada = Author(name='Ada', born=datetime.date(1815, 12, 10), rating=decimal.Decimal('9.50'))
    bob = Author(name='Bob', rating=decimal.Decimal('4.25'))
    cy = Author(name='Cy', active=False)
    for t, a, p in (('Notes', ada, 120), ('Engines', ada, 300), ('Basics', bob, 80), ('Later', bob, 0)):
        Book(title=t, author=a, pages=p)
    fiction, science = Genre(label='fiction'), Genre(label='science')
    ada.addGenre(science)
    bob.addGenre(fiction)
    bob.addGenre(science)

    print('by name', Author.byName('Bob').rating)
    print('selectBy', [a.name for a in Author.selectBy(active=True).orderBy('name')])
    print('and/or', [b.title for b in Book.select(OR(Book.q.pages > 200, AND(Book.q.pages < 100, Book.q.pages > 0)),
                                                  orderBy=Book.q.title)])
    print('in', [a.name for a in Author.select(IN(Author.q.name, ['Ada', 'Cy']), orderBy='name')])
    print('like', [b.title for b in Book.select(LIKE(Book.q.title, '%e%'), orderBy='title')])
    print('join', [b.title for b in Book.select(AND(Book.q.authorID == Author.q.id, Author.q.rating > 5), orderBy='title')])
    print('count', Book.select(Book.q.pages > 0).count())
    print('sum', Book.select().sum('pages'))
    print('max', Author.select().max('rating'))
    print('slice', [b.title for b in Book.select(orderBy='-pages')[1:3]])
    print('multiple join', sorted(b.title for b in ada.books))
    print('related', sorted(g.label for g in bob.genres), sorted(a.name for a in science.authors))
    print('distinct', sorted(set(b.author.name for b in Book.select(Book.q.pages > 50))))
    print('left join', sorted((a.name, n) for a, n in (
        (Author.get(r[0]), r[1]) for r in sqlhub.processConnection.queryAll(
            'select a.id, count(b.id) from author a left join book b on b.author_id = a.id group by a.id'))))

    ada.rating = decimal.Decimal('9.75')
    print('updated', Author.byName('Ada').rating)

    conn = sqlhub.processConnection
    trans = conn.transaction()
    Author(name='Temp', connection=trans)
    print('in transaction', Author.select(connection=trans).count())
    trans.rollback()
    trans.begin()
    print('after rollback', Author.select().count())

    try:
        Author(name='Ada')
        print('duplicate: inserted')
    except dberrors.DuplicateEntryError as e:
        print('duplicate:', type(e).__name__)

    bob.destroySelf()
    print('books after delete', sorted(b.title for b in Book.select()))
    print('genre links', sorted(a.name for a in Genre.byLabel('science').authors))


if __name__ == '__main__':
    {'schema': schema, 'app': app}[sys.argv[1]]()
