#!/usr/bin/env bash
# pgbench_ab.sh compares two fickle binaries (say one built from main and one
# from a branch) and a PostgreSQL 15 under pgbench's TPC-B-like script:
# rounds of one run against each, interleaved, so that a shared machine's
# load falls on all three alike; it prints every run's TPS and each server's
# CPU time per transaction (steadier than TPS on a shared machine), and the
# medians.
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

# cpu_of NAME: the CPU seconds of fickle a or b, or of the PostgreSQL (pg:
# the postmaster, its live processes and the backends that have exited).
cpu_of() {
  case $1 in
    a | b)
      local pid=${pids[0]}
      [ "$1" = b ] && pid=${pids[1]}
      awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14+$15)/hz}' "/proc/$pid/stat" ;;
    pg) # cat, not awk, reads the files: a process that ends after the glob is skipped, where mawk stops.
      cat /proc/[0-9]*/stat 2>/dev/null | awk -v hz="$(getconf CLK_TCK)" -v pm="$(head -1 "$work/pg/postmaster.pid")" '
        $1 == pm { t += $14 + $15 + $16 + $17 }
        $4 == pm { t += $14 + $15 }
        END { printf "%.2f", t / hz }' ;;
  esac
}
run() { # name port user db: prints TPS and the server's CPU microseconds a transaction
  pgbench -q -i -s 1 -h 127.0.0.1 -p "$2" -U "$3" "$4" >/dev/null 2>&1
  local c0 c1
  c0=$(cpu_of "$1")
  pgbench -c "$clients" -j "$threads" -T "$secs" -M "$mode" -h 127.0.0.1 -p "$2" -U "$3" "$4" > "$work/run.txt" 2>&1
  c1=$(cpu_of "$1")
  python3 - "$work/run.txt" "$c0" "$c1" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
tps = float(re.search(r"^tps = ([0-9.]+)", text, re.M).group(1))
n = int(re.search(r"^number of transactions actually processed: ([0-9]+)", text, re.M).group(1))
print("%.0f %.0f" % (tps, (float(sys.argv[3]) - float(sys.argv[2])) * 1e6 / n))
EOF
}
echo "pgbench -c $clients -j $threads -T $secs -M $mode, scale 1, $rounds interleaved rounds"
echo "(each: TPS, then the server's CPU microseconds a transaction)"
for r in $(seq "$rounds"); do
  l0=$(cut -d' ' -f1 /proc/loadavg)
  a=$(run a "$port_a" fickle fickle) b=$(run b "$port_b" fickle fickle) p=$(run pg "$port_pg" postgres postgres)
  echo "round $r: A $a  B $b  PostgreSQL $p  (load $l0-$(cut -d' ' -f1 /proc/loadavg))"
  echo "$a $b $p" >> "$work/tps"
done
python3 - "$work/tps" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
a, acpu, b, bcpu, p, pcpu = (statistics.median(c) for c in zip(*rows))
print("median TPS: A %.0f  B %.0f  PostgreSQL %.0f;  B/A %.2fx  A/PostgreSQL %.2fx  B/PostgreSQL %.2fx" % (a, b, p, b / a, a / p, b / p))
print("median CPU a transaction: A %.0f us  B %.0f us  PostgreSQL %.0f us" % (acpu, bcpu, pcpu))
EOF
