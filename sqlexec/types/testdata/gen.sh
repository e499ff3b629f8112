#!/usr/bin/env bash
# gen.sh regenerates textio.golden from textio.cases with a real PostgreSQL 15:
# each case prints "type<TAB>zone<TAB>input<TAB>output" where output is the
# value's text or "ERROR <SQLSTATE>". Usage: PGPORT=55433 PGHOST=/tmp ./gen.sh
set -euo pipefail
cd "$(dirname "$0")"
out=textio.golden
: > "$out"
grep -v '^#' textio.cases | while IFS=$'\t' read -r typ zone input; do
  q=${input//\'/\'\'}
  res=$(psql -X -U postgres -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
    -c "SET TimeZone = '$zone'" -c "SELECT E'${q//\\/\\\\}'::$typ" 2>&1 | tail -n +2) || true
  if [[ $res == ERROR:* ]]; then
    res="ERROR $(sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p' <<<"$res" | head -1)"
  fi
  printf '%s\t%s\t%s\t%s\n' "$typ" "$zone" "$input" "$res" >> "$out"
done
