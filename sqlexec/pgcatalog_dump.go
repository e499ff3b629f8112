package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The catalogs pg_dump reads to list a database's objects beside those
// psql reads. Those of object kinds fickle has only PostgreSQL's built-in
// objects of (casts, operator families, text search objects, conversions,
// tablespaces) show initdb's rows from pgdata; those of kinds fickle has
// none of at all (default privileges,
// transforms, subscriptions, security labels, large
// objects, per-database and per-role settings, privileges on settings) are
// empty, as they are in a fresh PostgreSQL database.

// initPrivsRows are pg_init_privs' rows: the privileges initdb gave the
// built-in objects, the bootstrap superuser named as this cluster names it.
func initPrivsRows(s *Session, builtin [][]any) [][]any {
	superuser, _ := catalogNames{s: s}.roleName(oidBootstrapSuperuser)
	superuser = unquoteIdent(superuser)
	out := make([][]any, len(builtin))
	for i, r := range builtin {
		row := append([]any(nil), r...)
		if acl, ok := row[4].([]any); ok {
			items := make([]any, len(acl))
			for j, it := range acl {
				items[j] = renameBootstrapSuperuser(it.(string), superuser)
			}
			row[4] = items
		}
		out[i] = row
	}
	return out
}

// renameBootstrapSuperuser rewrites an aclitem's grantee and grantor
// "postgres", the bootstrap superuser of the cluster pgdata was read from,
// to superuser.
func renameBootstrapSuperuser(item, superuser string) string {
	grantee, rest, _ := strings.Cut(item, "=")
	privs, grantor, _ := strings.Cut(rest, "/")
	if grantee == "postgres" {
		grantee = superuser
	}
	if grantor == "postgres" {
		grantor = superuser
	}
	return grantee + "=" + privs + "/" + grantor
}

// partitionedTableRows are pg_partitioned_table's rows: one per
// partitioned table, with its key's columns (0 for an expression) and
// operator classes.
func partitionedTableRows(c *catalog) [][]any {
	var out [][]any
	for _, t := range sortedTables(c) {
		k := t.part
		if k == nil {
			continue
		}
		method := "btree"
		if k.strategy == 'h' {
			method = "hash"
		}
		attrs, classes, colls := make([]any, len(k.cols)), make([]any, len(k.cols)), make([]any, len(k.cols))
		var exprs []string
		for i, name := range k.cols {
			attrs[i] = int64(0)
			colls[i] = typeCollation(k.typs[i].Oid)
			if name != "" {
				col := t.cols[t.colIndex(name)]
				attrs[i], colls[i] = int64(col.attnum), col.collationOID()
			} else {
				exprs = append(exprs, deparseExpr(k.exprs[i]))
			}
			classes[i] = int64(defaultOpclass(method, k.typs[i]))
			if k.asOid != nil && k.asOid[i] {
				classes[i] = int64(defaultOpclass(method, types.OidType))
			}
			if k.opclasses != nil && k.opclasses[i] != 0 {
				classes[i] = int64(k.opclasses[i])
			}
		}
		var exprText any
		if exprs != nil {
			exprText = strings.Join(exprs, ", ")
		}
		out = append(out, []any{int64(t.oid), string(k.strategy), int64(len(k.cols)), defaultPartition(c, t),
			attrs, classes, colls, exprText})
	}
	return out
}

