package sqlexec

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Temporary tables live, as in PostgreSQL, in a schema of their session's
// own, pg_temp_N, which the session searches before any other for
// relations and which "pg_temp" names. Other sessions see them in the
// catalog and cannot reach them by name. Their rows go through the store
// like any table's, so the history records them; only their session reads
// them. ON COMMIT DELETE ROWS empties a table when a transaction that used
// a temporary table commits, ON COMMIT DROP drops it when the transaction
// that created it ends, and the session's end drops them all.

// onCommit is a temporary table's ON COMMIT action.
type onCommit uint8

const (
	onCommitPreserveRows onCommit = iota
	onCommitDeleteRows
	onCommitDrop
)

func init() {
	addSysFunc("pg_my_temp_schema", sysFunc{result: types.OidType, eval: func(x *execCtx, _ []any) (any, error) {
		c, _ := x.s.catalog()
		if sc := c.schemas[x.s.tempSchemaIfAny()]; sc != nil {
			return int64(sc.oid), nil
		}
		return int64(0), nil
	}})
	addSysFunc("pg_is_other_temp_schema", sysFunc{args: []types.Type{types.OidType}, result: types.Bool,
		eval: func(x *execCtx, a []any) (any, error) {
			c, _ := x.s.catalog()
			name, ok := namespaceName(c, uint32(a[0].(int64)))
			return ok && isTempSchema(name) && name != x.s.tempSchemaIfAny(), nil
		}})
}

// isTempSchema reports whether a schema holds some session's temporary
// objects.
func isTempSchema(name string) bool { return strings.HasPrefix(name, "pg_temp_") }

// tempSchema returns the name of the session's temporary schema, choosing
// its number (the smallest one no open session of the database has, as
// PostgreSQL's backend IDs are) the first time.
func (s *Session) tempSchema() string {
	if s.tempID == 0 {
		e := s.engine
		e.sessions.Lock()
		used := map[int]bool{}
		for o := range e.sessions.open {
			used[o.tempID] = true
		}
		for n := 1; s.tempID == 0; n++ {
			if !used[n] {
				s.tempID = n
			}
		}
		e.sessions.Unlock()
	}
	return "pg_temp_" + strconv.Itoa(s.tempID)
}

// tempSchemaIfAny is the session's temporary schema, "" when it has none.
func (s *Session) tempSchemaIfAny() string {
	if s.tempID == 0 {
		return ""
	}
	return s.tempSchema()
}

// schemaAlias resolves "pg_temp", the name of the session's temporary
// schema, in a schema written in SQL.
func (s *Session) schemaAlias(schema string) string {
	if schema == "pg_temp" {
		return s.tempSchema()
	}
	return schema
}

// tempCreationSchema returns the schema a temporary relation is created in,
// creating the session's temporary schema in catalog c when it is missing.
// The role needs TEMPORARY on the database, as PostgreSQL checks it when it
// makes the session's temporary schema and on each use after.
func (d *ddl) tempCreationSchema(explicit string) (string, error) {
	if explicit != "" && explicit != "pg_temp" && explicit != d.s.tempSchema() {
		return "", pgerror.New(pgerror.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	name := d.s.tempSchema()
	if !d.s.hasPrivilege(d.s.currentRole(), aclDatabase, d.s.engine.oid, []byte{'T'}) {
		if !d.s.tempSeen {
			return "", pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to create temporary tables in database \"%s\"", d.s.database())
		}
		return "", pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", name)
	}
	sc := d.cat.schemas[name]
	// The number's last owner may have made the schema, or dropped its
	// objects when it closed, after this statement read the catalog (the
	// number is chosen when first needed): read it again. Objects still
	// there in the newest catalog are the leftovers of an owner whose
	// cleanup failed, which PostgreSQL's next owner would remove; fickle
	// reports them (42P07).
	stale := sc != nil && len(sc.tables)+len(sc.seqs)+len(sc.views)+len(sc.types)+len(sc.funcs) > 0 ||
		sc == nil && d.s.txn.cat == nil // a transaction's earlier DDL fixed its base
	if stale && !d.s.tempSeen {
		if _, v := d.s.engine.published(); v != d.baseVersion {
			return "", errCatalogChanged
		}
	}
	d.s.tempSeen = true
	if d.cat.schemas[name] == nil {
		d.cat.schemas[name] = newSchema(name, d.cat.newOID())
	}
	return name, nil
}

// relationPersistence reports whether the relation rv names is temporary:
// declared TEMP or created in the temporary schema. An UNLOGGED relation
// in the temporary schema is an error (42P16), as in PostgreSQL.
func (d *ddl) relationPersistence(rv *pg_query.RangeVar) (bool, error) {
	inTemp := rv.Schemaname == "pg_temp" || rv.Schemaname != "" && rv.Schemaname == d.s.tempSchemaIfAny()
	if inTemp && rv.Relpersistence == "u" {
		return false, pgerror.New(pgerror.InvalidTableDefinition, "only temporary relations may be created in temporary schemas")
	}
	return rv.Relpersistence == "t" || inTemp, nil
}

// relationSchema returns the schema a new relation goes to: the session's
// temporary schema for a temporary one, else the one named or the first of
// the search path.
func (d *ddl) relationSchema(explicit, name string, temp bool) (string, error) {
	if temp {
		return d.tempCreationSchema(explicit)
	}
	if explicit == "pg_catalog" {
		return "", pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to create \"%s.%s\"", explicit, name).
			WithDetail("System catalog modifications are currently disallowed.")
	}
	return d.creationSchema(explicit)
}

