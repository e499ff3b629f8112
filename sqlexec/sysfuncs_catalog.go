package sqlexec

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/fickle-db/fickle/internal/pgencoding"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The catalog functions psql and drivers call in their introspection
// queries. Each looks the object up; an OID that names nothing gives NULL
// where PostgreSQL's does.

func init() {
	oid, text, name, b, i4 := types.OidType, types.Text, types.Name, types.Bool, types.Int4
	add := func(fn string, result types.Type, eval func(x *execCtx, args []any) (any, error), args ...types.Type) {
		addSysFunc(fn, sysFunc{args: args, result: result, eval: eval})
	}
	catalog := func(x *execCtx) *catalog {
		c, _ := x.s.catalog()
		return c
	}
	names := func(x *execCtx) catalogNames { return catalogNames{s: x.s} }

	add("pg_get_userbyid", name, func(x *execCtx, a []any) (any, error) {
		if n, ok := names(x).roleName(uint32(a[0].(int64))); ok {
			return unquoteIdent(n), nil
		}
		return "unknown (OID=" + strconv.FormatInt(a[0].(int64), 10) + ")", nil
	}, oid)
	add("pg_table_is_visible", b, func(x *execCtx, a []any) (any, error) {
		c := catalog(x)
		_, rel, ok := relationByOid(c, a[0].(int64))
		if !ok {
			return nil, nil
		}
		found, ok := relationIn(c, x.s.searchPath(), rel)
		return ok && found == a[0].(int64), nil
	}, oid)
	add("pg_type_is_visible", b, func(x *execCtx, a []any) (any, error) {
		n := names(x)
		typ := uint32(a[0].(int64))
		if bt := builtinIndex().types[typ]; bt != nil {
			return n.visible(bt.namespace), nil
		}
		if rel, _ := relationOfRowType(catalog(x), typ); rel != nil {
			return n.relationVisible(rel), nil
		}
		if t, _ := catalog(x).typeByOidOrArray(typ); t != nil {
			return x.s.lookupType(catalog(x), "", t.name) == t, nil
		}
		return nil, nil
	}, oid)
	add("pg_function_is_visible", b, func(x *execCtx, a []any) (any, error) {
		p := builtinIndex().procs[uint32(a[0].(int64))]
		if p == nil {
			p = userProc(catalog(x), catalog(x).funcByOID(uint32(a[0].(int64))))
		}
		if p == nil {
			return nil, nil
		}
		return names(x).procVisible(p), nil
	}, oid)
	// to_regclass and its siblings read a name as the cast to their type
	// does, answering NULL where the object (or its schema) does not exist;
	// a malformed name is still an error, as in PostgreSQL 15.
	for fn, t := range map[string]types.Type{
		"to_regclass": types.Regclass, "to_regtype": types.Regtype, "to_regproc": types.Regproc,
		"to_regprocedure": types.Regprocedure, "to_regoper": types.Regoper, "to_regoperator": types.Regoperator,
		"to_regnamespace": types.Regnamespace, "to_regrole": types.Regrole,
	} {
		add(fn, t, func(x *execCtx, a []any) (any, error) {
			oid, err := names(x).RegIn(t.Oid, a[0].(string))
			switch pgerror.GetCode(err) {
			case pgerror.UndefinedTable, pgerror.InvalidSchemaName, pgerror.UndefinedObject,
				pgerror.UndefinedFunction, pgerror.AmbiguousFunction:
				return nil, nil
			}
			return oid, err
		}, text)
	}
	describe := func(x *execCtx, a []any) (any, error) {
		class := ""
		if len(a) == 2 {
			class = a[1].(string)
		}
		return commentOf(catalog(x), a[0].(int64), class, 0), nil
	}
	add("obj_description", text, describe, oid)
	add("obj_description", text, describe, oid, name)
	add("col_description", text, func(x *execCtx, a []any) (any, error) {
		return commentOf(catalog(x), a[0].(int64), "pg_class", a[1].(int64)), nil
	}, oid, i4)
	add("shobj_description", text, func(x *execCtx, a []any) (any, error) {
		return x.s.sharedComment(a[0].(int64), a[1].(string)), nil
	}, oid, name)
	addSysFunc("format_type", sysFunc{args: []types.Type{oid, i4}, result: text, nullable: true, eval: func(x *execCtx, a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		typmod := typmodNone
		if a[1] != nil {
			typmod = int32(a[1].(int64))
		}
		typ := uint32(a[0].(int64))
		if typ == 0 {
			return "-", nil // InvalidOid, as format_type prints it
		}
		if s, ok := names(x).typeName(typ, typmod); ok {
			return s, nil
		}
		return "???", nil
	}})
	add("pg_encoding_to_char", name, func(_ *execCtx, a []any) (any, error) {
		if n := a[0].(int64); n == int64(int32(n)) {
			if e, ok := pgencoding.ByNumber(int(n)); ok {
				return e.Name, nil
			}
		}
		return "", nil
	}, i4)
	add("pg_char_to_encoding", i4, func(_ *execCtx, a []any) (any, error) {
		if e, ok := pgencoding.Lookup(a[0].(string)); ok {
			return int64(e.Number()), nil
		}
		return int64(-1), nil
	}, name)
	// fickle's expression columns (pg_attrdef.adbin, pg_constraint.conbin)
	// hold the expression's SQL text, decompiled against the relation.
	getExpr := func(x *execCtx, a []any) (any, error) {
		return decompile(x.s, catalog(x), a[0].(string), uint32(a[1].(int64)), len(a) > 2 && a[2] == true), nil
	}
	add("pg_get_expr", text, getExpr, text, oid)
	add("pg_get_expr", text, getExpr, text, oid, b)
	add("pg_relation_is_publishable", b, func(x *execCtx, a []any) (any, error) {
		// PostgreSQL publishes the permanent tables (isPublishable).
		t := catalog(x).tables[uint32(a[0].(int64))]
		return t != nil && isPublishable(t), nil
	}, types.Regclass)
	constraintDef := func(x *execCtx, a []any) (any, error) {
		c := catalog(x)
		pretty := len(a) > 1 && a[1] == true
		if dom, ck := domainCheckByOID(c, uint32(a[0].(int64))); ck != nil {
			return "CHECK (" + decompile(x.s, c, storedDomainCheck(dom, ck), 0, pretty) + ")", nil
		}
		r := constraintByOID(c, uint32(a[0].(int64)))
		switch {
		case r == nil:
			return nil, nil
		case r.excl != nil:
			return exclusionDef(x.s, c, r.table, r.excl, pretty) + deferralText(r.deferrable, r.deferred), nil
		case r.check != nil:
			def := "CHECK (" + decompile(x.s, c, r.check.text, r.table.oid, pretty) + ")"
			if r.check.noInherit {
				def += " NO INHERIT"
			}
			if r.notValid {
				def += " NOT VALID"
			}
			return def, nil
		}
		return r.definition(x.s, c), nil
	}
	add("pg_get_constraintdef", text, constraintDef, oid)
	add("pg_get_constraintdef", text, constraintDef, oid, b)
	indexDef := func(x *execCtx, a []any) (any, error) {
		// pg_get_indexdef's column argument picks one key column (0: the
		// whole statement); the pretty flag prints expressions with fewer
		// parentheses.
		c, ix := catalog(x), uint32(a[0].(int64))
		if len(a) > 1 && a[1].(int64) != 0 {
			if def, ok := indexColumnDefinition(x.s, c, ix, int(a[1].(int64)), len(a) > 2 && a[2] == true); ok {
				return def, nil
			}
			return nil, nil
		}
		if def, ok := indexDefinition(x.s, c, ix, len(a) > 2 && a[2] == true); ok {
			return def, nil
		}
		return nil, nil
	}
	add("pg_get_indexdef", text, indexDef, oid)
	add("pg_get_indexdef", text, indexDef, oid, i4, b)
	// The functions of routines describe the user's (functions_catalog.go)
	// and the built-in ones (as pgdata holds PostgreSQL's answers), those
	// of triggers and statistics objects the user's.
	orNull := func(s string, ok bool) (any, error) {
		if !ok {
			return nil, nil
		}
		return s, nil
	}
	triggerDef := func(x *execCtx, a []any) (any, error) {
		return orNull(triggerDefinition(x.s, catalog(x), uint32(a[0].(int64)), len(a) > 1 && a[1] == true))
	}
	add("pg_get_triggerdef", text, triggerDef, oid)
	add("pg_get_triggerdef", text, triggerDef, oid, b)
	statsDef := func(columnsOnly bool) func(*execCtx, []any) (any, error) {
		return func(x *execCtx, a []any) (any, error) {
			c := catalog(x)
			if t, st := c.statsByOID(uint32(a[0].(int64))); st != nil {
				return statsDefinitionText(x.s, c, t, st, columnsOnly), nil
			}
			return nil, nil
		}
	}
	add("pg_get_statisticsobjdef", text, statsDef(false), oid)
	add("pg_get_statisticsobjdef_columns", text, statsDef(true), oid)
	add("pg_get_statisticsobjdef_expressions", arrayType(text), func(x *execCtx, a []any) (any, error) {
		c := catalog(x)
		t, st := c.statsByOID(uint32(a[0].(int64)))
		if st == nil || len(st.exprs) == 0 {
			return nil, nil
		}
		var out []any
		for _, e := range statsExpressionsText(x.s, c, t, st) {
			out = append(out, e)
		}
		return out, nil
	}, oid)
	add("pg_statistics_obj_is_visible", types.Bool, func(x *execCtx, a []any) (any, error) {
		c := catalog(x)
		if _, st := c.statsByOID(uint32(a[0].(int64))); st != nil {
			return x.s.statsVisible(c, st), nil
		}
		return nil, nil
	}, oid)
	add("pg_get_functiondef", text, func(x *execCtx, a []any) (any, error) {
		def, ok, err := routineDefinition(catalog(x), uint32(a[0].(int64)))
		if err != nil {
			return nil, err
		}
		return orNull(def, ok)
	}, oid)
	add("pg_get_function_sqlbody", text, func(x *execCtx, a []any) (any, error) {
		if f := catalog(x).funcByOID(uint32(a[0].(int64))); f != nil && f.sqlBody != nil {
			if len(f.sqlBody) == 0 {
				return emptyAtomicBody, nil
			}
			return nil, pgerror.Unsupported("pg_get_function_sqlbody of a routine with a BEGIN ATOMIC or RETURN body")
		}
		return nil, nil
	}, oid)
	add("pg_get_function_result", text, func(x *execCtx, a []any) (any, error) {
		return orNull(routineResult(catalog(x), uint32(a[0].(int64))))
	}, oid)
	add("pg_get_function_arguments", text, func(x *execCtx, a []any) (any, error) {
		return orNull(routineArguments(catalog(x), uint32(a[0].(int64)), true))
	}, oid)
	add("pg_get_function_identity_arguments", text, func(x *execCtx, a []any) (any, error) {
		return orNull(routineArguments(catalog(x), uint32(a[0].(int64)), false))
	}, oid)
	add("pg_size_pretty", text, func(_ *execCtx, a []any) (any, error) { return sizePretty(big.NewInt(a[0].(int64)), ""), nil }, types.Int8)
	add("pg_size_pretty", text, func(_ *execCtx, a []any) (any, error) { return sizePrettyNumeric(a[0].(*apd.Decimal)), nil }, types.NumericAny)
	add("pg_size_bytes", types.Int8, func(_ *execCtx, a []any) (any, error) { return sizeBytes(a[0].(string)) }, text)
	sizeArgs := map[string][][]types.Type{
		"pg_table_size": {{types.Regclass}}, "pg_total_relation_size": {{types.Regclass}}, "pg_indexes_size": {{types.Regclass}},
		"pg_relation_size": {{types.Regclass}, {types.Regclass, text}},
	}
	for fn, signatures := range sizeArgs {
		refuse := func(*execCtx, []any) (any, error) {
			return nil, pgerror.Unsupported(fn + " (fickle keeps rows in memory, without PostgreSQL's on-disk size)")
		}
		for _, args := range signatures {
			add(fn, types.Int8, refuse, args...)
		}
	}
	// pg_database_size looks the database up before it refuses, so that a
	// name that does not exist gets PostgreSQL's 3D000 and an OID NULL.
	refuseDatabaseSize := func() error {
		return pgerror.Unsupported("pg_database_size (fickle keeps rows in memory, without PostgreSQL's on-disk size)")
	}
	add("pg_database_size", types.Int8, func(x *execCtx, a []any) (any, error) {
		if x.s.engine.cluster.database(a[0].(string)) == nil {
			return nil, pgerror.Newf(pgerror.InvalidCatalogName, "database \"%s\" does not exist", a[0].(string))
		}
		return nil, refuseDatabaseSize()
	}, name)
	add("pg_database_size", types.Int8, func(x *execCtx, a []any) (any, error) {
		if x.s.engine.cluster.databaseByOID(uint32(a[0].(int64))) == nil {
			return nil, nil
		}
		return nil, refuseDatabaseSize()
	}, oid)
}

