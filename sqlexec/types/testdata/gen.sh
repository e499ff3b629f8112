#!/usr/bin/env bash
# gen.sh regenerates the golden files from the .cases files (the *_random ones
# written by gen_random_cases.py) with a real
# PostgreSQL 15. Usage: PGHOST=/tmp PGPORT=55433 ./gen.sh
#   textio.cases: type, zone, input       -> 'input'::type
#   casts.cases:  from, to, zone, input   -> 'input'::from::to
# Each golden row is the case plus the output text or "ERROR <SQLSTATE>".
# ONLY="textio_arrays casts_arrays" regenerates just the named golden files.
set -euo pipefail
cd "$(dirname "$0")"

# wanted NAME reports whether NAME.golden is to be regenerated.
wanted() { [[ -z ${ONLY:-} || " $ONLY " == *" $1 "* ]]; }

# run ZONE SQL prints the single value SQL returns, or ERROR <SQLSTATE>.
run() {
  local res
  res=$(psql -X -U postgres -At -v VERBOSITY=verbose -c "SET TimeZone = '$1'" -c "$2" 2>&1 | tail -n +2) || true
  if [[ $res == ERROR:* ]]; then
    res="ERROR $(sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p' <<<"$res" | head -1)"
  fi
  # Multi-line values are written on one line with \n.
  printf '%s' "${res//$'\n'/\\n}"
}

# lit S prints S as an E'' literal.
lit() {
  local q=${1//\\/\\\\}
  printf "E'%s'" "${q//\'/\'\'}"
}

for cases in textio textio_random textio_arrays; do
wanted $cases || continue
: > $cases.golden
grep -v '^#' $cases.cases | tr '\t' '\037' | while IFS=$'\037' read -r typ zone input; do
  printf '%s\t%s\t%s\t%s\n' "$typ" "$zone" "$input" "$(run "$zone" "SELECT $(lit "$input")::$typ")" >> $cases.golden
done
done

for cases in casts casts_random casts_arrays; do
wanted $cases || continue
: > $cases.golden
grep -v '^#' $cases.cases | tr '\t' '\037' | while IFS=$'\037' read -r from to zone input; do
  printf '%s\t%s\t%s\t%s\t%s\n' "$from" "$to" "$zone" "$input" "$(run "$zone" "SELECT $(lit "$input")::$from::$to")" >> $cases.golden
done
done

# operand TYPE VALUE prints the SQL of an operand.
operand() {
  if [[ $2 == NULL ]]; then printf 'NULL::%s' "$1"
  elif [[ $1 == unknown ]]; then lit "$2"
  else printf '%s::%s' "$(lit "$2")" "$1"; fi
}

for cases in operators operators_random operators_arrays operators_geometric operators_geometric_random; do
wanted $cases || continue
: > $cases.golden
grep -v '^#' $cases.cases | tr '\t' '\037' | while IFS=$'\037' read -r lt lv op rt rv zone; do
  if [[ -z $lt ]]; then expr="$op $(operand "$rt" "$rv")"
  else expr="$(operand "$lt" "$lv") $op $(operand "$rt" "$rv")"; fi
  res=$(run "$zone" "SELECT pg_typeof(x)::text || E'\\t' || coalesce(x::text, 'NULL') FROM (SELECT $expr AS x) s")
  [[ $res == ERROR* ]] && res="-	$res"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$lt" "$lv" "$op" "$rt" "$rv" "$zone" "$res" >> $cases.golden
done
done

# args "type=value ; type=value" prints the SQL argument list.
args() {
  local out="" item
  local -a items=()
  [[ -n $1 ]] && mapfile -t items < <(awk 'BEGIN{RS=" ; "} {sub(/\n$/,""); print}' <<<"$1")
  for item in "${items[@]}"; do
    [[ -n $out ]] && out+=", "
    out+=$(operand "${item%%=*}" "${item#*=}")
  done
  printf '%s' "$out"
}

for cases in functions functions_random functions_arrays functions_geometric; do
wanted $cases || continue
: > $cases.golden
grep -v '^#' $cases.cases | tr '\t' '\037' | while IFS=$'\037' read -r zone fn list; do
  call="pg_catalog.\"$fn\""
  [[ $fn == greatest || $fn == least || $fn == nullif ]] && call=$fn
  res=$(run "$zone" "SELECT pg_typeof(x)::text || E'\\t' || coalesce(x::text, 'NULL') FROM (SELECT $call($(args "$list")) AS x) s")
  [[ $res == ERROR* ]] && res="-	$res"
  printf '%s\t%s\t%s\t%s\n' "$zone" "$fn" "$list" "$res" >> $cases.golden
done
done

for cases in aggregates aggregates_arrays; do
wanted $cases || continue
: > $cases.golden
grep -v '^#' $cases.cases | tr '\t' '\037' | while IFS=$'\037' read -r agg typ list delim; do
  rows="SELECT NULL::${typ/unknown/text} AS x WHERE false"
  if [[ -n $list ]]; then
    rows=""
    while IFS= read -r v; do
      [[ -n $rows ]] && rows+=" UNION ALL "
      rows+="SELECT $(operand "$typ" "$v") AS x"
    done < <(awk 'BEGIN{RS=" ; "} {sub(/\n$/,""); print}' <<<"$list")
  fi
  call="$agg(x)"
  [[ $agg == string_agg ]] && call="$agg(x, $(operand "$typ" "$delim"))"
  res=$(run UTC "SELECT pg_typeof($call)::text || E'\\t' || coalesce($call::text, 'NULL') FROM ($rows) s")
  [[ $res == ERROR* ]] && res="-	$res"
  printf '%s\t%s\t%s\t%s\t%s\n' "$agg" "$typ" "$list" "$delim" "$res" >> $cases.golden
done
done
