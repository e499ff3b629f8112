#!/usr/bin/env bash
# catalog.sh times the catalog introspection of ORMs and tools against fickle
# and against a PostgreSQL 15 it starts (fsync=off): for each size it makes a
# database of N application tables on both (bench/catalog/schema.py: serial
# keys, defaults, CHECK and foreign keys, unique, plain, expression and
# partial indexes, comments, views, an enum), then runs, one after the
# other on each server,
#   django      Django's `inspectdb` (its PostgreSQL introspection)
#   activerecord ActiveRecord 6.1's schema dump (SchemaDumper, db/schema.rb)
#   sqlalchemy  SQLAlchemy's Inspector on every table, then MetaData.reflect()
#   psql        psql's \d of every relation of the tables (\d t*)
#   pgdump      pg_dump -s
# and prints each wall time, the ratio, the load average, and whether the two
# servers printed the same output (they must).
#
# Usage: bench/catalog.sh [-n "200 600"] [-c "django activerecord ..."] [-- fickle serve flags]
# Defaults: sizes 200 and 600, every client, fickle's default serve flags.
set -euo pipefail
sizes="200 600"
clients="django activerecord sqlalchemy psql pgdump"
while getopts "n:c:" opt; do
  case $opt in
    n) sizes=$OPTARG ;;
    c) clients=$OPTARG ;;
    *) sed -n '2,17p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
. "$(dirname "$0")/lib.sh"
dir=$root/bench/catalog
python=/usr/bin/python3
"$python" -c 'import django, psycopg2, sqlalchemy' || { echo "catalog.sh needs python3-django, python3-psycopg2 and python3-sqlalchemy" >&2; exit 1; }
ruby -e 'require "active_record"; require "pg"' || { echo "catalog.sh needs ruby-activerecord and ruby-pg" >&2; exit 1; }

echo "building fickle..." >&2
(cd "$root" && go build -o "$work/fickle" ./cmd/fickle)
start_fickle "$work/fickle" "$@"
start_postgres -E UTF8 --locale=C

# client NAME runs client NAME against the database the PG* variables name.
client() {
  case $1 in
    django) "$python" "$dir/django_inspectdb.py" ;;
    activerecord) ruby "$dir/activerecord_dump.rb" ;;
    sqlalchemy) "$python" "$dir/sqlalchemy_reflect.py" ;;
    psql) psql -X -c '\d t*' ;;
    # pg_dump draws its \restrict key at random and names the server's
    # version as the server reports it: both are masked.
    pgdump) pg_dump -s | sed -e 's/^\\\(un\)\{0,1\}restrict .*/\\\1restrict .../' -e 's/^-- Dumped from database version .*/-- Dumped from database version .../' ;;
    *) echo "unknown client $1" >&2; exit 2 ;;
  esac
}
# timed OUT PORT CMD...: runs CMD with PGPORT=PORT, output to OUT; prints wall seconds.
timed() {
  local out=$1 port=$2 start end
  shift 2
  start=$(date +%s.%N)
  if ! PGPORT=$port "$@" > "$out" 2> "$out.err"; then
    echo "$* failed on port $port:" >&2; tail -20 "$out.err" >&2; exit 1
  fi
  end=$(date +%s.%N)
  "$python" -c "print('%.2f' % ($end - $start))"
}
load() { cut -d' ' -f1 /proc/loadavg; }
ratio() { "$python" -c "print('%.2f' % ($1 / max($2, 0.01)))"; }

export PGHOST=127.0.0.1 PGUSER=postgres
echo "fickle serve $*; $(nproc) CPUs"
printf '%-7s %-13s %12s %14s %8s %6s %s\n' tables client "fickle (s)" "PostgreSQL (s)" ratio load output
for n in $sizes; do
  "$python" "$dir/schema.py" "$n" > "$work/schema$n.sql"
  export PGDATABASE=cat$n
  for port in "$fport" "$pport"; do
    psql -X -q -p "$port" -d postgres -c "CREATE DATABASE cat$n"
  done
  l=$(load)
  f=$(timed "$work/load.f" "$fport" psql -X -q -v ON_ERROR_STOP=1 -f "$work/schema$n.sql")
  p=$(timed "$work/load.p" "$pport" psql -X -q -v ON_ERROR_STOP=1 -f "$work/schema$n.sql")
  printf '%-7s %-13s %12s %14s %8s %6s %s\n' "$n" "(schema load)" "$f" "$p" "$(ratio "$f" "$p")" "$l" -
  for c in $clients; do
    l=$(load)
    f=$(timed "$work/$c.f" "$fport" client "$c")
    p=$(timed "$work/$c.p" "$pport" client "$c")
    same=same
    cmp -s "$work/$c.f" "$work/$c.p" || same="DIFFERS ($(diff "$work/$c.f" "$work/$c.p" | grep -c '^[<>]') lines)"
    printf '%-7s %-13s %12s %14s %8s %6s %s\n' "$n" "$c" "$f" "$p" "$(ratio "$f" "$p")" "$l" "$same"
  done
done
