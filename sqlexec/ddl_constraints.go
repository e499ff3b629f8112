package sqlexec

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// This file adds constraints and indexes to a table being created or
// altered: PRIMARY KEY, UNIQUE, CHECK and FOREIGN KEY, validating existing
// rows when the table is altered.

// addConstraint adds a UNIQUE, CHECK or FOREIGN KEY constraint (or, with
// alter, a PRIMARY KEY) to t, which the caller publishes. With alter the
// existing rows are checked.
func (d *ddl) addConstraint(b *binder, t *tableDesc, tc tableConstraint, alter bool) error {
	c := tc.c
	if t.part != nil && c.Contype == pg_query.ConstrType_CONSTR_FOREIGN && c.SkipValidation {
		return pgerror.Newf(pgerror.WrongObjectType, "cannot add NOT VALID foreign key on partitioned table \"%s\" referencing relation \"%s\"", t.name, c.Pktable.Relname)
	}
	if c.Indexname != "" {
		return d.addConstraintUsingIndex(t, c)
	}
	if c.Deferrable && c.Contype == pg_query.ConstrType_CONSTR_PRIMARY {
		return pgerror.Unsupported("DEFERRABLE primary keys")
	}
	if alter && (c.Contype == pg_query.ConstrType_CONSTR_PRIMARY || c.Contype == pg_query.ConstrType_CONSTR_UNIQUE || c.Contype == pg_query.ConstrType_CONSTR_EXCLUSION) {
		// CREATE TABLE checked its constraints' index tablespaces.
		if err := d.checkTablespace(c.Indexspace, isTempSchema(t.schema), t.part != nil); err != nil {
			return err
		}
	}
	switch c.Contype {
	case pg_query.ConstrType_CONSTR_UNIQUE:
		cols, err := constraintCols(t, tc)
		if err != nil {
			return err
		}
		include, err := constraintInclude(t, c)
		if err != nil {
			return err
		}
		name := c.Conname
		if name == "" {
			name = d.uniqueRelName(t.schema, t.name, indexNameAddition(colNameList(t, append(slices.Clip(cols), include...))), "key")
		} else if err := d.indexConstraintName(t, name); err != nil {
			return err
		}
		if t.part != nil {
			if err := checkPartitionedKey(t, cols, "UNIQUE"); err != nil {
				return err
			}
		}
		options, err := indexStorageOptions(c.Options, "btree")
		if err != nil {
			return err
		}
		ix := &indexDesc{name: name, table: t.oid, cols: cols, include: include, unique: true, constraint: true,
			deferrable: c.Deferrable, initiallyDeferred: c.Initdeferred, nullsNotDistinct: c.NullsNotDistinct, options: options}
		if err := d.requireSchemaCreate(t.schema); err != nil {
			return err
		}
		if err := d.registerIndex(t, ix); err != nil || t.part == nil {
			return err
		}
		keys := partitionKeys(t)
		return d.keyToPartitions(b, t, keys[len(keys)-1])
	case pg_query.ConstrType_CONSTR_PRIMARY:
		if t.pk != nil {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", t.name)
		}
		cols, err := constraintCols(t, tc)
		if err != nil {
			return err
		}
		include, err := constraintInclude(t, c)
		if err != nil {
			return err
		}
		if t.part != nil {
			if err := checkPartitionedKey(t, cols, "PRIMARY KEY"); err != nil {
				return err
			}
		}
		name := c.Conname
		if name == "" {
			name = d.uniqueRelName(t.schema, t.name, "", "pkey")
		} else if err := d.indexConstraintName(t, name); err != nil {
			return err
		}
		options, err := indexStorageOptions(c.Options, "btree")
		if err != nil {
			return err
		}
		ix := &indexDesc{name: name, table: t.oid, cols: cols, include: include, unique: true, constraint: true, options: options}
		if err := d.requireSchemaCreate(t.schema); err != nil {
			return err
		}
		// PostgreSQL builds the index (duplicates fail) before it checks
		// the NOT NULL its columns take, when it scans the table last.
		if err := d.registerIndex(t, ix); err != nil {
			return err
		}
		for _, col := range cols {
			if d.deferNoNulls(t, col) {
				continue
			}
			if err := d.checkNoNulls(t, col); err != nil {
				return err
			}
		}
		t.pk, t.pkName, t.pkIndex = cols, name, ix
		for _, col := range cols {
			nc := *t.cols[col]
			nc.notNull = true
			t.cols[col] = &nc
		}
		if t.part != nil {
			return d.keyToPartitions(b, t, partitionKeys(t)[0])
		}
		return nil
	case pg_query.ConstrType_CONSTR_CHECK:
		if c.IsNoInherit && t.part != nil {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot add NO INHERIT constraint to partitioned table \"%s\"", t.name)
		}
		if containsSubLink(c.RawExpr) {
			return pgerror.New(pgerror.FeatureNotSupported, "cannot use subquery in check constraint")
		}
		expr := b.s.qualifiedCalls(b.cat, c.RawExpr)
		name := c.Conname
		if name == "" {
			col := tc.column
			if col == "" {
				col = soleColumnRef(t, expr)
			}
			name = uniqueConName(t, t.name, col, "check")
		}
		if err := checkSystemColumnRef(b, t, expr); err != nil {
			return err
		}
		sc := tableScope(t, t.name)
		e, err := b.cond(sc, expr, "CHECK")
		if err != nil {
			return err
		}
		if j := slices.IndexFunc(t.checks, func(k *checkDesc) bool { return k.name == name }); j >= 0 {
			ck := t.checks[j]
			if !ck.notLocal || ck.text != deparseExpr(expr) || c.IsNoInherit {
				return duplicateConstraint(t, name)
			}
			d.notice(pgerror.SuccessfulCompletion, "merging constraint \"%s\" with inherited definition", name)
			nk := *ck
			nk.notLocal = false
			t.checks[j] = &nk
			return nil
		}
		if conNameUsed(t, name) {
			return duplicateConstraint(t, name)
		}
		if alter && !c.SkipValidation && !d.deferCheck(t, name, e) {
			if err := d.validateCheck(t, name, e); err != nil {
				return err
			}
		}
		t.checks = append(t.checks, &checkDesc{name: name, expr: expr, text: deparseExpr(expr), noInherit: c.IsNoInherit,
			notValid: alter && c.SkipValidation})
		return nil
	case pg_query.ConstrType_CONSTR_FOREIGN:
		return d.addForeignKey(b, t, tc, alter)
	case pg_query.ConstrType_CONSTR_EXCLUSION:
		return d.addExclusion(t, c)
	}
	return pgerror.Unsupported("constraint " + c.Contype.String())
}

