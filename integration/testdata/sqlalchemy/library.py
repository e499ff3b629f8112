"""A small SQLAlchemy 1.4 application (Core and ORM over psycopg2), run
against the database PGHOST/PGPORT/PGUSER/PGDATABASE name.

  library.py create   drop_all and create_all
  library.py reflect  print what reflection reads back of every table
  library.py schema   create, then reflect
  library.py app      session CRUD, relationships, yield_per, Core queries

It prints what it reads; assertions fail it with a traceback."""
import datetime
import decimal
import os
import sys

from sqlalchemy import (Boolean, CheckConstraint, Column, Date, DateTime, Enum, ForeignKey, Index, Integer, MetaData,
                        Numeric, String, Table, Text, UniqueConstraint, create_engine, func, inspect, select, text)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Session, declarative_base, relationship

Base = declarative_base()


class Author(Base):
    __tablename__ = "author"
    id = Column(Integer, primary_key=True)
    name = Column(String(80), nullable=False, unique=True)
    born = Column(Date)
    books = relationship("Book", back_populates="author", order_by="Book.id")


class Book(Base):
    __tablename__ = "book"
    __table_args__ = (
        UniqueConstraint("author_id", "title", name="book_author_title_key"),
        CheckConstraint("pages > 0", name="book_pages_check"),
        Index("book_published_idx", "published"),
    )
    id = Column(Integer, primary_key=True)
    author_id = Column(Integer, ForeignKey("author.id", ondelete="CASCADE"), nullable=False)
    title = Column(Text, nullable=False)
    pages = Column(Integer, nullable=False, server_default=text("100"))
    price = Column(Numeric(8, 2))
    published = Column(DateTime(timezone=True))
    meta = Column(JSONB)
    available = Column(Boolean, nullable=False, server_default=text("true"))
    author = relationship("Author", back_populates="books")
    loans = relationship("Loan", back_populates="book", cascade="all, delete-orphan")


class Loan(Base):
    __tablename__ = "loan"
    id = Column(Integer, primary_key=True)
    book_id = Column(Integer, ForeignKey("book.id"), nullable=False, index=True)
    borrower = Column(String(40), nullable=False)
    due = Column(Date, nullable=False)
    status = Column(Enum("open", "returned", "lost", name="loan_status"), nullable=False, server_default="open")
    book = relationship("Book", back_populates="loans")


events = Table(
    "event", Base.metadata,
    Column("id", Integer, primary_key=True),
    Column("kind", String(20), nullable=False),
    Column("at", DateTime, nullable=False, server_default=func.now()),
)


def engine():
    return create_engine("postgresql+psycopg2://", future=True)


def create():
    eng = engine()
    Base.metadata.drop_all(eng)
    Base.metadata.create_all(eng)
    print("tables", sorted(Base.metadata.tables))


def reflect():
    eng = engine()
    insp = inspect(eng)
    print("tables", sorted(insp.get_table_names()))
    print("enums", insp.get_enums())
    for table in sorted(insp.get_table_names()):
        print("table", table)
        for c in insp.get_columns(table):
            print("  column", c["name"], repr(c["type"]), "nullable=%s" % c["nullable"], "default=%s" % c["default"],
                  "autoincrement=%s" % c.get("autoincrement"))
        print("  pk", insp.get_pk_constraint(table))
        for fk in insp.get_foreign_keys(table):
            print("  fk", fk)
        for ix in insp.get_indexes(table):
            print("  index", ix)
        for uc in insp.get_unique_constraints(table):
            print("  unique", uc)
        for ck in insp.get_check_constraints(table):
            print("  check", ck)
    reflected = MetaData()
    reflected.reflect(eng)
    for t in reflected.sorted_tables:
        print("reflected", t.name, [(c.name, str(c.type), c.primary_key) for c in t.columns],
              sorted(fk.target_fullname for fk in t.foreign_keys))


def app():
    eng = engine()
    with Session(eng) as s, s.begin():
        ann = Author(name="Ann", born=datetime.date(1950, 3, 1))
        bob = Author(name="Bob")
        ann.books = [Book(title="First", pages=120, price=decimal.Decimal("9.50"), meta={"tags": ["a"]},
                          published=datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)),
                     Book(title="Second")]
        s.add_all([ann, bob])
        s.flush()
        bob_id = bob.id
    with Session(eng) as s:
        ann = s.execute(select(Author).where(Author.name == "Ann")).scalar_one()
        print("books", [(b.title, b.pages, b.available, b.price, b.meta) for b in ann.books])
        assert ann.books[0].published == datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
        ann.books[1].pages = 250
        ann.books[1].loans.append(Loan(borrower="Cy", due=datetime.date(2024, 5, 1)))
        ann.books[1].loans.append(Loan(borrower="Di", due=datetime.date(2024, 4, 1), status="lost"))
        s.commit()
        ann.books[1].loans[0].status = "returned"
        s.commit()
        print("loans", s.execute(select(Loan.borrower, Loan.status).where(Loan.status > "open").order_by(Loan.status)).all())
        try:
            with s.begin_nested():
                s.add(Loan(book_id=ann.books[1].id, borrower="Ed", due=datetime.date(2024, 6, 1), status="stolen"))
        except Exception as e:
            print("bad status", type(e).__name__, getattr(e.orig, "pgcode", None))
        counts = s.execute(select(Author.name, func.count(Book.id)).outerjoin(Book).group_by(Author.name).order_by(Author.name)).all()
        print("counts", counts)
        s.delete(ann.books[1])
        s.commit()
        assert s.execute(select(func.count()).select_from(Loan)).scalar() == 0
        try:
            with s.begin_nested():
                s.add(Book(author_id=ann.id, title="First"))
        except Exception as e:
            print("duplicate", type(e).__name__, getattr(e.orig, "pgcode", None))
        assert s.execute(select(func.count()).select_from(Book)).scalar() == 1
        s.rollback()
    with Session(eng) as s, s.begin():
        s.add_all(Book(author_id=bob_id, title="Vol %d" % i, pages=i) for i in range(1, 41))
    with Session(eng) as s:
        pages = [b.pages for b in s.execute(select(Book).where(Book.author_id == bob_id).order_by(Book.pages)
                                            .execution_options(yield_per=7)).scalars()]
        assert pages == list(range(1, 41)), pages
        print("yield_per rows", len(pages))
    with eng.connect() as c:
        c.execute(events.insert(), [{"kind": "open"}, {"kind": "close"}])
        c.commit()
        stream = c.execution_options(stream_results=True, max_row_buffer=3).execute(select(events.c.kind).order_by(events.c.id))
        print("events", [r.kind for r in stream])
        print("now", c.execute(select(func.now() - events.c.at < datetime.timedelta(hours=1))).scalars().all())


if __name__ == "__main__":
    {"create": create, "reflect": reflect, "schema": lambda: (create(), reflect()), "app": app}[sys.argv[1]]()