// unquoteIdent undoes types.QuoteIdent.
func unquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		parts, err := parseQualifiedName(s)
		if err == nil && len(parts) == 1 {
			return parts[0]
		}
	}
	return s
}

// sizeUnits are pg_size_pretty's units: the limit below which a size is
// printed in the unit, whether the value is rounded half away from zero,
// and the unit's power of two.
var sizeUnits = []struct {
	name  string
	limit int64
	round bool
	bits  uint
}{{"bytes", 10 * 1024, false, 0}, {"kB", 20*1024 - 1, true, 10}, {"MB", 20*1024 - 1, true, 20},
	{"GB", 20*1024 - 1, true, 30}, {"TB", 20*1024 - 1, true, 40}, {"PB", 20*1024 - 1, true, 50}}

// sizePretty is pg_size_pretty: each unit keeps one more bit than it
// prints, for rounding; bytes print as given (the text of a numeric,
// when bytesText is set).
func sizePretty(size *big.Int, bytesText string) string {
	for i, u := range sizeUnits {
		abs := new(big.Int).Abs(size)
		if i == len(sizeUnits)-1 || abs.Cmp(big.NewInt(u.limit)) < 0 {
			if u.round {
				size = halfRounded(size)
			}
			if i == 0 && bytesText != "" {
				return bytesText + " bytes"
			}
			return size.String() + " " + u.name
		}
		next := sizeUnits[i+1]
		bits := next.bits - u.bits
		if next.round {
			bits--
		}
		if u.round {
			bits++
		}
		size = new(big.Int).Quo(size, new(big.Int).Lsh(big.NewInt(1), bits))
	}
	return ""
}