// indexConstraintName checks the name given to a new PRIMARY KEY or UNIQUE
// constraint: its index takes the name among the schema's relations, the
// constraint among the table's constraints.
func (d *ddl) indexConstraintName(t *tableDesc, name string) error {
	if d.relationExists(t.schema, name) {
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", name)
	}
	if conNameUsed(t, name) {
		return duplicateConstraint(t, name)
	}
	return nil
}

// conNameUsed says whether a constraint of t has this name.
func conNameUsed(t *tableDesc, name string) bool {
	if t.pk != nil && !t.hidden && t.pkName == name {
		return true
	}
	for _, c := range t.checks {
		if c.name == name {
			return true
		}
	}
	for _, f := range t.fks {
		if f.name == name {
			return true
		}
	}
	for _, ix := range t.indexes {
		if ix.constraint && ix.name == name {
			return true
		}
	}
	return false
}

func duplicateConstraint(t *tableDesc, name string) error {
	return pgerror.Newf(pgerror.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", name, t.name)
}

func colNameList(t *tableDesc, cols []int) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = t.cols[c].name
	}
	return out
}

// soleColumnRef is the column of t a CHECK expression reads when it reads
// exactly one, which PostgreSQL names the constraint after; "" otherwise.
// A whole-row reference to t counts as a column without a name.
func soleColumnRef(t *tableDesc, n *pg_query.Node) string {
	names := map[string]bool{}
	walk(n, func(c *pg_query.Node) bool {
		if cr := c.GetColumnRef(); cr != nil {
			if s := cr.Fields[len(cr.Fields)-1].GetString_(); s != nil {
				if len(cr.Fields) == 1 && s.Sval == t.name && t.colIndex(s.Sval) < 0 {
					names[""] = true
				} else {
					names[s.Sval] = true
				}
			}
		}
		return true
	})
	for name := range names {
		if len(names) == 1 {
			return name
		}
	}
	return ""
}

