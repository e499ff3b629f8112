"""Prints the database's schema as Django's introspection sees it, and
the rows the migrations wrote, so that two databases can be compared."""
from django.core.management.base import BaseCommand
from django.db import connection


class Command(BaseCommand):
    help = "Print tables, columns, relations, indexes, constraints and migration rows."

    def handle(self, *args, **options):
        intro = connection.introspection
        with connection.cursor() as cursor:
            for table in sorted(t.name for t in intro.get_table_list(cursor)):
                self.stdout.write(f"table {table}")
                for col in intro.get_table_description(cursor, table):
                    type_code = col.type_code
                    if type_code >= 16384:
                        # An extension's type (hstore) has an OID of its
                        # own in each database: its name is what compares.
                        cursor.execute("SELECT format_type(%s, NULL)", [type_code])
                        type_code = cursor.fetchone()[0]
                    self.stdout.write(
                        f"  column {col.name} type={type_code} size={col.internal_size} "
                        f"precision={col.precision} scale={col.scale} null={col.null_ok} default={col.default}"
                    )
                for column, (other_column, other_table) in sorted(intro.get_relations(cursor, table).items()):
                    self.stdout.write(f"  relation {column} -> {other_table}.{other_column}")
            cursor.execute(
                "SELECT t.relname, i.relname, x.indisunique, x.indisprimary, pg_get_indexdef(x.indexrelid) FROM pg_index x"
                " JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid"
                " JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public' ORDER BY 1, 2"
            )
            for row in cursor.fetchall():
                self.stdout.write("index %s %s unique=%s primary=%s %s" % row)
            for name, c in sorted(intro.get_constraints(cursor, "shop_voucher").items()):
                self.stdout.write(
                    f"voucher constraint {name} columns={c['columns']} unique={c['unique']} index={c['index']} "
                    f"type={c.get('type')} definition={c.get('definition')}"
                )
            cursor.execute(
                "SELECT t.relname, c.conname, c.contype, c.condeferrable, c.condeferred FROM pg_constraint c"
                " JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace"
                " WHERE n.nspname = 'public' ORDER BY 1, 2"
            )
            for row in cursor.fetchall():
                self.stdout.write("constraint %s %s %s deferrable=%s deferred=%s" % row)
            cursor.execute("SELECT app, name FROM django_migrations ORDER BY app, name")
            for row in cursor.fetchall():
                self.stdout.write("migration %s %s" % row)
            cursor.execute("SELECT id, name FROM shop_tag ORDER BY id")
            for row in cursor.fetchall():
                self.stdout.write("tag %s %s" % row)
