#!/usr/bin/env bash
# django.sh times the Django project of the integration tests
# (integration/testdata/django) running its own test suite (`manage.py test`:
# it creates the test database, migrates it, runs the TestCase and
# TransactionTestCase classes and drops it) against fickle and against a
# PostgreSQL 15 it starts (fsync=off, synchronous_commit=off), in
# interleaved rounds, and prints each wall time, the medians and the load
# average beside every run.
#
# Usage: bench/django.sh [-n rounds] [-- extra fickle serve flags]
# Defaults: 3 rounds; fickle with --realtime (TransactionTestCase reconnects
# after a TRUNCATE and must see it, docs/clients.md) and the server's default
# strategy; extra flags are added, e.g. `-- --strategy latest`.
set -euo pipefail
rounds=3
while getopts "n:" opt; do
  case $opt in
    n) rounds=$OPTARG ;;
    *) sed -n '2,13p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
. "$(dirname "$0")/lib.sh"
project=$root/integration/testdata/django
python=/usr/bin/python3
"$python" -c 'import django, psycopg2' || { echo "django.sh needs python3-django and python3-psycopg2" >&2; exit 1; }

echo "building fickle..." >&2
(cd "$root" && go build -o "$work/fickle" ./cmd/fickle)

start_fickle "$work/fickle" --database shop --realtime "$@"

start_postgres -E UTF8 --locale=C
psql -q -h 127.0.0.1 -p "$pport" -U postgres -d postgres -c 'CREATE DATABASE shop' >/dev/null

# cpu prints a process's user+system CPU seconds so far.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14+$15)/hz}' "/proc/$1/stat"; }
# run times one `manage.py test` against port $2, named $1, and prints its wall seconds.
run() {
  local start end
  start=$(date +%s.%N)
  if ! (cd "$project" && PGPORT=$2 PYTHONDONTWRITEBYTECODE=1 "$python" manage.py test --noinput > "$work/$1.log" 2>&1); then
    echo "manage.py test failed against $1:" >&2; tail -30 "$work/$1.log" >&2; exit 1
  fi
  end=$(date +%s.%N)
  "$python" -c "print('%.2f' % ($end - $start))"
}
load() { cut -d' ' -f1 /proc/loadavg; }
median() { "$python" -c 'import statistics,sys; print("%.2f" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

echo "manage.py test ($(grep -c 'def test' "$project/shop/tests.py") tests), $rounds interleaved rounds; fickle serve --realtime $*"
printf '%-6s %-10s %10s %8s %18s\n' round server "wall (s)" load "fickle CPU (s)"
fw=() pw=()
for i in $(seq "$rounds"); do
  l=$(load); c0=$(cpu "$fickle_pid"); w=$(run fickle "$fport"); c1=$(cpu "$fickle_pid")
  printf '%-6s %-10s %10s %8s %18s\n' "$i" fickle "$w" "$l" "$("$python" -c "print('%.2f' % ($c1 - $c0))")"
  fw+=("$w")
  l=$(load); w=$(run postgres "$pport")
  printf '%-6s %-10s %10s %8s %18s\n' "$i" PostgreSQL "$w" "$l" "-"
  pw+=("$w")
done
fm=$(median "${fw[@]}") pm=$(median "${pw[@]}")
echo "median wall: fickle ${fm} s, PostgreSQL ${pm} s (fickle takes $("$python" -c "print('%.2f' % ($fm / $pm))")x PostgreSQL's time)"