// registerIndex gives ix an OID, creates it in the store (checking the
// existing rows of a unique one) and adds it to t.
func (d *ddl) registerIndex(t *tableDesc, ix *indexDesc) error {
	rows, err := d.binder("").compileIndexRows(t, ix)
	if err != nil {
		return err
	}
	if err := d.buildIndexRows(t, rows); err != nil {
		return err
	}
	ix.rows = rows
	if ix.excl != nil {
		if err := d.resolveExclusionOperators(t, ix); err != nil {
			return err
		}
		if err := d.checkExclusionRows(t, ix); err != nil {
			return err
		}
	}
	ix.oid = d.cat.newOID()
	id, err := d.store().CreateIndex(t.id, indexSpec(t, ix))
	if err != nil {
		if pgerror.GetCode(err) == pgerror.UniqueViolation {
			return pgerror.Wrapf(err, pgerror.UniqueViolation, "could not create unique index \"%s\"", ix.name).
				WithDetail("Key (%s) is duplicated.", ix.keyNamesText(d.s, d.cat, t))
		}
		return err
	}
	ix.id = id
	d.undo = append(d.undo, func() { _, _ = d.store().DropIndex(id) })
	t.indexes = append(t.indexes, ix)
	d.cat.schemas[t.schema].indexes[ix.name] = ix
	return nil
}

// scanRows calls fn for every row of t in the latest committed state (plus
// the transaction's own writes).
func (d *ddl) scanRows(t *tableDesc, fn func(row []any) error) error {
	if d.x.txn == nil {
		return nil
	}
	return d.x.txn.Scan(d.x.ctx, t.id, isolation.Span{}, isolation.ReadOptions{Latest: true}, func(_ []byte, row []any) (bool, error) {
		return false, fn(row)
	})
}

// checkNoNulls fails with 23502 when a row of t has NULL in column col. A
// column already NOT NULL has none (every write since its constraint was
// checked), so, as in PostgreSQL, it is not scanned: a primary key over
// NOT NULL columns reads no row to validate them.
func (d *ddl) checkNoNulls(t *tableDesc, col int) error {
	if t.cols[col].notNull {
		return nil
	}
	return d.scanRows(t, func(row []any) error {
		if col < len(row) && row[col] == nil {
			return nullValuesError(t, t.cols[col])
		}
		return nil
	})
}