// halfRounded is (x + sign(x)) / 2, truncated toward zero.
func halfRounded(x *big.Int) *big.Int {
	one := big.NewInt(1)
	if x.Sign() < 0 {
		one.Neg(one)
	}
	return new(big.Int).Quo(new(big.Int).Add(x, one), big.NewInt(2))
}

// sizeBytes is pg_size_bytes: a number (sign, digits, fraction, exponent)
// and an optional unit of sizeUnits, any case, with spaces around,
// converted to bytes as numeric_int8 rounds.
func sizeBytes(s string) (any, error) {
	invalid := func() *pgerror.Error {
		return pgerror.Newf(pgerror.InvalidParameterValue, "invalid size: \"%s\"", s)
	}
	isDigit := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	start := 0
	for start < len(s) && isSpaceRune(rune(s[start])) {
		start++
	}
	end, digits := start, false
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for ; isDigit(end); end++ {
		digits = true
	}
	if end < len(s) && s[end] == '.' {
		for end++; isDigit(end); end++ {
			digits = true
		}
	}
	if !digits {
		return nil, invalid()
	}
	if end < len(s) && (s[end] == 'e' || s[end] == 'E') {
		// strtol's exponent: a sign and digits, else the E starts the unit.
		i := end + 1
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if isDigit(i) {
			for i++; isDigit(i); i++ {
			}
			end = i
		}
	}
	num, err := types.ParseText(types.NumericAny, s[start:end])
	if err != nil {
		return nil, err
	}
	if unit := strings.TrimRightFunc(strings.TrimLeftFunc(s[end:], isSpaceRune), isSpaceRune); unit != "" {
		bits := -1
		for _, u := range sizeUnits {
			if strings.EqualFold(unit, u.name) {
				bits = int(u.bits)
			}
		}
		if bits < 0 {
			return nil, invalid().WithDetail("Invalid size unit: \"%s\".", unit).
				WithHint(`Valid units are "bytes", "kB", "MB", "GB", "TB", and "PB".`)
		}
		if d := num.(*apd.Decimal); bits > 0 {
			scaled := apd.NewWithBigInt(new(apd.BigInt).Lsh(&d.Coeff, uint(bits)), d.Exponent)
			scaled.Negative = d.Negative
			num = scaled
		}
	}
	return types.Cast(num, types.NumericAny, types.Int8)
}

