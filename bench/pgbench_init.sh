#!/usr/bin/env bash
# pgbench_init.sh times `pgbench -i -s SCALE` (create the four tables, COPY
# 100,000 accounts per scale unit, vacuum, ADD PRIMARY KEY) against fickle
# and against a PostgreSQL 15 it starts (fsync=off, synchronous_commit=off,
# full_page_writes=off), in interleaved rounds, printing each wall time with
# the load average before it and each server's CPU seconds for the load
# (steadier than wall time on a shared machine) and fickle's peak resident
# size.
#
# Usage: bench/pgbench_init.sh [-s scale] [-n rounds] [FICKLE_BINARY...]
# Defaults: scale 10, 2 rounds, the tree's fickle (built here). Several
# binaries (say main's and a branch's) run in the same rounds, each in a
# fresh server with --strategy latest.
set -euo pipefail
scale=10 rounds=2
while getopts "s:n:" opt; do
  case $opt in
    s) scale=$OPTARG ;; n) rounds=$OPTARG ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
. "$(dirname "$0")/lib.sh"
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  echo "building fickle..." >&2
  (cd "$root" && go build -o "$work/fickle" ./cmd/fickle)
  bins=("$work/fickle")
fi

start_postgres

load() { cut -d' ' -f1 /proc/loadavg; }
secs() { python3 -c "print('%.2f' % ($2 - $1))"; }
init() { # port user db
  pgbench -q -i -s "$scale" -h 127.0.0.1 -p "$1" -U "$2" "$3" > "$work/init.log" 2>&1 || { cat "$work/init.log" >&2; exit 1; }
}
echo "pgbench -i -s $scale, $rounds interleaved rounds"
printf '%-6s %-40s %10s %8s %16s %14s\n' round server "wall (s)" load "server CPU (s)" "peak RSS (MB)"
for i in $(seq "$rounds"); do
  for b in "${bins[@]}"; do
    start_fickle "$b" --strategy latest
    l=$(load); s=$(date +%s.%N); init "$fport" fickle fickle; e=$(date +%s.%N)
    c=$(cpu_seconds "$fickle_pid")
    m=$(awk '/^VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$fickle_pid/status")
    kill "$fickle_pid"; wait "$fickle_pid" 2>/dev/null || true; fickle_pid=
    printf '%-6s %-40s %10s %8s %16s %14s\n' "$i" "fickle ($b)" "$(secs "$s" "$e")" "$l" "$c" "$m"
  done
  c0=$(postgres_cpu_seconds)
  l=$(load); s=$(date +%s.%N); init "$pport" postgres postgres; e=$(date +%s.%N)
  c1=$(postgres_cpu_seconds)
  printf '%-6s %-40s %10s %8s %16s\n' "$i" PostgreSQL "$(secs "$s" "$e")" "$l" "$(secs "$c0" "$c1")"
done
