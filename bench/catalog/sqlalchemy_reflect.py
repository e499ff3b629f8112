"""sqlalchemy_reflect.py prints what SQLAlchemy's Inspector reflects of every
table of the database the PG* environment variables name: its columns,
primary key, foreign keys, indexes, unique and check constraints and
comment, as MetaData.reflect() and Alembic's autogenerate ask for them."""
import os

import warnings

import sqlalchemy as sa

warnings.simplefilter("ignore", sa.exc.SAWarning)  # expression indexes are skipped, on both servers

url = "postgresql+psycopg2://%s@%s:%s/%s" % (os.environ["PGUSER"], os.environ["PGHOST"], os.environ["PGPORT"],
                                              os.environ["PGDATABASE"])
engine = sa.create_engine(url)
insp = sa.inspect(engine)
for table in sorted(insp.get_table_names()):
    print(table)
    for col in insp.get_columns(table):
        print("  column", col["name"], col["type"], col["nullable"], col["default"], col.get("comment"))
    print("  pk", insp.get_pk_constraint(table))
    for fk in insp.get_foreign_keys(table):
        print("  fk", fk)
    for ix in insp.get_indexes(table):
        print("  index", ix)
    for uc in insp.get_unique_constraints(table):
        print("  unique", uc)
    for cc in insp.get_check_constraints(table):
        print("  check", cc)
    print("  comment", insp.get_table_comment(table))
for view in sorted(insp.get_view_names()):
    print("view", view, insp.get_view_definition(view))
meta = sa.MetaData()
meta.reflect(engine)
print(len(meta.tables), "tables reflected")