func init() {
	name, oid, text, b, i4, ch := types.Name, types.OidType, types.Text, types.Bool, types.Int4, types.Char
	textArray, _ := types.ArrayOf(types.Text)
	builtin := func(table string, cols ...vcol) {
		rows := builtinRows(table, cols)
		registerVirtual(&virtualTable{schema: "pg_catalog", name: table, cols: cols,
			rows: func(s *Session, c *catalog) [][]any { return rows() }})
	}
	builtin(pgdata.PgCast, vcol{"oid", oid}, vcol{"castsource", oid}, vcol{"casttarget", oid}, vcol{"castfunc", oid},
		vcol{"castcontext", ch}, vcol{"castmethod", ch})
	opfamilyCols := []vcol{{"oid", oid}, {"opfmethod", oid}, {"opfname", name}, {"opfnamespace", oid}, {"opfowner", oid}}
	builtinOpfamilies := builtinRows(pgdata.PgOpfamily, opfamilyCols)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: pgdata.PgOpfamily, cols: opfamilyCols,
		rows: func(s *Session, c *catalog) [][]any {
			return slices.Concat(builtinOpfamilies(), extensionOpfamilyRows(c), userOpfamilyRows(c))
		}})
	withUsers := func(table string, users func(*catalog) [][]any, cols ...vcol) {
		rows := builtinRows(table, cols)
		registerVirtual(&virtualTable{schema: "pg_catalog", name: table, cols: cols,
			rows: func(s *Session, c *catalog) [][]any { return append(rows(), users(c)...) }})
	}
	withUsers(pgdata.PgAmop, userAmopRows, vcol{"oid", oid}, vcol{"amopfamily", oid}, vcol{"amoplefttype", oid}, vcol{"amoprighttype", oid},
		vcol{"amopstrategy", types.Int2}, vcol{"amoppurpose", ch}, vcol{"amopopr", oid}, vcol{"amopmethod", oid},
		vcol{"amopsortfamily", oid})
	withUsers(pgdata.PgAmproc, userAmprocRows, vcol{"oid", oid}, vcol{"amprocfamily", oid}, vcol{"amproclefttype", oid},
		vcol{"amprocrighttype", oid}, vcol{"amprocnum", types.Int2}, vcol{"amproc", types.Regproc})
	builtin(pgdata.PgTsParser, vcol{"oid", oid}, vcol{"prsname", name}, vcol{"prsnamespace", oid}, vcol{"prsstart", types.Regproc},
		vcol{"prstoken", types.Regproc}, vcol{"prsend", types.Regproc}, vcol{"prsheadline", types.Regproc},
		vcol{"prslextype", types.Regproc})
	withExtensions := func(table string, extension func(*catalog) [][]any, cols ...vcol) {
		rows := builtinRows(table, cols)
		registerVirtual(&virtualTable{schema: "pg_catalog", name: table, cols: cols,
			rows: func(s *Session, c *catalog) [][]any { return append(rows(), extension(c)...) }})
	}
	withExtensions(pgdata.PgTsTemplate, extensionTemplateRows, vcol{"oid", oid}, vcol{"tmplname", name}, vcol{"tmplnamespace", oid},
		vcol{"tmplinit", types.Regproc}, vcol{"tmpllexize", types.Regproc})
	withExtensions(pgdata.PgTsDict, userTSDictRows, vcol{"oid", oid}, vcol{"dictname", name}, vcol{"dictnamespace", oid},
		vcol{"dictowner", oid}, vcol{"dicttemplate", oid}, vcol{"dictinitoption", text})
	withExtensions(pgdata.PgTsConfig, userTSConfigRows, vcol{"oid", oid}, vcol{"cfgname", name}, vcol{"cfgnamespace", oid}, vcol{"cfgowner", oid},
		vcol{"cfgparser", oid})
	withExtensions(pgdata.PgTsConfigMap, userTSConfigMapRows, vcol{"mapcfg", oid}, vcol{"maptokentype", i4}, vcol{"mapseqno", i4}, vcol{"mapdict", oid})
	withExtensions(pgdata.PgConversion, userConversionRows, vcol{"oid", oid}, vcol{"conname", name}, vcol{"connamespace", oid}, vcol{"conowner", oid},
		vcol{"conforencoding", i4}, vcol{"contoencoding", i4}, vcol{"conproc", types.Regproc}, vcol{"condefault", b})
	builtin(pgdata.PgTablespace, vcol{"oid", oid}, vcol{"spcname", name}, vcol{"spcowner", oid}, vcol{"spcacl", textArray},
		vcol{"spcoptions", textArray})
	initPrivs := builtinRows(pgdata.PgInitPrivs, []vcol{{"objoid", oid}, {"classoid", oid}, {"objsubid", i4},
		{"privtype", ch}, {"initprivs", textArray}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: pgdata.PgInitPrivs,
		cols: []vcol{{"objoid", oid}, {"classoid", oid}, {"objsubid", i4}, {"privtype", ch}, {"initprivs", textArray}},
		rows: func(s *Session, c *catalog) [][]any { return initPrivsRows(s, initPrivs()) }})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_partitioned_table",
		cols: []vcol{{"partrelid", oid}, {"partstrat", ch}, {"partnatts", types.Int2}, {"partdefid", oid},
			{"partattrs", types.Int2Vector}, {"partclass", types.OidVector}, {"partcollation", types.OidVector},
			{"partexprs", text}},
		rows: func(s *Session, c *catalog) [][]any { return partitionedTableRows(c) }})
	addSysFunc("pg_get_partkeydef", sysFunc{args: []types.Type{oid}, result: text, eval: func(x *execCtx, a []any) (any, error) {
		c, _ := x.s.catalog()
		if t := c.tables[uint32(a[0].(int64))]; t != nil && t.part != nil {
			return partitionKeyDefinition(x.s, c, t), nil
		}
		return nil, nil
	}})
	// fickle has only initdb's tablespaces, which live in the data
	// directory: PostgreSQL gives their location as ''.
	addSysFunc("pg_tablespace_location", sysFunc{args: []types.Type{oid}, result: text, eval: func(x *execCtx, a []any) (any, error) {
		if ts := a[0].(int64); ts == 0 || ts == oidDefaultTablespace || ts == oidGlobalTablespace {
			return "", nil
		}
		return nil, pgerror.Newf(pgerror.UndefinedFile, "could not read symbolic link \"pg_tblspc/%d\": No such file or directory", a[0].(int64))
	}})
	empty := func(table string, cols ...vcol) {
		registerVirtual(&virtualTable{schema: "pg_catalog", name: table, cols: cols,
			rows: func(s *Session, c *catalog) [][]any { return nil }})
	}
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_default_acl", cols: []vcol{{"oid", oid}, {"defaclrole", oid},
		{"defaclnamespace", oid}, {"defaclobjtype", ch}, {"defaclacl", textArray}}, rows: defaultACLRows})
	empty("pg_transform", vcol{"oid", oid}, vcol{"trftype", oid}, vcol{"trflang", oid}, vcol{"trffromsql", types.Regproc},
		vcol{"trftosql", types.Regproc})
	empty("pg_subscription", vcol{"oid", oid}, vcol{"subdbid", oid}, vcol{"subskiplsn", types.Text}, vcol{"subname", name},
		vcol{"subowner", oid}, vcol{"subenabled", b}, vcol{"subbinary", b}, vcol{"substream", b}, vcol{"subtwophasestate", ch},
		vcol{"subdisableonerr", b}, vcol{"subconninfo", text}, vcol{"subslotname", name}, vcol{"subsynccommit", text},
		vcol{"subpublications", textArray})
	empty("pg_seclabel", vcol{"objoid", oid}, vcol{"classoid", oid}, vcol{"objsubid", i4}, vcol{"provider", text},
		vcol{"label", text})
	empty("pg_parameter_acl", vcol{"oid", oid}, vcol{"parname", text}, vcol{"paracl", textArray})
	empty("pg_db_role_setting", vcol{"setdatabase", oid}, vcol{"setrole", oid}, vcol{"setconfig", textArray})
	empty("pg_shseclabel", vcol{"objoid", oid}, vcol{"classoid", oid}, vcol{"provider", text}, vcol{"label", text})
	empty("pg_seclabels", vcol{"objoid", oid}, vcol{"classoid", oid}, vcol{"objsubid", i4}, vcol{"objtype", text},
		vcol{"objnamespace", oid}, vcol{"objname", text}, vcol{"provider", text}, vcol{"label", text})
	// With max_prepared_transactions = 0 nothing is ever prepared.
	empty("pg_prepared_xacts", vcol{"transaction", types.Type{Oid: types.OidXID, Typmod: -1}}, vcol{"gid", text},
		vcol{"prepared", types.Timestamptz}, vcol{"owner", name}, vcol{"database", name})
}

