#!/usr/bin/env bash
# gen.sh regenerates the golden files from the .cases files with a real
# PostgreSQL 15. Usage: PGHOST=/tmp PGPORT=55433 ./gen.sh
#   textio.cases: type, zone, input       -> 'input'::type
#   casts.cases:  from, to, zone, input   -> 'input'::from::to
# Each golden row is the case plus the output text or "ERROR <SQLSTATE>".
set -euo pipefail
cd "$(dirname "$0")"

# run ZONE SQL prints the single value SQL returns, or ERROR <SQLSTATE>.
run() {
  local res
  res=$(psql -X -U postgres -At -v VERBOSITY=verbose -c "SET TimeZone = '$1'" -c "$2" 2>&1 | tail -n +2) || true
  if [[ $res == ERROR:* ]]; then
    res="ERROR $(sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p' <<<"$res" | head -1)"
  fi
  printf '%s' "$res"
}

# lit S prints S as an E'' literal.
lit() {
  local q=${1//\\/\\\\}
  printf "E'%s'" "${q//\'/\'\'}"
}

: > textio.golden
grep -v '^#' textio.cases | while IFS=$'\t' read -r typ zone input; do
  printf '%s\t%s\t%s\t%s\n' "$typ" "$zone" "$input" "$(run "$zone" "SELECT $(lit "$input")::$typ")" >> textio.golden
done

: > casts.golden
grep -v '^#' casts.cases | while IFS=$'\t' read -r from to zone input; do
  printf '%s\t%s\t%s\t%s\t%s\n' "$from" "$to" "$zone" "$input" "$(run "$zone" "SELECT $(lit "$input")::$from::$to")" >> casts.golden
done
