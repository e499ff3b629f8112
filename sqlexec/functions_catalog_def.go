package sqlexec

import (
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// routineDefinition is pg_get_functiondef of a user routine: the CREATE OR
// REPLACE statement that makes it, laid out as PostgreSQL 15's ruleutils
// prints it. false when no user routine has the OID; a BEGIN ATOMIC or
// RETURN body with statements, which PostgreSQL prints from its parsed
// form, is refused.
func routineDefinition(c *catalog, oid uint32) (string, bool, error) {
	f := c.funcByOID(oid)
	if f == nil {
		return builtinRoutineDefinition(oid)
	}
	if f.kind == 'a' {
		return "", false, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is an aggregate function", f.name)
	}
	if len(f.sqlBody) > 0 {
		return "", false, pgerror.Unsupported("pg_get_functiondef of a routine with a BEGIN ATOMIC or RETURN body")
	}
	kind := "FUNCTION"
	if f.kind == 'p' {
		kind = "PROCEDURE"
	}
	args, _ := routineArguments(c, oid, true)
	var b strings.Builder
	b.WriteString("CREATE OR REPLACE " + kind + " " + types.QuoteIdent(f.schema) + "." + types.QuoteIdent(f.name) + "(" + args + ")\n")
	if f.kind != 'p' {
		result, _ := routineResult(c, oid)
		b.WriteString(" RETURNS " + result + "\n")
	}
	b.WriteString(" LANGUAGE " + types.QuoteIdent(f.lang) + "\n")
	var opts string
	switch f.volatility {
	case 'i':
		opts += " IMMUTABLE"
	case 's':
		opts += " STABLE"
	}
	parallel := f.parallel
	if parallel == 0 && f.lang == "c" {
		parallel = 's' // as the extensions' scripts declare their functions
	}
	switch parallel {
	case 's':
		opts += " PARALLEL SAFE"
	case 'r':
		opts += " PARALLEL RESTRICTED"
	}
	if f.strict {
		opts += " STRICT"
	}
	if f.secDef {
		opts += " SECURITY DEFINER"
	}
	if f.leakproof {
		opts += " LEAKPROOF"
	}
	if f.cost != 0 && f.cost != (&funcDesc{lang: f.lang}).procost() {
		opts += " COST " + strconv.FormatFloat(float64(float32(f.cost)), 'g', -1, 32)
	}
	if f.rows != 0 && f.rows != 1000 {
		opts += " ROWS " + strconv.FormatFloat(float64(float32(f.rows)), 'g', -1, 32)
	}
	if opts != "" {
		b.WriteString(opts + "\n")
	}
	for _, cfg := range f.config {
		b.WriteString(" SET " + types.QuoteIdent(cfg.displayName()) + " TO " + configLiteral(cfg) + "\n")
	}
	tag := "$" + strings.ToLower(kind)
	for strings.Contains(f.src, tag) {
		tag += "x"
	}
	tag += "$"
	if f.sqlBody != nil {
		b.WriteString(emptyAtomicBody + "\n")
	} else if f.lang == "c" {
		b.WriteString("AS '$libdir/" + f.library + "', " + tag + f.src + tag + "\n")
	} else {
		b.WriteString("AS " + tag + f.src + tag + "\n")
	}
	return b.String(), true, nil
}

// emptyAtomicBody is how ruleutils prints a BEGIN ATOMIC body without
// statements, the only one fickle prints.
const emptyAtomicBody = "BEGIN ATOMIC\nEND"

// listSettings are the settings whose value is a list PostgreSQL quotes
// element by element (GUC_LIST_QUOTE).
var listSettings = map[string]bool{"search_path": true, "temp_tablespaces": true, "local_preload_libraries": true,
	"session_preload_libraries": true, "shared_preload_libraries": true}

// displayName is the setting's name as PostgreSQL spells it in
// pg_proc.proconfig and pg_get_functiondef (DateStyle, TimeZone).
func (cfg funcSetting) displayName() string {
	if d := settingDefs[cfg.name]; d != nil {
		return d.name
	}
	return cfg.name
}

// configLiteral is a SET option's value as pg_get_functiondef quotes it:
// a list setting (search_path) element by element.
func configLiteral(cfg funcSetting) string {
	if !listSettings[cfg.name] {
		return quoteLiteral(cfg.value)
	}
	var items []string
	for _, item := range strings.Split(cfg.value, ",") {
		items = append(items, quoteLiteral(strings.Trim(strings.TrimSpace(item), `"`)))
	}
	return strings.Join(items, ", ")
}

// builtinRoutineDefinition is pg_get_functiondef of a built-in routine, as
// PostgreSQL prints it; an aggregate has none (42809).
func builtinRoutineDefinition(oid uint32) (string, bool, error) {
	p := builtinIndex().procs[oid]
	switch {
	case p == nil:
		return "", false, nil
	case p.kind == 'a':
		return "", false, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is an aggregate function", p.name)
	}
	return p.definition, true, nil
}