// defaultPartition is pg_partitioned_table.partdefid: the OID of t's
// DEFAULT partition, 0 when it has none.
func defaultPartition(c *catalog, t *tableDesc) int64 {
	for _, p := range c.children(t.oid) {
		if p.bound != nil && p.bound.isDefault {
			return int64(p.oid)
		}
	}
	return 0
}

// bindOptionsToTable binds pg_options_to_table(text[]): the options of a
// reloptions-like array as (option_name, option_value) rows.
func bindOptionsToTable(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	if len(args) != 1 {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function pg_options_to_table with %d arguments does not exist", len(args)), loc)
	}
	textArray, _ := types.ArrayOf(types.Text)
	var err error
	if args[0], err = b.coerce(args[0], textArray, types.CastImplicit); err != nil {
		return nil, err
	}
	return []types.Field{{Name: "option_name", Type: types.Text}, {Name: "option_value", Type: types.Text}}, nil
}

// optionsToTableRows splits each name=value option at its first '=' (an
// option without one has a NULL value), as PostgreSQL's
// pg_options_to_table does.
func optionsToTableRows(x *execCtx, args []any) ([][]any, error) {
	var out [][]any
	elems, _ := pgarray.Elems(args[0])
	for _, o := range elems {
		if o == nil {
			continue
		}
		name, value, ok := strings.Cut(o.(string), "=")
		if !ok {
			out = append(out, []any{name, nil})
			continue
		}
		out = append(out, []any{name, value})
	}
	return out, nil
}

