"""schema.py N prints the SQL of an application schema of N tables for
bench/catalog.sh: each table has a serial key, columns with defaults (a
literal, now(), a cast, a function call), NOT NULL and CHECK constraints, a
unique and a plain index, a foreign key to the table before it, and comments
on the table and a column; every tenth table gets a view over it and an
enum-typed column, as an application's tables do."""
import sys

n = int(sys.argv[1])
print("CREATE TYPE status AS ENUM ('new', 'active', 'archived');")
for i in range(n):
    t = "t%04d" % i
    ref = ",\n  parent_id integer REFERENCES t%04d (id) ON DELETE CASCADE" % (i - 1) if i else ""
    extra = ",\n  state status NOT NULL DEFAULT 'new'" if i % 10 == 0 else ""
    print(f"""CREATE TABLE {t} (
  id bigserial PRIMARY KEY,
  name varchar(100) NOT NULL DEFAULT '',
  code text UNIQUE,
  price numeric(10,2) NOT NULL DEFAULT 0 CHECK (price >= 0),
  quantity integer DEFAULT 1,
  active boolean NOT NULL DEFAULT true,
  payload jsonb DEFAULT '{{}}'::jsonb,
  tags text[] DEFAULT '{{}}'::text[],
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp without time zone DEFAULT (now() AT TIME ZONE 'utc'),
  token uuid DEFAULT md5(random()::text)::uuid{extra}{ref}
);""")
    print(f"CREATE INDEX {t}_created_at_idx ON {t} (created_at);")
    print(f"CREATE INDEX {t}_lower_name_idx ON {t} (lower(name)) WHERE active;")
    print(f"COMMENT ON TABLE {t} IS 'table {i} of the benchmark';")
    print(f"COMMENT ON COLUMN {t}.name IS 'the name of a {t} row';")
    if i % 10 == 0:
        print(f"CREATE VIEW {t}_active AS SELECT id, name, price FROM {t} WHERE active;")