// nullValuesError is the 23502 of a table rewrite or validation that finds
// NULL in NOT NULL column col of t.
func nullValuesError(t *tableDesc, col *columnDesc) error {
	return pgerror.Newf(pgerror.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", col.name, t.name)
}

func (d *ddl) addForeignKey(b *binder, t *tableDesc, tc tableConstraint, alter bool) error {
	c := tc.c
	if c.Conname != "" && conNameUsed(t, c.Conname) {
		return duplicateConstraint(t, c.Conname)
	}
	fkNames := strs(c.FkAttrs)
	if tc.column != "" {
		fkNames = []string{tc.column}
	}
	var cols []int
	for _, n := range fkNames {
		i := t.colIndex(n)
		if i < 0 {
			return foreignKeyColumnMissing(n)
		}
		cols = append(cols, i)
	}
	var parent *tableDesc
	if (c.Pktable.Schemaname == "" || c.Pktable.Schemaname == t.schema) && c.Pktable.Relname == t.name {
		parent = t
	} else if parent = d.s.lookupTable(d.cat, c.Pktable.Schemaname, c.Pktable.Relname); parent == nil {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(c.Pktable))
	} else if parent.matview != nil || parent.foreign != nil {
		return pgerror.Newf(pgerror.WrongObjectType, "referenced relation \"%s\" is not a table", parent.name)
	} else if err := d.lockTable(parent, isolation.TableLockShareRowExclusive); err != nil {
		return err
	}
	switch temp := isTempSchema(t.schema); {
	case temp && !isTempSchema(parent.schema):
		return pgerror.New(pgerror.InvalidTableDefinition, "constraints on temporary tables may reference only temporary tables")
	case !temp && isTempSchema(parent.schema):
		return pgerror.New(pgerror.InvalidTableDefinition, "constraints on permanent tables may reference only permanent tables")
	}
	var refCols []int
	if len(c.PkAttrs) == 0 {
		if parent.pk == nil {
			return pgerror.Newf(pgerror.InvalidForeignKey, "there is no primary key for referenced table \"%s\"", parent.name)
		}
		refCols = append(refCols, parent.pk...)
	} else {
		for _, n := range strs(c.PkAttrs) {
			i := parent.colIndex(n)
			if i < 0 {
				return foreignKeyColumnMissing(n)
			}
			if slices.Contains(refCols, i) {
				return pgerror.New(pgerror.InvalidForeignKey, "foreign key referenced-columns list must not contain duplicates")
			}
			refCols = append(refCols, i)
		}
	}
	if len(refCols) != len(cols) {
		return pgerror.New(pgerror.InvalidForeignKey, "number of referencing and referenced columns for foreign key disagree")
	}
	unique := !parent.hidden && sameSet(parent.pk, refCols) && intsEqual(parent.pk, refCols)
	// reordered: a unique key has the referenced columns in another order,
	// which PostgreSQL takes and fickle's key lookups cannot.
	reordered := !parent.hidden && sameSet(parent.pk, refCols)
	for _, ix := range parent.indexes {
		if ix.unique && ix.onColumnsOnly() && intsEqual(ix.cols, refCols) {
			unique = true
		}
		reordered = reordered || ix.unique && ix.onColumnsOnly() && sameSet(ix.cols, refCols)
	}
	if !unique && reordered {
		return pgerror.Unsupported("a foreign key naming the referenced unique key's columns in another order")
	}
	if !unique {
		return pgerror.Newf(pgerror.InvalidForeignKey, "there is no unique constraint matching given keys for referenced table \"%s\"", parent.name)
	}
	// REFERENCES on each referenced column, or on the table, as
	// PostgreSQL's checkFkeyPermissions.
	if parent != t {
		role := d.s.currentRole()
		for _, i := range refCols {
			if !d.s.hasColumnPrivilege(role, parent.oid, parent.cols[i].attnum, []byte{'x'}) {
				return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for table %s", parent.name)
			}
		}
	}
	if c.FkMatchtype == "p" {
		return pgerror.New(pgerror.FeatureNotSupported, "MATCH PARTIAL not yet implemented")
	}
	action := func(a string) (byte, error) {
		switch a {
		case "", "a":
			return fkNoAction, nil
		case "r":
			return fkRestrict, nil
		case "c":
			return fkCascade, nil
		case "n":
			return fkSetNull, nil
		case "d":
			return fkDefault, nil
		}
		return 0, pgerror.Unsupported("foreign key action " + a)
	}
	del, err := action(c.FkDelAction)
	if err != nil {
		return err
	}
	upd, err := action(c.FkUpdAction)
	if err != nil {
		return err
	}
	if err := generatedForeignKeyActions(t, cols, del, upd); err != nil {
		return err
	}
	var delSetCols []int
	for _, n := range strs(c.FkDelSetCols) {
		i := t.colIndex(n)
		if i < 0 {
			return foreignKeyColumnMissing(n)
		}
		if !slices.Contains(cols, i) {
			return pgerror.Newf(pgerror.InvalidColumnReference, "column \"%s\" referenced in ON DELETE SET action must be part of foreign key", n)
		}
		if !slices.Contains(delSetCols, i) {
			delSetCols = append(delSetCols, i) // PostgreSQL keeps a column named twice once
		}
	}
	name := c.Conname
	if name == "" {
		name = uniqueConName(t, t.name, foreignKeyNameAddition(fkNames), "fkey")
	}
	for i, col := range cols {
		if err := foreignKeyTypes(name, t.cols[col], parent.cols[refCols[i]]); err != nil {
			return err
		}
	}
	fk := &fkDesc{name: name, cols: cols, refTable: parent.oid, refCols: refCols, onDelete: del, onUpdate: upd,
		deferrable: c.Deferrable, initiallyDeferred: c.Initdeferred, notValid: alter && c.SkipValidation,
		matchFull: c.FkMatchtype == "f", delSetCols: delSetCols}
	if alter && !c.SkipValidation && t.part == nil && !d.deferForeignKey(t, fk) {
		if err := d.validateForeignKey(b, t, fk); err != nil {
			return err
		}
	}
	t.fks = append(t.fks, fk)
	if parent.part != nil {
		if parent.oid == t.oid {
			parent = t
		}
		d.referencedClones(t, fk, parent)
	}
	return d.foreignKeyToPartitions(b, t, fk, alter && !c.SkipValidation)
}

