"""Alembic (on SQLAlchemy 1.4 and psycopg2) doing its two jobs against the database PGHOST/PGPORT/PGUSER/PGDATABASE
name: autogenerating a migration by comparing a model with what it reflects, and running migration operations.

  migrations.py schema   autogenerate against an empty database, create the model, autogenerate again (nothing to
                         do), print what reflection reads
  migrations.py migrate  the operations of a typical revision (add, alter, rename and drop columns; indexes,
                         partial and unique; a foreign key; a table rename; a bulk insert), what autogenerate then
                         finds against the model, and the downgrade

It prints what it reads; assertions fail it with a traceback."""
import sys

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata, produce_migrations, render_python_code
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy.dialects.postgresql import JSONB


def model():
    md = sa.MetaData()
    status = sa.Enum("draft", "published", name="post_status")
    sa.Table("users", md,
             sa.Column("id", sa.Integer, primary_key=True),
             sa.Column("email", sa.String(200), nullable=False, unique=True),
             sa.Column("name", sa.Text, server_default="anon"),
             sa.Column("created", sa.DateTime(timezone=True), server_default=sa.func.now()),
             sa.Index("ix_users_name", "name"))
    sa.Table("posts", md,
             sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
             sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
             sa.Column("title", sa.String(100), nullable=False),
             sa.Column("status", status, nullable=False, server_default="draft"),
             sa.Column("score", sa.Numeric(10, 2)),
             sa.Column("data", JSONB),
             sa.Column("tags", sa.ARRAY(sa.Text)),
             sa.CheckConstraint("score >= 0", name="ck_posts_score"),
             sa.UniqueConstraint("user_id", "title", name="uq_posts_user_title"))
    return md


_engine = None


def engine():
    """The step's one engine: its pool keeps one connection, as an Alembic run does."""
    global _engine
    if _engine is None:
        _engine = sa.create_engine("postgresql+psycopg2://", future=True)
    return _engine


def diff_names(diff):
    """The kinds of change autogenerate found, in a stable order."""
    names = []
    for d in diff:
        d = d[0] if isinstance(d, list) else d
        names.append(d[0] + " " + str(getattr(d[1], "name", d[2] if len(d) > 2 else "")))
    return sorted(names)


def reflect(conn, tables):
    insp = sa.inspect(conn)
    for t in tables:
        print(t, [(c["name"], str(c["type"]), c["nullable"], c.get("default")) for c in insp.get_columns(t)])
        print("  pk", insp.get_pk_constraint(t))
        print("  fks", insp.get_foreign_keys(t))
        print("  indexes", sorted(insp.get_indexes(t), key=lambda i: i["name"]))
        print("  unique", sorted(insp.get_unique_constraints(t), key=lambda u: u["name"]))
        print("  checks", insp.get_check_constraints(t))
    print("enums", insp.get_enums())


def schema():
    md = model()
    with engine().begin() as conn:
        conn.execute(sa.text("DROP TABLE IF EXISTS articles, posts, users, tags CASCADE"))
        conn.execute(sa.text("DROP TYPE IF EXISTS post_status"))
    with engine().begin() as conn:
        ctx = MigrationContext.configure(conn)
        print("against an empty database:", diff_names(compare_metadata(ctx, md)))
        code = render_python_code(produce_migrations(ctx, md).upgrade_ops)
        print("create_table ops:", code.count("op.create_table"), "create_index ops:", code.count("op.create_index"))
        md.create_all(conn)
    with engine().begin() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        print("after create_all:", compare_metadata(ctx, md))
        reflect(conn, ["users", "posts"])


def migrate():
    with engine().begin() as conn:
        op = Operations(MigrationContext.configure(conn))
        op.add_column("users", sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()))
        op.add_column("users", sa.Column("deleted_at", sa.DateTime(timezone=True)))
        op.alter_column("posts", "title", type_=sa.Text, existing_type=sa.String(100), existing_nullable=False)
        op.alter_column("posts", "score", nullable=False, server_default="0", existing_type=sa.Numeric(10, 2))
        op.alter_column("users", "name", new_column_name="display_name", existing_type=sa.Text)
        op.create_index("ix_users_email_live", "users", ["email"], unique=True,
                        postgresql_where=sa.text("deleted_at IS NULL"))
        op.create_index("ix_posts_lower_title", "posts", [sa.text("lower(title)")])
        op.create_table("tags", sa.Column("id", sa.Integer, primary_key=True),
                        sa.Column("post_id", sa.BigInteger), sa.Column("label", sa.String(30), nullable=False))
        op.create_foreign_key("fk_tags_post", "tags", "posts", ["post_id"], ["id"], ondelete="SET NULL")
        tags = sa.table("tags", sa.column("id", sa.Integer), sa.column("label", sa.String))
        op.bulk_insert(tags, [{"id": 1, "label": "go"}, {"id": 2, "label": "sql"}])
        op.drop_column("posts", "tags")
        op.rename_table("posts", "articles")
        op.execute("ALTER SEQUENCE posts_id_seq RENAME TO articles_id_seq")
    with engine().begin() as conn:
        reflect(conn, ["users", "articles", "tags"])
        print("tags rows:", conn.execute(sa.text("SELECT id, label, post_id FROM tags ORDER BY id")).all())
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        print("against the model:", diff_names(compare_metadata(ctx, model())))
    with engine().begin() as conn:
        op = Operations(MigrationContext.configure(conn))
        op.drop_constraint("fk_tags_post", "tags", type_="foreignkey")
        op.drop_table("tags")
        op.drop_index("ix_users_email_live", "users")
        op.drop_table("articles")
        op.drop_table("users")
        sa.Enum(name="post_status").drop(conn)
        print("after the downgrade:", sa.inspect(conn).get_table_names(), sa.inspect(conn).get_enums())


if __name__ == "__main__":
    {"schema": schema, "migrate": migrate}[sys.argv[1]]()
