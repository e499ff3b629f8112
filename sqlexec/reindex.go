package sqlexec

import (
	"cmp"
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// This file runs REINDEX. fickle's indexes are never corrupt nor bloated
// and it keeps no files, so rebuilding one changes nothing; REINDEX checks
// what PostgreSQL 15 checks (the options, the relation and its kind, the
// owner, the transaction block), takes its locks, and under VERBOSE
// reports each index it rebuilt as PostgreSQL does.

// reindexTarget is a table whose indexes REINDEX rebuilds: all of them, or
// with index set, only that one.
type reindexTarget struct {
	table *tableDesc
	index *indexRef
}

// indexRef names one index of a table: a secondary index, the primary
// key's, or its TOAST table's (schema pg_toast; "" for the table's own).
type indexRef struct {
	oid          uint32
	schema, name string
	exclusion    bool
}

// schemaIn is the schema of index ix of table t.
func (ix indexRef) schemaIn(t *tableDesc) string {
	if ix.schema != "" {
		return ix.schema
	}
	return t.schema
}

// reindexRun is what a REINDEX statement does once its relation is found.
type reindexRun struct {
	concurrently, verbose bool
	// blockTag names the statement in the error a transaction block
	// raises ("" when it may run in one), blockContext its CONTEXT.
	blockTag, blockContext string
	targets                []reindexTarget
	// tableMessages reports each table, after its indexes, under VERBOSE.
	tableMessages bool
	// skipsSystem marks a CONCURRENTLY run over system catalogs, which it
	// skips with a warning.
	skipsSystem bool
	// err is a lookup's failure, raised after the transaction-block check
	// of CONCURRENTLY, as PostgreSQL raises it.
	err error
}

func (b *binder) reindexPlan(st *Statement, rs *pg_query.ReindexStmt) (*stmtPlan, error) {
	if (rs.Kind == pg_query.ReindexObjectType_REINDEX_OBJECT_DATABASE || rs.Kind == pg_query.ReindexObjectType_REINDEX_OBJECT_SYSTEM) && rs.Name == "" {
		return nil, b.missingDatabaseName(st)
	}
	r := &reindexRun{}
	tablespace := ""
	for _, p := range rs.Params {
		de := p.GetDefElem()
		switch de.Defname {
		case "concurrently", "verbose":
			on, err := defBoolean(de)
			if err != nil {
				return nil, err
			}
			if de.Defname == "verbose" {
				r.verbose = on
			} else {
				r.concurrently = on
			}
		case "tablespace":
			tablespace = defArgString(de)
		default:
			return nil, b.errAt(pgerror.Newf(pgerror.SyntaxError, "unrecognized REINDEX option \"%s\"", de.Defname), de.Location)
		}
	}
	if tablespace != "" {
		if err := setTablespace(tablespace); err != nil {
			return nil, err
		}
	}
	switch rs.Kind {
	case pg_query.ReindexObjectType_REINDEX_OBJECT_INDEX:
		r.err = b.reindexIndex(r, rs.Relation, tablespace != "")
	case pg_query.ReindexObjectType_REINDEX_OBJECT_TABLE:
		r.err = b.reindexTable(r, rs.Relation, tablespace != "")
	case pg_query.ReindexObjectType_REINDEX_OBJECT_SCHEMA:
		r.err = b.reindexSchema(r, rs.Name)
	default:
		r.err = b.reindexDatabase(r, rs.Kind == pg_query.ReindexObjectType_REINDEX_OBJECT_SYSTEM, rs.Name)
	}
	mode := isolation.TableLockAccessExclusive // ShareLock on the table, AccessExclusiveLock on each index
	if r.concurrently {
		mode = isolation.TableLockShareUpdateExclusive
	}
	for _, t := range r.targets {
		b.useTable(t.table, mode)
	}
	return &stmtPlan{noTxn: len(r.targets) == 0, exec: func(x *execCtx) (*Result, error) {
		inBlock := x.s.txn != nil && x.s.txn.explicit
		if r.concurrently && inBlock {
			return nil, pgerror.New(pgerror.ActiveSqlTransaction, "REINDEX CONCURRENTLY cannot run inside a transaction block")
		}
		if r.err != nil {
			return nil, r.err
		}
		if r.blockTag != "" && inBlock {
			var err error = pgerror.Newf(pgerror.ActiveSqlTransaction, "%s cannot run inside a transaction block", r.blockTag)
			if r.blockContext != "" {
				err = withContext(err, r.blockContext)
			}
			return nil, err
		}
		return &Result{Tag: "REINDEX", Notices: r.notices()}, nil
	}}, nil
}

// missingDatabaseName is PostgreSQL 15's syntax error for REINDEX DATABASE
// or SYSTEM without the database's name, which its grammar requires (the
// parser fickle uses, of a later PostgreSQL, takes it as the current
// database): at the token after DATABASE or SYSTEM.
func (b *binder) missingDatabaseName(st *Statement) error {
	res, err := pg_query.Scan(st.full)
	if err != nil {
		return pgerror.New(pgerror.SyntaxError, "syntax error at end of input")
	}
	start, end := int32(st.offset), int32(st.offset+len(st.sql))
	toks := res.Tokens
	for i, tk := range toks {
		if tk.Start < start || tk.Start >= end || tk.Token != pg_query.Token_DATABASE && tk.Token != pg_query.Token_SYSTEM_P {
			continue
		}
		if i+1 < len(toks) {
			next := toks[i+1]
			return b.errAt(pgerror.Newf(pgerror.SyntaxError, "syntax error at or near \"%s\"", st.full[next.Start:next.End]), next.Start)
		}
		break
	}
	return b.errAt(pgerror.New(pgerror.SyntaxError, "syntax error at end of input"), int32(len(st.full)))
}

// reindexIndex resolves REINDEX INDEX rv: an index of a table, or of a
// partitioned table (each of its partitions' indexes), or of a system
// catalog.
func (b *binder) reindexIndex(r *reindexRun, rv *pg_query.RangeVar, tablespace bool) error {
	oid, kind, found := relationLookup(b.cat, b.reindexPath(rv), rv.Relname)
	if !found {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	if kind != relIndex {
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not an index", rv.Relname)
	}
	t, ix := b.indexTable(uint32(oid))
	if t == nil {
		return b.reindexSystem(r, tablespace, rv.Relname)
	}
	if err := b.s.requireOwner(relationOwner(b.cat, aclTable, t.oid), "index", ix.name); err != nil {
		return err
	}
	if t.part == nil {
		if ix.exclusion && r.concurrently && !isTempSchema(t.schema) {
			return pgerror.New(pgerror.FeatureNotSupported, "concurrent index creation for exclusion constraints is not supported")
		}
		r.targets = append(r.targets, reindexTarget{table: t, index: &ix})
		return nil
	}
	r.blockTag, r.blockContext = "REINDEX INDEX", fmt.Sprintf("while reindexing partitioned index \"%s.%s\"", t.schema, ix.name)
	b.partitionIndexes(r, t, ix.oid)
	return nil
}

// partitionIndexes adds the leaf indexes under the partitioned index with
// the OID, of partitioned table t.
func (b *binder) partitionIndexes(r *reindexRun, t *tableDesc, oid uint32) {
	for _, ch := range b.cat.children(t.oid) {
		for _, ix := range ch.indexes {
			if ix.parent != oid {
				continue
			}
			if ch.part != nil {
				b.partitionIndexes(r, ch, ix.oid)
			} else {
				r.targets = append(r.targets, reindexTarget{table: ch, index: &indexRef{oid: ix.oid, name: ix.name, exclusion: ix.exclusion}})
			}
		}
		if ch.pk != nil && ch.pkParent == oid && !ch.hidden {
			if ch.part != nil {
				b.partitionIndexes(r, ch, primaryKeyIndexOID(ch))
			} else {
				r.targets = append(r.targets, reindexTarget{table: ch, index: &indexRef{oid: primaryKeyIndexOID(ch), name: ch.pkName}})
			}
		}
	}
}

// reindexTable resolves REINDEX TABLE rv: a table or materialized view, a
// partitioned table (each of its partitions), or a system catalog.
func (b *binder) reindexTable(r *reindexRun, rv *pg_query.RangeVar, tablespace bool) error {
	oid, kind, found := relationLookup(b.cat, b.reindexPath(rv), rv.Relname)
	if !found {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	t := b.cat.tables[uint32(oid)]
	if kind != relTable || t != nil && t.foreign != nil {
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a table or materialized view", rv.Relname)
	}
	if t == nil {
		return b.reindexSystem(r, tablespace, rv.Relname)
	}
	noun := "table"
	if t.matview != nil {
		noun = "materialized view"
	}
	if err := b.s.requireOwner(relationOwner(b.cat, aclTable, t.oid), noun, t.name); err != nil {
		return err
	}
	if t.part == nil {
		r.targets = append(r.targets, reindexTarget{table: t})
		return nil
	}
	r.blockTag, r.blockContext = "REINDEX TABLE", fmt.Sprintf("while reindexing partitioned table \"%s.%s\"", t.schema, t.name)
	r.tableMessages = true
	for _, ch := range b.cat.descendants(t) {
		if ch.part == nil {
			r.targets = append(r.targets, reindexTarget{table: ch})
		}
	}
	return nil
}

// reindexSystem handles a system catalog or one of its indexes: nothing to
// rebuild, but CONCURRENTLY and TABLESPACE are refused as in PostgreSQL,
// and VERBOSE would list indexes fickle does not have.
func (b *binder) reindexSystem(r *reindexRun, tablespace bool, name string) error {
	switch {
	case r.concurrently:
		return pgerror.New(pgerror.FeatureNotSupported, "cannot reindex system catalogs concurrently")
	case tablespace:
		return pgerror.Unsupported("REINDEX (TABLESPACE) of a system catalog")
	case r.verbose:
		return pgerror.Unsupported("REINDEX (VERBOSE) of system catalog " + name)
	}
	return nil
}

// reindexSchema resolves REINDEX SCHEMA name: its tables and materialized
// views (not its partitioned tables, whose partitions are tables of their
// own schemas).
func (b *binder) reindexSchema(r *reindexRun, name string) error {
	r.blockTag, r.tableMessages = "REINDEX SCHEMA", true
	name = b.s.schemaAlias(name)
	if isSystemSchema(name) {
		if err := b.s.requireOwner(oidBootstrapSuperuser, "schema", name); err != nil {
			return err
		}
		return b.reindexSystemTables(r, name)
	}
	sc := b.cat.schemas[name]
	if sc == nil || isTempSchema(name) && name != b.s.tempSchemaIfAny() {
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	if err := b.s.requireOwner(schemaOwner(sc), "schema", name); err != nil {
		return err
	}
	for _, t := range sc.tables {
		if t.part == nil {
			r.targets = append(r.targets, reindexTarget{table: t})
		}
	}
	return nil
}

// reindexSystemTables handles the system catalogs of REINDEX SCHEMA
// pg_catalog, DATABASE or SYSTEM: CONCURRENTLY skips them with
// PostgreSQL's warning; VERBOSE would list indexes fickle does not have.
func (b *binder) reindexSystemTables(r *reindexRun, schema string) error {
	switch {
	case r.concurrently:
		r.skipsSystem = true
	case r.verbose:
		return pgerror.Unsupported("REINDEX (VERBOSE) of the system catalogs of " + schema)
	}
	return nil
}

// isSystemSchema reports whether the schema holds system catalogs and
// views only.
func isSystemSchema(name string) bool {
	return name == "pg_catalog" || name == "pg_toast" || name == "information_schema"
}

// reindexDatabase resolves REINDEX DATABASE name (every table, system
// catalogs too unless CONCURRENTLY) or REINDEX SYSTEM name (the system
// catalogs only).
func (b *binder) reindexDatabase(r *reindexRun, system bool, name string) error {
	r.blockTag, r.tableMessages = "REINDEX DATABASE", true
	if system {
		r.blockTag = "REINDEX SYSTEM"
		if r.concurrently {
			return pgerror.New(pgerror.FeatureNotSupported, "cannot reindex system catalogs concurrently")
		}
	}
	if name != b.s.database() {
		return pgerror.New(pgerror.FeatureNotSupported, "can only reindex the currently open database")
	}
	if err := b.s.requireOwner(oidBootstrapSuperuser, "database", name); err != nil {
		return err
	}
	if err := b.reindexSystemTables(r, "database "+name); err != nil || system {
		return err
	}
	temp := b.s.tempSchemaIfAny()
	for _, t := range b.cat.tables {
		if t.part == nil && (!isTempSchema(t.schema) || t.schema == temp) {
			r.targets = append(r.targets, reindexTarget{table: t})
		}
	}
	return nil
}

// reindexPath is the search path that finds rv.
func (b *binder) reindexPath(rv *pg_query.RangeVar) []string {
	if rv.Schemaname != "" {
		return []string{b.s.schemaAlias(rv.Schemaname)}
	}
	return b.s.searchPath()
}

// indexTable returns the table of the user index with the OID and the
// index, nil for a system catalog's index.
func (b *binder) indexTable(oid uint32) (*tableDesc, indexRef) {
	t, ix := indexOfOID(b.cat, oid)
	switch {
	case t == nil:
		return nil, indexRef{}
	case ix == nil:
		return t, indexRef{oid: oid, name: t.pkName}
	}
	return t, indexRef{oid: oid, name: ix.name, exclusion: ix.exclusion}
}

// tableIndexes lists t's indexes in the order PostgreSQL created them (its
// RelationGetIndexList's OID order), then its TOAST table's index. A
// primary key declared with the table, whose OID fickle synthesizes, was
// its first index.
func tableIndexes(t *tableDesc) []indexRef {
	var out []indexRef
	for _, ix := range t.indexes {
		out = append(out, indexRef{oid: ix.oid, name: ix.name, exclusion: ix.exclusion})
	}
	slices.SortFunc(out, func(a, b indexRef) int { return cmp.Compare(a.oid, b.oid) })
	if t.pk != nil && !t.hidden && t.pkIndex == nil {
		out = slices.Insert(out, 0, indexRef{oid: primaryKeyIndexOID(t), name: t.pkName})
	}
	if hasToastTable(t) {
		_, oid := toastRelationOIDs(t)
		out = append(out, indexRef{oid: oid, schema: "pg_toast", name: fmt.Sprintf("pg_toast_%d_index", t.oid)})
	}
	return out
}

// notices are what the run reports: the warnings of what CONCURRENTLY
// skips, a table without indexes, and under VERBOSE each index and table
// rebuilt, with PostgreSQL's wording (fickle's rebuilds take no time).
// CONCURRENTLY rebuilds a temporary table's indexes the plain way.
func (r *reindexRun) notices() []*pgerror.Error {
	const usage = "CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s"
	var out []*pgerror.Error
	report := func(severity string, code pgerror.Code, detail, format string, args ...any) {
		e := pgerror.Newf(code, format, args...)
		e.Severity, e.Detail = severity, detail
		out = append(out, e)
	}
	if r.skipsSystem {
		report("WARNING", pgerror.FeatureNotSupported, "", "cannot reindex system catalogs concurrently, skipping all")
	}
	targets := slices.Clone(r.targets)
	if r.tableMessages {
		slices.SortStableFunc(targets, func(a, b reindexTarget) int { return cmp.Compare(a.table.oid, b.table.oid) })
	}
	for _, t := range targets {
		concurrently := r.concurrently && !isTempSchema(t.table.schema)
		var indexes []indexRef
		if t.index != nil {
			indexes = []indexRef{*t.index}
		} else {
			indexes = tableIndexes(t.table)
		}
		if len(indexes) == 0 {
			if !r.tableMessages {
				msg := "table \"%s\" has no indexes to reindex"
				if concurrently {
					msg = "table \"%s\" has no indexes that can be reindexed concurrently"
				}
				report("NOTICE", pgerror.SuccessfulCompletion, "", msg, t.table.name)
			}
			continue
		}
		var rebuilt []indexRef
		for _, ix := range indexes {
			if concurrently && ix.exclusion {
				report("WARNING", pgerror.FeatureNotSupported, "", "cannot reindex exclusion constraint index \"%s.%s\" concurrently, skipping", ix.schemaIn(t.table), ix.name)
				continue
			}
			rebuilt = append(rebuilt, ix)
		}
		if !r.verbose || len(rebuilt) == 0 {
			continue
		}
		for _, ix := range rebuilt {
			switch {
			case !concurrently:
				report("INFO", pgerror.SuccessfulCompletion, usage, "index \"%s\" was reindexed", ix.name)
			case t.index != nil:
				report("INFO", pgerror.SuccessfulCompletion, usage+".", "index \"%s.%s\" was reindexed", ix.schemaIn(t.table), ix.name)
			default:
				report("INFO", pgerror.SuccessfulCompletion, "", "index \"%s.%s\" was reindexed", ix.schemaIn(t.table), ix.name)
			}
		}
		switch {
		case t.index != nil:
		case concurrently:
			report("INFO", pgerror.SuccessfulCompletion, usage+".", "table \"%s.%s\" was reindexed", t.table.schema, t.table.name)
		case r.tableMessages:
			report("INFO", pgerror.SuccessfulCompletion, "", "table \"%s.%s\" was reindexed", t.table.schema, t.table.name)
		}
	}
	return out
}
