# lib.sh is sourced by the bench/ scripts that run fickle beside a PostgreSQL 15
# they start: it makes the scratch directory $work, removes it and stops both
# servers on exit, and starts them.

root=$(cd "$(dirname "$0")/.." && pwd)
pgbin=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
work=$(mktemp -d)
fickle_pid= pg_started=
cleanup() {
  [ -n "$fickle_pid" ] && kill "$fickle_pid" 2>/dev/null && wait "$fickle_pid" 2>/dev/null
  [ -n "$pg_started" ] && runas "$pgbin/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# runas runs a PostgreSQL program as user postgres when we are root (it refuses to run as root).
runas() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# start_postgres [initdb options]: a throwaway PostgreSQL in $work/pg without
# durability (fsync, synchronous_commit and full_page_writes off) on a free
# port, which it sets in pport.
start_postgres() {
  [ "$(id -u)" = 0 ] && chown postgres "$work"
  runas "$pgbin/initdb" -D "$work/pg" -U postgres -A trust --no-sync "$@" >/dev/null
  pport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  runas "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w -o "-p $pport -k $work -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
  pg_started=1
}

# cpu_seconds PID: the CPU time of a process and of its children that have
# exited and been waited for (a PostgreSQL postmaster's finished backends).
cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14+$15+$16+$17)/hz}' "/proc/$1/stat"
}

# postgres_cpu_seconds: the CPU time of the PostgreSQL that start_postgres
# started: the postmaster, its live processes (backends, WAL writer,
# checkpointer) and the backends that have exited.
postgres_cpu_seconds() {
  local pm
  pm=$(head -1 "$work/pg/postmaster.pid")
  # cat, not awk, reads the files: a process that ends after the glob is
  # skipped, where mawk would stop and print nothing; cat then exits 1,
  # which pipefail would turn into the script's end.
  { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v hz="$(getconf CLK_TCK)" -v pm="$pm" '
    # Field 2 (the command) has no spaces in the names of PostgreSQL processes.
    $1 == pm { t += $14 + $15 + $16 + $17 }
    $4 == pm { t += $14 + $15 }
    END { printf "%.2f", t / hz }'
}

# start_fickle BIN [serve flags]: `BIN serve` on a free port, its output in
# $work/fickle.out; sets fickle_pid and fport.
start_fickle() {
  local bin=$1
  shift
  "$bin" serve --listen 127.0.0.1:0 "$@" > "$work/fickle.out" 2>&1 &
  fickle_pid=$!
  for _ in $(seq 100); do grep -q '^listening on ' "$work/fickle.out" && break; sleep 0.1; done
  fport=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/fickle.out" | head -1)
  [ -n "$fport" ] || { cat "$work/fickle.out"; exit 1; }
}