// validateCheck checks every row of t against the CHECK constraint name,
// compiled as cond.
func (d *ddl) validateCheck(t *tableDesc, name string, cond *scalar) error {
	return d.scanRows(t, func(row []any) error {
		d.x.row = row
		v, err := cond.eval(d.x)
		if err != nil {
			return err
		}
		if v == false {
			return checkViolation(t, name)
		}
		return nil
	})
}

// checkViolation is the 23514 of a validation that finds a row of t
// violating CHECK constraint name.
func checkViolation(t *tableDesc, name string) error {
	return pgerror.Newf(pgerror.CheckViolation, "check constraint \"%s\" of relation \"%s\" is violated by some row", name, t.name)
}

// validateForeignKey checks that every row of t references a parent row
// through fk.
func (d *ddl) validateForeignKey(b *binder, t *tableDesc, fk *fkDesc) error {
	fc, err := b.fkCheckFor(t, fk)
	if err != nil {
		return err
	}
	return d.scanRows(t, func(row []any) error {
		vals, err := fc.parentValues(row)
		if err != nil || vals == nil {
			return err
		}
		return fc.checkNow(d.x, t, vals)
	})
}

// validateConstraint runs ALTER TABLE ... VALIDATE CONSTRAINT: a CHECK or
// FOREIGN KEY added NOT VALID is checked against the rows and becomes
// valid.
func (d *ddl) validateConstraint(b *binder, t *tableDesc, name string) error {
	for i, ck := range t.checks {
		if ck.name != name {
			continue
		}
		if ck.notValid {
			e, err := b.cond(tableScope(t, t.name), ck.expr, "CHECK")
			if err != nil {
				return err
			}
			if err := d.validateCheck(t, name, e); err != nil {
				return err
			}
			nk := *ck
			nk.notValid = false
			t.checks[i] = &nk
		}
		return nil
	}
	for i, fk := range t.fks {
		if fk.name != name {
			continue
		}
		if fk.notValid {
			if err := d.validateForeignKey(b, t, fk); err != nil {
				return err
			}
			nf := *fk
			nf.notValid = false
			t.fks[i] = &nf
		}
		return nil
	}
	if findConstraint(d.cat, t, name) != nil {
		return pgerror.Newf(pgerror.WrongObjectType, "constraint \"%s\" of relation \"%s\" is not a foreign key or check constraint", name, t.name)
	}
	return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, t.name)
}

