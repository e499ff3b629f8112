"""Optimistic concurrency on PostgreSQL's system column xmin, the recipe of
SQLAlchemy's documentation ("Server Side Version Counters"), and an upsert
that tells inserted rows from updated ones by xmax = 0. Run against the
database PGHOST/PGPORT/PGUSER/PGDATABASE name.

  versioned.py schema   drop and create the table, two documents
  versioned.py app      a stale save fails; an upsert tells inserts from updates

It prints what it sees; assertions fail it with a traceback."""
import sys

from sqlalchemy import Column, FetchedValue, Integer, String, create_engine, literal_column
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session, declarative_base
from sqlalchemy.orm.exc import StaleDataError

Base = declarative_base()


class Doc(Base):
    __tablename__ = "doc"
    id = Column(Integer, primary_key=True)
    body = Column(String(80), nullable=False)
    xmin = Column("xmin", String, system=True, server_default=FetchedValue())
    __mapper_args__ = {"version_id_col": xmin, "version_id_generator": False}


def engine():
    return create_engine("postgresql+psycopg2://", future=True)


def schema():
    eng = engine()
    Base.metadata.drop_all(eng)
    Base.metadata.create_all(eng)
    with Session(eng) as s:
        s.add_all([Doc(id=1, body="draft"), Doc(id=2, body="draft")])
        s.commit()
    print("created", sorted(Base.metadata.tables))


def app():
    eng = engine()
    # Two editors load doc 1; the second saves first, so the first's save
    # must find the row changed under it, whatever versions their loads saw.
    first, second = Session(eng), Session(eng)
    mine = first.get(Doc, 1)
    theirs = second.get(Doc, 1)
    theirs.body = "theirs"
    second.commit()
    mine.body = "mine"
    try:
        first.commit()
        print("stale save: committed (lost update)")
    except StaleDataError:
        first.rollback()
        print("stale save: StaleDataError")
    first.close()
    second.close()

    # An upsert reports, per row, whether it inserted (xmax = 0) or updated.
    with eng.begin() as c:
        stmt = insert(Doc.__table__).values([{"id": 2, "body": "upserted"}, {"id": 3, "body": "new"}])
        stmt = stmt.on_conflict_do_update(index_elements=["id"], set_={"body": stmt.excluded.body})
        stmt = stmt.returning(Doc.__table__.c.id, (literal_column("xmax") == 0).label("inserted"))
        print("upsert:", sorted(tuple(r) for r in c.execute(stmt)))


if __name__ == "__main__":
    {"schema": schema, "app": app}[sys.argv[1]]()