// isSpaceRune is C's isspace in the C locale.
func isSpaceRune(r rune) bool { return r == ' ' || r >= '\t' && r <= '\r' }

// sizePrettyNumeric is pg_size_pretty(numeric): a size in bytes keeps its
// digits; larger ones are truncated to integers before the division.
func sizePrettyNumeric(d *apd.Decimal) string {
	text := types.FormatText(types.NumericAny, d, nil)
	if d.Form != apd.Finite {
		return text + " bytes"
	}
	ctx := apd.BaseContext.WithPrecision(1000)
	ctx.Rounding = apd.RoundDown
	var truncated apd.Decimal
	if _, err := ctx.RoundToIntegralValue(&truncated, d); err != nil {
		return text + " bytes"
	}
	n, ok := new(big.Int).SetString(truncated.Text('f'), 10)
	if !ok {
		return text + " bytes"
	}
	return sizePretty(n, text)
}

func init() {
	addSysFunc("pg_describe_object", sysFunc{args: []types.Type{types.OidType, types.OidType, types.Int4}, result: types.Text,
		eval: func(x *execCtx, a []any) (any, error) {
			return describeObject(x, uint32(a[0].(int64)), uint32(a[1].(int64)), int32(a[2].(int64)))
		}})
}

// relkindNouns name relations by pg_class.relkind in getObjectDescription's
// words.
var relkindNouns = map[string]string{"r": "table", "p": "table", "i": "index", "I": "index", "S": "sequence", "v": "view",
	"t": "TOAST table", "m": "materialized view", "c": "composite type", "f": "foreign table"}