// constraintCols resolves the key columns of a PRIMARY KEY or UNIQUE
// constraint.
// withoutRedundantKeys drops from a CREATE TABLE's constraints every
// UNIQUE or EXCLUDE constraint that repeats the primary key or an earlier
// one in its columns, INCLUDE list, method, operators, predicate, NULLS NOT
// DISTINCT and deferrability, as PostgreSQL's transformIndexConstraints
// does ("UNIQUE PRIMARY KEY" makes one index): a kept constraint without a
// name takes the first name among those it stands for. Keys copied by LIKE
// are not compared: PostgreSQL adds them after the table exists.
func withoutRedundantKeys(cons []tableConstraint) []tableConstraint {
	keyIdentity := func(tc tableConstraint) (string, bool) {
		c := tc.c
		if tc.like {
			return "", false
		}
		var b strings.Builder
		switch c.Contype {
		case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE:
			b.WriteString("btree")
			if tc.column != "" {
				fmt.Fprintf(&b, " %q", tc.column)
			}
			for _, k := range strs(c.Keys) {
				fmt.Fprintf(&b, " %q", k)
			}
		case pg_query.ConstrType_CONSTR_EXCLUSION:
			fmt.Fprintf(&b, "%q %v", c.AccessMethod, c.Exclusions)
		default:
			return "", false
		}
		fmt.Fprintf(&b, " include %q where %v nnd %v deferrable %v %v", strs(c.Including), c.WhereClause, c.NullsNotDistinct, c.Deferrable, c.Initdeferred)
		return b.String(), true
	}
	// first maps an identity to the constraint kept for it: the primary
	// key, as PostgreSQL keeps it in preference, else the earliest.
	first := map[string]int{}
	for i, tc := range cons {
		if id, ok := keyIdentity(tc); ok && tc.c.Contype == pg_query.ConstrType_CONSTR_PRIMARY {
			if _, seen := first[id]; !seen {
				first[id] = i
			}
		}
	}
	drop, names := map[int]bool{}, map[int]string{}
	for i, tc := range cons {
		id, ok := keyIdentity(tc)
		if !ok || tc.c.Contype == pg_query.ConstrType_CONSTR_PRIMARY {
			continue
		}
		k, seen := first[id]
		if !seen {
			first[id] = i
			continue
		}
		drop[i] = true
		if cons[k].c.Conname == "" && names[k] == "" {
			names[k] = tc.c.Conname
		}
	}
	if len(drop) == 0 {
		return cons
	}
	out := make([]tableConstraint, 0, len(cons)-len(drop))
	for i, tc := range cons {
		if drop[i] {
			continue
		}
		if n := names[i]; n != "" {
			c := proto.Clone(tc.c).(*pg_query.Constraint) // the statement's tree stays as parsed
			c.Conname = n
			tc.c = c
		}
		out = append(out, tc)
	}
	return out
}

func constraintCols(t *tableDesc, tc tableConstraint) ([]int, error) {
	names := strs(tc.c.Keys)
	if tc.column != "" {
		names = []string{tc.column}
	}
	var cols []int
	for _, n := range names {
		i := t.colIndex(n)
		if i < 0 {
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" named in key does not exist", n)
		}
		for _, c := range cols {
			if c == i {
				return nil, pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" appears twice in primary key constraint", n)
			}
		}
		cols = append(cols, i)
	}
	return cols, nil
}

// constraintInclude resolves the INCLUDE columns of a PRIMARY KEY or UNIQUE
// constraint of t. fickle keeps them on the constraint's index, so a
// primary key that keys the store's rows (CREATE TABLE's) and the keys of
// partitioned tables, which carry no INCLUDE to their partitions, refuse
// them.
func constraintInclude(t *tableDesc, c *pg_query.Constraint) ([]int, error) {
	if len(c.Including) == 0 {
		return nil, nil
	}
	if t.part != nil {
		return nil, pgerror.Unsupported("INCLUDE in constraints of partitioned tables")
	}
	var cols []int
	for _, n := range strs(c.Including) {
		i := t.colIndex(n)
		if i < 0 {
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" named in key does not exist", n)
		}
		cols = append(cols, i)
	}
	return cols, nil
}

// checkSystemColumnRef refuses, as PostgreSQL does, a check constraint's
// reference to a system column other than tableoid (ctid, xmin, ...): a
// row checked before it is written has no version yet.
func checkSystemColumnRef(b *binder, t *tableDesc, expr *pg_query.Node) error {
	var err error
	walk(expr, func(n *pg_query.Node) bool {
		cr := n.GetColumnRef()
		if err != nil || cr == nil {
			return err == nil
		}
		fields := cr.Fields
		if len(fields) == 2 && fields[0].GetString_().GetSval() == t.name {
			fields = fields[1:]
		}
		if len(fields) != 1 {
			return false
		}
		name := fields[0].GetString_().GetSval()
		if name != "tableoid" && slices.Contains(systemColumnNames, name) && t.colIndex(name) < 0 {
			err = b.errAt(pgerror.Newf(pgerror.InvalidColumnReference, "system column \"%s\" reference in check constraint is invalid", name), cr.Location)
		}
		return false
	})
	return err
}

// foreignKeyColumnMissing is the error of a column a foreign key names that
// its table lacks, as PostgreSQL's transformColumnNameList reports it: a
// system column is refused, any other name does not exist.
func foreignKeyColumnMissing(name string) error {
	if isSystemColumnName(name) {
		return pgerror.New(pgerror.FeatureNotSupported, "system columns cannot be used in foreign keys")
	}
	return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", name)
}