// The tablespaces initdb makes, pg_default and pg_global.
const (
	oidDefaultTablespace = 1663
	oidGlobalTablespace  = 1664
)

// The catalogs whose objects pg_depend rows name beside pg_class.
const (
	oidPgAttrdef = 2604
	oidPgRewrite = 2618
	oidPgPolicy  = 3256
)

// dependencyRows are the pg_depend rows of column defaults and views:
// a default depends on its column ('a') and on each sequence a nextval
// in it names ('n'); a view's _RETURN rule on its view ('i' and 'n') and
// on each relation the view reads ('n'). PostgreSQL also records a
// default's dependencies on the user types and functions it names, and a
// rule's on each column it reads; fickle does not track those. A policy
// depends on its table ('a') and on each relation its expressions read
// ('n'; where they name columns of it, PostgreSQL has a row for each
// column instead, and one for each column of its own table they name).
func dependencyRows(s *Session, c *catalog) [][]any {
	var out [][]any
	for _, t := range sortedTables(c) {
		for _, p := range t.policies {
			out = append(out, []any{int64(oidPgPolicy), int64(p.oid), int64(0), int64(oidPgClass), int64(t.oid), int64(0), "a"})
			for _, dep := range p.deps {
				out = append(out, []any{int64(oidPgPolicy), int64(p.oid), int64(0), int64(oidPgClass), int64(dep), int64(0), "n"})
			}
		}
		for _, col := range t.cols {
			if _, ok := storedDefault(col); !ok {
				continue
			}
			def := int64(t.oid)<<16 | int64(col.attnum) // pg_attrdef's OID for it
			out = append(out, []any{int64(oidPgAttrdef), def, int64(0), int64(oidPgClass), int64(t.oid), int64(col.attnum), "a"})
			for _, seq := range defaultSequenceOIDs(s, c, col) {
				out = append(out, []any{int64(oidPgAttrdef), def, int64(0), int64(oidPgClass), seq, int64(0), "n"})
			}
		}
	}
	for _, v := range append(sortedViews(c), matviewsAsViews(c)...) {
		rule := int64(synthesizedOID(v.oid, 62)) // pg_rewrite's OID for its _RETURN rule
		// The rule depends on its view twice, as in PostgreSQL: internally,
		// and as a relation its query's range table holds (OLD and NEW).
		out = append(out, []any{int64(oidPgRewrite), rule, int64(0), int64(oidPgClass), int64(v.oid), int64(0), "i"},
			[]any{int64(oidPgRewrite), rule, int64(0), int64(oidPgClass), int64(v.oid), int64(0), "n"})
		for _, dep := range v.deps {
			out = append(out, []any{int64(oidPgRewrite), rule, int64(0), int64(oidPgClass), int64(dep), int64(0), "n"})
		}
	}
	return out
}

// defaultSequenceOIDs are the sequences the nextval calls of col's
// default name with a constant, read as stored defaults name them.
func defaultSequenceOIDs(s *Session, c *catalog, col *columnDesc) []int64 {
	var out []int64
	names := catalogNames{s: s, cat: c, path: storedExprPath}
	walk(col.def, func(n *pg_query.Node) bool {
		if name := nextvalText(n.GetFuncCall()); name != nil {
			if oid, err := names.RelationOid(name.Sval); err == nil && !slices.Contains(out, oid) {
				out = append(out, oid)
			}
		}
		return true
	})
	return out
}

// partitionKeyDefinition is pg_get_partkeydef's text of t's PARTITION BY:
// the strategy and the key, an expression as ruleutils prints it, in
// parentheses unless it is a function call, and oid_ops where the key
// orders as oid (the only operator class fickle keeps other than the
// type's default).
func partitionKeyDefinition(s *Session, c *catalog, t *tableDesc) string {
	k := t.part
	strategy := map[byte]string{'l': "LIST", 'r': "RANGE", 'h': "HASH"}[k.strategy]
	keys := make([]string, len(k.cols))
	for i, name := range k.cols {
		switch {
		case name != "":
			keys[i] = types.QuoteIdent(name)
		case k.exprs[i].GetFuncCall() != nil:
			keys[i] = decompile(s, c, deparseExpr(k.exprs[i]), t.oid, false)
		default:
			keys[i] = "(" + decompile(s, c, deparseExpr(k.exprs[i]), t.oid, false) + ")"
		}
		if k.asOid != nil && k.asOid[i] {
			keys[i] += " oid_ops"
		}
		if name := partKeyOpclassName(s, c, k, i); name != "" {
			keys[i] += " " + name
		}
	}
	return strategy + " (" + strings.Join(keys, ", ") + ")"
}
