#!/usr/bin/env bash
# pgbench_ab.sh compares two fickle binaries (say one built from main and one
# from a branch) and a PostgreSQL 15 under pgbench's TPC-B-like script:
# rounds of one run against each, interleaved, so that a shared machine's
# load falls on all three alike; it prints every run's TPS and the medians.
#
# Usage: bench/pgbench_ab.sh FICKLE_A FICKLE_B [-r rounds] [-c clients] [-j threads] [-T seconds] [-M mode]
# Defaults: 3 rounds of -c 8 -j 2 -T 10 -M simple, scale 1, both fickles with --strategy latest.
set -euo pipefail
bin_a=$1 bin_b=$2
shift 2
rounds=3 clients=8 threads=2 secs=10 mode=simple
while getopts "r:c:j:T:M:" opt; do
  case $opt in
    r) rounds=$OPTARG ;; c) clients=$OPTARG ;; j) threads=$OPTARG ;; T) secs=$OPTARG ;; M) mode=$OPTARG ;;
    *) sed -n '2,8p' "$0"; exit 2 ;;
  esac
done
pgbin=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
work=$(mktemp -d)
pids=() pg_started=
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  [ -n "$pg_started" ] && runas "$pgbin/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
runas() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start_fickle() { # binary name: starts it in this shell, so that cleanup stops it
  "$1" serve --listen 127.0.0.1:0 --strategy latest > "$work/$2.out" 2>&1 &
  pids+=($!)
}
fickle_port() { # name
  for _ in $(seq 100); do grep -q '^listening on ' "$work/$1.out" && break; sleep 0.1; done
  sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/$1.out" | head -1
}
start_fickle "$bin_a" a
start_fickle "$bin_b" b
port_a=$(fickle_port a) port_b=$(fickle_port b)
[ -n "$port_a" ] && [ -n "$port_b" ] || { cat "$work/a.out" "$work/b.out"; exit 1; }
[ "$(id -u)" = 0 ] && chown postgres "$work"
runas "$pgbin/initdb" -D "$work/pg" -U postgres -A trust --no-sync >/dev/null
port_pg=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
runas "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w -o "-p $port_pg -k $work -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
pg_started=1

run() { # port user db
  pgbench -q -i -s 1 -h 127.0.0.1 -p "$1" -U "$2" "$3" >/dev/null 2>&1
  pgbench -c "$clients" -j "$threads" -T "$secs" -M "$mode" -h 127.0.0.1 -p "$1" -U "$2" "$3" 2>&1 |
    sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -1
}
echo "pgbench -c $clients -j $threads -T $secs -M $mode, scale 1, $rounds interleaved rounds"
for r in $(seq "$rounds"); do
  a=$(run "$port_a" fickle fickle) b=$(run "$port_b" fickle fickle) p=$(run "$port_pg" postgres postgres)
  echo "round $r: A $a  B $b  PostgreSQL $p  (load $(cut -d' ' -f1 /proc/loadavg))"
  echo "$a $b $p" >> "$work/tps"
done
python3 - "$work/tps" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
a, b, p = (statistics.median(c) for c in zip(*rows))
print("median TPS: A %.0f  B %.0f  PostgreSQL %.0f;  B/A %.2fx  A/PostgreSQL %.2fx  B/PostgreSQL %.2fx" % (a, b, p, b / a, a / p, b / p))
EOF
