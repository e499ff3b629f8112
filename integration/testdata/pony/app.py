"""A small Pony ORM application (over psycopg2), run against the database PGHOST/PGPORT/PGUSER/PGDATABASE name.

  app.py schema   generate_mapping(create_tables=True) for entities with relations (one-to-many, many-to-many),
                  composite keys, Json, arrays, then what the database's catalog says about the tables Pony made
  app.py app      db_session work: inserts, generator queries (joins, aggregates, subqueries, paging, LIKE,
                  dates), updates with Pony's optimistic checks, a lost concurrent update detected, for_update,
                  a unique violation, cascading deletes, Json and array queries, raw SQL

It prints what it reads; the test compares fickle's output with PostgreSQL's."""
import datetime
import decimal
import os
import sys

from pony.orm import *

db = Database()


class Customer(db.Entity):
    email = Required(str, unique=True)
    name = Required(str)
    joined = Required(datetime.date)
    orders = Set('Order', cascade_delete=True)
    prefs = Optional(Json)
    tags = Optional(StrArray)


class Product(db.Entity):
    sku = PrimaryKey(str, 20)
    title = Required(str)
    price = Required(decimal.Decimal, precision=10, scale=2)
    stock = Required(int, default=0)
    categories = Set('Category')
    lines = Set('OrderLine')


class Category(db.Entity):
    name = Required(str, unique=True)
    products = Set(Product)


class Order(db.Entity):
    customer = Required(Customer)
    placed = Required(datetime.datetime)
    status = Required(str, default='new')
    lines = Set('OrderLine', cascade_delete=True)


class OrderLine(db.Entity):
    order = Required(Order)
    product = Required(Product)
    qty = Required(int)
    PrimaryKey(order, product)


def connect():
    db.bind(provider='postgres', host=os.environ['PGHOST'], port=int(os.environ['PGPORT']),
            user=os.environ['PGUSER'], database=os.environ['PGDATABASE'])
    db.generate_mapping(create_tables=sys.argv[1] == 'schema')


def schema():
    with db_session:
        for row in db.select("""select table_name, column_name, data_type, is_nullable, coalesce(character_maximum_length, -1),
                                       coalesce(numeric_precision, -1), coalesce(numeric_scale, -1), coalesce(column_default, '')
                                  from information_schema.columns where table_schema = 'public'
                                 order by table_name, ordinal_position"""):
            print('column', *row)
        for row in db.select("""select tc.table_name, tc.constraint_type, string_agg(kcu.column_name, ',' order by kcu.ordinal_position)
                                  from information_schema.table_constraints tc
                                  join information_schema.key_column_usage kcu using (constraint_schema, constraint_name)
                                 where tc.table_schema = 'public'
                                 group by tc.table_name, tc.constraint_name, tc.constraint_type
                                 order by 1, 2, 3"""):
            print('constraint', *row)
        for row in db.select("""select tablename, indexdef from pg_indexes where schemaname = 'public' order by 1, 2"""):
            print('index', *row)


def app():
    with db_session:
        alice = Customer(email='alice@example.com', name='Alice', joined=datetime.date(2021, 3, 4),
                         prefs={'theme': 'dark', 'mail': True}, tags=['vip', 'early'])
        bob = Customer(email='bob@example.com', name='Bob', joined=datetime.date(2022, 7, 1), tags=[])
        Customer(email='carol@example.com', name='Carol', joined=datetime.date(2023, 1, 15), prefs={'theme': 'light'})
        books = Category(name='books')
        toys = Category(name='toys')
        p1 = Product(sku='B-1', title='SQL Basics', price=decimal.Decimal('19.90'), stock=10, categories=[books])
        p2 = Product(sku='B-2', title='Isolation Levels', price=decimal.Decimal('42.00'), stock=3, categories=[books])
        p3 = Product(sku='T-1', title='Yo-yo', price=decimal.Decimal('3.50'), stock=100, categories=[toys, books])
        o1 = Order(customer=alice, placed=datetime.datetime(2024, 1, 2, 10, 30))
        OrderLine(order=o1, product=p1, qty=2)
        OrderLine(order=o1, product=p3, qty=5)
        o2 = Order(customer=bob, placed=datetime.datetime(2024, 2, 3, 11, 0), status='paid')
        OrderLine(order=o2, product=p2, qty=1)
        o3 = Order(customer=alice, placed=datetime.datetime(2024, 3, 4, 12, 0), status='paid')
        OrderLine(order=o3, product=p2, qty=2)

    with db_session:
        print('customers', select((c.name, c.email) for c in Customer).order_by(1)[:])
        print('spent', select((c.name, sum(l.qty * l.product.price)) for c in Customer for o in c.orders
                              for l in o.lines).order_by(1)[:])
        print('paid orders', select((o.customer.name, count(o)) for o in Order if o.status == 'paid').order_by(1)[:])
        print('books', select(p.sku for p in Product if 'books' in p.categories.name).order_by(1)[:])
        print('no orders', select(c.name for c in Customer if not c.orders).order_by(1)[:])
        print('like', select(p.title for p in Product if p.title.startswith('S') or 'yo' in p.title.lower()).order_by(1)[:])
        print('page', select(p for p in Product).order_by(desc(Product.price)).page(2, pagesize=2))
        print('2021 joiners', select(c.name for c in Customer if c.joined.year == 2021)[:])
        print('avg price', round(avg(p.price for p in Product), 4))
        print('max qty', max(l.qty for l in OrderLine))
        print('exists big order', exists(o for o in Order if sum(o.lines.qty) > 5))
        print('dark', select(c.name for c in Customer if c.prefs['theme'] == 'dark')[:])
        print('vip', select(c.name for c in Customer if 'vip' in c.tags)[:])
        print('count distinct', count(select(l.product for l in OrderLine)))
        print('raw', db.select('select sku, stock from product where stock > $minstock order by sku', {'minstock': 5}))

    # Pony checks the values a transaction read when it writes them back: a concurrent change is an error.
    with db_session:
        p = Product['B-2']
        p.stock  # read
        db.execute("update product set stock = stock - 1 where sku = 'B-2'")  # behind Pony's back, same transaction
        p.stock = 99
        try:
            commit()
            print('optimistic: committed')
        except OptimisticCheckError as e:
            print('optimistic:', type(e).__name__)
            rollback()

    with db_session:
        p = Product.get_for_update(sku='T-1')
        p.stock -= 10
    with db_session:
        print('stock after for_update', Product['T-1'].stock)
        print('locked select', select(p.sku for p in Product if p.stock < 10).for_update()[:])

    try:
        with db_session:
            Customer(email='alice@example.com', name='Alice again', joined=datetime.date(2024, 1, 1))
    except TransactionIntegrityError as e:
        print('integrity:', type(e.original_exc).__name__ if hasattr(e, 'original_exc') else type(e).__name__)

    with db_session:
        Customer.get(email='alice@example.com').delete()
    with db_session:
        print('orders left', select((o.customer.name, o.status) for o in Order)[:])
        print('lines left', count(l for l in OrderLine))
        Product['B-1'].price *= 2
        Category.get(name='toys').products.clear()
    with db_session:
        print('prices', select((p.sku, p.price) for p in Product).order_by(1)[:])
        print('toys', select(p.sku for p in Product if 'toys' in p.categories.name)[:])


if __name__ == '__main__':
    connect()
    {'schema': schema, 'app': app}[sys.argv[1]]()