// onCommitAction reads a CREATE TABLE's ON COMMIT clause, which only
// temporary tables may have.
func onCommitAction(oc pg_query.OnCommitAction, temp bool) (onCommit, error) {
	switch oc {
	case pg_query.OnCommitAction_ONCOMMIT_DELETE_ROWS, pg_query.OnCommitAction_ONCOMMIT_DROP:
		if !temp {
			return 0, pgerror.New(pgerror.InvalidTableDefinition, "ON COMMIT can only be used on temporary tables")
		}
		if oc == pg_query.OnCommitAction_ONCOMMIT_DROP {
			return onCommitDrop, nil
		}
		return onCommitDeleteRows, nil
	case pg_query.OnCommitAction_ONCOMMIT_PRESERVE_ROWS:
		if !temp {
			return 0, pgerror.New(pgerror.InvalidTableDefinition, "ON COMMIT can only be used on temporary tables")
		}
	}
	return onCommitPreserveRows, nil
}

// tempTables returns the session's temporary tables in catalog c, by name.
func (s *Session) tempTables(c *catalog) []*tableDesc {
	if s.tempID == 0 {
		return nil
	}
	sc := c.schemas[s.tempSchema()]
	if sc == nil {
		return nil
	}
	out := make([]*tableDesc, 0, len(sc.tables))
	for _, t := range sc.tables {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// runOnCommitActions runs, in the committing transaction, the ON COMMIT
// actions of the session's temporary tables, as PostgreSQL's
// PreCommit_on_commit_actions does: the tables created ON COMMIT DELETE ROWS
// are emptied together (without their inheritance children, which keep
// their own setting) when the transaction used a temporary table (otherwise
// they are empty already), then those created ON COMMIT DROP are dropped,
// with their dependents. A table emptied so may be referenced by a foreign
// key only from another.
func (s *Session) runOnCommitActions() error {
	c, _ := s.catalog()
	var truncate, drop []string
	emptied := map[uint32]bool{}
	var emptiedTables []*tableDesc
	for _, t := range s.tempTables(c) {
		switch {
		case t.onCommit == onCommitDrop:
			drop = append(drop, qualifiedRelName(t.schema, t.name))
		case t.onCommit == onCommitDeleteRows && s.txn.usedTemp && t.part == nil:
			truncate = append(truncate, "ONLY "+qualifiedRelName(t.schema, t.name))
			emptied[t.oid] = true
			emptiedTables = append(emptiedTables, t)
		}
	}
	for _, t := range emptiedTables {
		for _, r := range c.referencing(t.oid) {
			if !emptied[r.child.oid] {
				return pgerror.New(pgerror.FeatureNotSupported, "unsupported ON COMMIT and foreign key combination").
					WithDetail("Table \"%s\" references \"%s\", but they do not have the same ON COMMIT setting.", r.child.name, t.name)
			}
		}
	}
	if len(truncate) > 0 {
		if err := s.runInternal("TRUNCATE " + strings.Join(truncate, ", ")); err != nil {
			return err
		}
	}
	if len(drop) > 0 {
		// Together and with what depends on them, as PostgreSQL's
		// performMultipleDeletions: a partition or inheritance child
		// goes with its parent whatever its own setting.
		return s.runInternal("DROP TABLE IF EXISTS " + strings.Join(drop, ", ") + " CASCADE")
	}
	return nil
}

// dropTempObjects drops the session's temporary operators, views, tables,
// sequences, routines and types (when it ends, and for DISCARD TEMP), in
// the open transaction or in one of its own.
func (s *Session) dropTempObjects() error {
	c, _ := s.catalog()
	sc := c.schemas[s.tempSchemaIfAny()]
	ops := tempOperatorNames(c, s.tempSchemaIfAny())
	if sc == nil || len(sc.tables) == 0 && len(sc.seqs) == 0 && len(sc.views) == 0 && len(sc.funcs) == 0 && len(sc.types) == 0 && len(ops) == 0 {
		return nil
	}
	routines := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(sc.funcs)) {
		for _, f := range sc.funcs[name] {
			args, _ := routineArguments(c, f.oid, false)
			routines[routineKindWord(f.kind)] = append(routines[routineKindWord(f.kind)], types.QuoteIdent(sc.name)+"."+types.QuoteIdent(name)+"("+args+")")
		}
	}
	var domains, others []string
	for _, name := range slices.Sorted(maps.Keys(sc.types)) {
		if sc.types[name].domain != nil {
			domains = append(domains, name)
		} else {
			others = append(others, name)
		}
	}
	var stmts []string
	for _, kind := range []struct {
		what      string
		names     []string
		qualified bool // names already qualified, with their arguments
	}{{what: "OPERATOR", names: ops, qualified: true}, {what: "VIEW", names: slices.Sorted(maps.Keys(sc.views))}, {what: "TABLE", names: slices.Sorted(maps.Keys(sc.tables))},
		{what: "SEQUENCE", names: slices.Sorted(maps.Keys(sc.seqs))}, {what: "FUNCTION", names: routines["FUNCTION"], qualified: true},
		{what: "PROCEDURE", names: routines["PROCEDURE"], qualified: true}, {what: "AGGREGATE", names: routines["AGGREGATE"], qualified: true},
		{what: "DOMAIN", names: domains}, {what: "TYPE", names: others}} {
		if len(kind.names) == 0 {
			continue
		}
		if !kind.qualified {
			for i, n := range kind.names {
				kind.names[i] = qualifiedRelName(sc.name, n)
			}
		}
		stmts = append(stmts, "DROP "+kind.what+" IF EXISTS "+strings.Join(kind.names, ", ")+" CASCADE")
	}
	if s.txn != nil {
		return s.runInternal(strings.Join(stmts, "; "))
	}
	if err := s.begin(TxnOptions{}, false); err != nil {
		return err
	}
	if err := s.runInternal(strings.Join(stmts, "; ")); err != nil {
		_ = s.rollback()
		return err
	}
	return s.commit()
}

// routineKindWord is the word DROP takes for a routine of pg_proc.prokind
// kind.
func routineKindWord(kind byte) string {
	switch kind {
	case 'p':
		return "PROCEDURE"
	case 'a':
		return "AGGREGATE"
	}
	return "FUNCTION"
}

// runInternal runs a statement fickle issues itself in the open
// transaction, as the bootstrap superuser: the session's cleanup of its
// temporary tables does not depend on the role it now runs as, as in
// PostgreSQL.
func (s *Session) runInternal(sql string) error {
	outer := s.definer
	created, _ := s.engine.cluster.roles.created()
	s.definer = s.bootstrapName(created)
	defer func() { s.definer = outer }()
	sts, err := s.Parse(sql)
	if err != nil {
		return err
	}
	for _, st := range sts {
		p, err := s.prepareUncached(st, nil)
		if err != nil {
			return err
		}
		if _, err := s.execute(context.Background(), p, nil, false); err != nil {
			return err
		}
	}
	return nil
}