// describeObject is pg_describe_object: the object of catalog class classid
// with OID objid (objsubid a column of a relation) as PostgreSQL's
// getObjectDescription words it; NULL for class and object 0, as there. The classes
// fickle's catalogs name objects of (relations, routines, schemas, types,
// constraints, extensions) are described; others, and columns of system catalogs, are
// refused.
func describeObject(x *execCtx, classid, objid uint32, objsubid int32) (any, error) {
	c, _ := x.s.catalog()
	n := catalogNames{s: x.s}
	if classid == 0 && objid == 0 { // a pinned object of pg_depend
		return nil, nil
	}
	switch classid {
	case oidPgClass:
		if t := compositeOfRelation(c, objid); t != nil {
			name, _ := n.typeName(t.oid, typmodNone)
			desc := "composite type " + name
			for i, f := range t.fields {
				if objsubid > 0 && int64(t.attnum(i)) == int64(objsubid) {
					return "column " + f.Name + " of " + desc, nil
				}
			}
			if objsubid != 0 {
				return nil, nil
			}
			return desc, nil
		}
		name, ok := n.RelationName(int64(objid))
		if !ok {
			return nil, nil
		}
		kind := ""
		if r := systemRelations().byOID[objid]; r != nil {
			kind = r.row.kind
		}
		for _, r := range relationRows(c) {
			if r.oid == objid {
				kind = r.kind
			}
		}
		noun, ok := relkindNouns[kind]
		if !ok {
			return nil, pgerror.Unsupported("pg_describe_object of this relation")
		}
		desc := noun + " " + name
		if objsubid < 0 && objsubid >= -int32(len(systemColumnNames)) && (kind == "r" || kind == "p" || kind == "t" || kind == "f") {
			return "column " + systemColumnNames[-objsubid-1] + " of " + desc, nil
		}
		if objsubid != 0 {
			t := c.tables[objid]
			if t == nil {
				return nil, pgerror.Unsupported("pg_describe_object of a column of a system relation or view")
			}
			for _, col := range t.cols {
				if int32(col.attnum) == objsubid {
					return "column " + col.name + " of " + desc, nil
				}
			}
			return nil, nil
		}
		return desc, nil
	case oidPgProc: // "function" for procedures too, as PostgreSQL 15 says
		if name, ok := n.procName(objid, true); ok {
			return "function " + name, nil
		}
		return nil, nil
	case oidPgNamespace:
		if name, ok := namespaceName(c, objid); ok {
			return "schema " + name, nil
		}
		return nil, nil
	case oidPgType:
		if name, ok := n.typeName(objid, typmodNone); ok {
			return "type " + name, nil
		}
		return nil, nil
	case oidPgConstraint: // a domain's constraint has no relation
		if _, ck := domainCheckByOID(c, objid); ck != nil {
			return "constraint " + ck.name, nil
		}
		if r := constraintByOID(c, objid); r != nil {
			if rel, ok := n.RelationName(int64(r.table.oid)); ok {
				return "constraint " + r.name + " on table " + rel, nil
			}
		}
		return nil, nil
	case oidPgConversion:
		if desc, ok := x.s.describeConversion(c, objid); ok {
			return desc, nil
		}
	case oidPgCollation:
		if desc, ok := x.s.describeCollation(c, objid); ok {
			return desc, nil
		}
		for name, b := range builtinCollations {
			if b.oid == objid {
				return "collation " + types.QuoteIdent(name), nil
			}
		}
		return nil, nil
	case oidPgStatisticExt:
		if _, st := c.statsByOID(objid); st != nil {
			name := types.QuoteIdent(st.name)
			if !x.s.statsVisible(c, st) {
				name = types.QuoteIdent(st.schema) + "." + name
			}
			return "statistics object " + name, nil
		}
		return nil, nil
	case oidPgExtensionClass:
		for _, e := range c.extensions {
			if e.oid == objid {
				return "extension " + e.name, nil
			}
		}
		return nil, nil
	}
	if desc, ok := describeOpclassObject(x.s, c, classid, objid); ok {
		return desc, nil
	}
	if desc, ok := describeExtensionObject(x.s, c, classid, objid); ok {
		return desc, nil
	}
	return nil, pgerror.Newf(pgerror.FeatureNotSupported, "pg_describe_object of an object of class %d is not supported by fickle", classid)
}
