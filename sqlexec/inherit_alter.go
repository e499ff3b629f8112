package sqlexec

import (
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// ALTER TABLE on an inheritance hierarchy. PostgreSQL carries column
// additions and removals, CHECK constraints, NOT NULL, defaults and column
// types down to the children (unless ONLY), counts how many parents each
// inherited column and constraint comes from, and forbids changing an
// inherited one on a child alone. alterHierarchy does the same for the
// commands it knows and refuses the others on tables with a parent or a
// child.

// alterHierarchy applies cmd to the table oid and, when recurse is set,
// to its descendants; recursing says the call comes from a parent.
func (d *ddl) alterHierarchy(b *binder, oid uint32, cmd *pg_query.AlterTableCmd, recurse, recursing bool) error {
	t := d.cat.tables[oid]
	if t.foreign != nil {
		if err := foreignTableCmdError(t, cmd); err != nil {
			return err
		}
	}
	if err := keyColumnAlter(t, cmd); err != nil {
		return err
	}
	if recursing {
		if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
	}
	nt := t.clone()
	children := d.cat.children(oid)
	var err error
	switch cmd.Subtype {
	case pg_query.AlterTableType_AT_AddColumn:
		err = d.addColumnInherited(b, nt, cmd, children, recurse, recursing)
	case pg_query.AlterTableType_AT_DropColumn:
		err = d.dropColumnInherited(b, nt, cmd, children, recurse, recursing)
	case pg_query.AlterTableType_AT_AddConstraint:
		err = d.addConstraintInherited(b, nt, cmd, children, recurse, recursing)
	case pg_query.AlterTableType_AT_DropConstraint:
		err = d.dropConstraintInherited(b, nt, cmd, children, recurse, recursing)
	case pg_query.AlterTableType_AT_ColumnDefault, pg_query.AlterTableType_AT_SetNotNull, pg_query.AlterTableType_AT_DropNotNull,
		pg_query.AlterTableType_AT_AlterColumnType:
		err = d.alterColumnInherited(b, nt, cmd, children, recurse, recursing)
	case pg_query.AlterTableType_AT_ValidateConstraint:
		err = d.validateConstraintInherited(b, nt, cmd, children, recurse, recursing)
	case pg_query.AlterTableType_AT_DropExpression:
		err = d.dropExpressionInherited(nt, cmd, children, recurse, recursing)
	case pg_query.AlterTableType_AT_SetStatistics, pg_query.AlterTableType_AT_SetStorage:
		err = d.alterColumnOptionDown(nt, cmd, recurse)
	default:
		err = pgerror.Unsupported("ALTER TABLE " + strings.TrimPrefix(cmd.Subtype.String(), "AT_") + " on an inheritance hierarchy")
	}
	return err
}

// validateConstraintInherited runs VALIDATE CONSTRAINT on t and, for a
// CHECK constraint its children inherit, on theirs, as PostgreSQL does; a
// child's copy of one not yet valid cannot be left out with ONLY.
func (d *ddl) validateConstraintInherited(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd, children []*tableDesc, recurse, recursing bool) error {
	i := slices.IndexFunc(t.checks, func(ck *checkDesc) bool { return ck.name == cmd.Name })
	inherited := i >= 0 && !t.checks[i].noInherit && len(children) > 0
	if inherited && t.checks[i].notValid && !recurse && !recursing {
		return pgerror.New(pgerror.InvalidTableDefinition, "constraint must be validated on child tables too")
	}
	if err := d.validateConstraint(b, t, cmd.Name); err != nil {
		return err
	}
	d.cat.putTable(t)
	if !inherited {
		return nil
	}
	for _, ch := range children {
		if err := d.alterHierarchy(b, ch.oid, cmd, true, true); err != nil {
			return err
		}
	}
	return nil
}

// parentCol returns the column name of t's first parent that has one.
func (d *ddl) parentCol(t *tableDesc, name string) *columnDesc {
	for _, p := range t.parents {
		if i := d.cat.tables[p].colIndex(name); i >= 0 {
			return d.cat.tables[p].cols[i]
		}
	}
	return nil
}

func (d *ddl) addColumnInherited(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd, children []*tableDesc, recurse, recursing bool) error {
	cd := cmd.Def.GetColumnDef()
	if len(children) > 0 && !recurse {
		return pgerror.New(pgerror.InvalidTableDefinition, "column must be added to child tables too")
	}
	if recursing {
		if i := t.colIndex(cd.Colname); i >= 0 {
			c := t.cols[i]
			if c.generated != nil || columnGenerated(cd) {
				return pgerror.Unsupported("ADD COLUMN merged with a child's column of the same name when either is generated")
			}
			pc := d.parentCol(t, cd.Colname)
			if c.typ != pc.typ {
				return pgerror.Newf(pgerror.DatatypeMismatch, "child table \"%s\" has different type for column \"%s\"", t.name, cd.Colname)
			}
			d.notice(pgerror.SuccessfulCompletion, "merging definition of column \"%s\" for child \"%s\"", cd.Colname, t.name)
			nc := *c
			nc.inhCount++
			t.cols[i] = &nc
			d.cat.putTable(t)
			return nil
		}
	}
	if len(children) > 0 {
		if slices.ContainsFunc(cd.Constraints, func(n *pg_query.Node) bool {
			return n.GetConstraint().GetContype() == pg_query.ConstrType_CONSTR_IDENTITY
		}) {
			return pgerror.New(pgerror.InvalidTableDefinition, "cannot recursively add identity column to table that has child tables")
		}
		if _, ok := serialType(cd.TypeName); ok {
			return pgerror.Unsupported("adding a serial column to an inheritance parent")
		}
		var kept []*pg_query.Node
		var checks []*pg_query.Constraint
		for _, cn := range cd.Constraints {
			switch c := cn.GetConstraint(); c.Contype {
			case pg_query.ConstrType_CONSTR_NOTNULL, pg_query.ConstrType_CONSTR_NULL, pg_query.ConstrType_CONSTR_DEFAULT, pg_query.ConstrType_CONSTR_GENERATED:
				kept = append(kept, cn)
			case pg_query.ConstrType_CONSTR_CHECK:
				checks = append(checks, c)
			default:
				return pgerror.Unsupported("column constraints other than CHECK in ADD COLUMN of an inheritance parent")
			}
		}
		if len(checks) > 0 {
			return d.addColumnWithChecksInherited(b, t, cmd, kept, checks, children, recurse, recursing)
		}
	}
	if _, err := d.addColumn(b, t, cmd); err != nil {
		return err
	}
	if recursing {
		i := t.colIndex(cd.Colname)
		nc := *t.cols[i]
		nc.inhCount, nc.notLocal = 1, true
		t.cols[i] = &nc
	}
	d.cat.putTable(t)
	for _, ch := range children {
		if err := d.alterHierarchy(b, ch.oid, cmd, true, true); err != nil {
			return err
		}
	}
	return nil
}

// addColumnWithChecksInherited runs ADD COLUMN ... CHECK (...) on an
// inheritance parent as PostgreSQL does: the column goes to the hierarchy
// first, then each CHECK as a constraint of the parent named after the
// column (table_column_check), which the children inherit under that name.
func (d *ddl) addColumnWithChecksInherited(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd, kept []*pg_query.Node,
	checks []*pg_query.Constraint, children []*tableDesc, recurse, recursing bool) error {
	plain := proto.Clone(cmd).(*pg_query.AlterTableCmd)
	cd := plain.Def.GetColumnDef()
	cd.Constraints = kept
	if err := d.addColumnInherited(b, t, plain, children, recurse, recursing); err != nil {
		return err
	}
	for _, check := range checks {
		c := proto.Clone(check).(*pg_query.Constraint)
		if c.Conname == "" {
			c.Conname = uniqueConName(d.cat.tables[t.oid], t.name, cd.Colname, "check")
		}
		add := &pg_query.AlterTableCmd{Subtype: pg_query.AlterTableType_AT_AddConstraint,
			Def: &pg_query.Node{Node: &pg_query.Node_Constraint{Constraint: c}}}
		if err := d.alterHierarchy(b, t.oid, add, recurse, recursing); err != nil {
			return err
		}
	}
	return nil
}

func (d *ddl) dropColumnInherited(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd, children []*tableDesc, recurse, recursing bool) error {
	i := t.colIndex(cmd.Name)
	if i >= 0 && t.cols[i].inhCount > 0 && !recursing {
		return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot drop inherited column \"%s\"", cmd.Name)
	}
	if t.part != nil && len(children) > 0 && !recurse {
		return pgerror.New(pgerror.InvalidTableDefinition, "cannot drop column from only the partitioned table when partitions exist").
			WithHint("Do not specify the ONLY keyword.")
	}
	if err := d.dropColumn(t, cmd); err != nil || i < 0 {
		return err
	}
	d.cat.putTable(t)
	for _, ch := range children {
		nch := d.cat.tables[ch.oid].clone()
		j := nch.colIndex(cmd.Name)
		if j < 0 {
			continue
		}
		if recurse && nch.cols[j].inhCount == 1 && nch.cols[j].notLocal {
			if err := d.alterHierarchy(b, ch.oid, cmd, true, true); err != nil {
				return err
			}
			continue
		}
		if err := d.lockTable(nch, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
		nc := *nch.cols[j]
		nc.inhCount--
		if !recurse {
			nc.notLocal = false
		}
		nch.cols[j] = &nc
		d.cat.putTable(nch)
	}
	return nil
}

func (d *ddl) addConstraintInherited(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd, children []*tableDesc, recurse, recursing bool) error {
	c := cmd.Def.GetConstraint()
	switch {
	case c.Contype == pg_query.ConstrType_CONSTR_PRIMARY && len(children) > 0 && t.part == nil:
		return pgerror.Unsupported("adding a primary key to an inheritance parent")
	case c.Contype != pg_query.ConstrType_CONSTR_CHECK || c.IsNoInherit:
		if err := d.addConstraint(b, t, tableConstraint{c: c}, true); err != nil {
			return err
		}
		d.cat.putTable(t)
		return nil
	case len(children) > 0 && !recurse:
		return pgerror.New(pgerror.InvalidTableDefinition, "constraint must be added to child tables too")
	}
	if recursing {
		if j := slices.IndexFunc(t.checks, func(k *checkDesc) bool { return k.name == c.Conname }); j >= 0 {
			switch k := t.checks[j]; {
			case k.text != deparseExpr(d.s.qualifiedCalls(d.cat, c.RawExpr)):
				return pgerror.Newf(pgerror.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", c.Conname, t.name)
			case k.noInherit:
				return pgerror.Newf(pgerror.InvalidObjectDefinition, "constraint \"%s\" conflicts with non-inherited constraint on relation \"%s\"", c.Conname, t.name)
			case k.notValid && !c.SkipValidation:
				// A valid parent constraint cannot stand on rows a child's
				// NOT VALID one never checked.
				return pgerror.Newf(pgerror.InvalidObjectDefinition, "constraint \"%s\" conflicts with NOT VALID constraint on relation \"%s\"", c.Conname, t.name)
			}
			d.notice(pgerror.SuccessfulCompletion, "merging constraint \"%s\" with inherited definition", c.Conname)
			nk := *t.checks[j]
			nk.inhCount++
			t.checks[j] = &nk
			d.cat.putTable(t)
			return nil
		}
	}
	if err := d.addConstraint(b, t, tableConstraint{c: c}, true); err != nil {
		return err
	}
	added := t.checks[len(t.checks)-1]
	if recursing {
		nk := *added
		nk.inhCount, nk.notLocal = 1, true
		t.checks[len(t.checks)-1] = &nk
	}
	d.cat.putTable(t)
	// The children get the constraint under the name the parent gave it.
	named := proto.Clone(c).(*pg_query.Constraint)
	named.Conname = added.name
	ccmd := proto.Clone(cmd).(*pg_query.AlterTableCmd)
	ccmd.Def = &pg_query.Node{Node: &pg_query.Node_Constraint{Constraint: named}}
	for _, ch := range children {
		if err := d.alterHierarchy(b, ch.oid, ccmd, true, true); err != nil {
			return err
		}
	}
	return nil
}

func (d *ddl) dropConstraintInherited(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd, children []*tableDesc, recurse, recursing bool) error {
	j := slices.IndexFunc(t.checks, func(k *checkDesc) bool { return k.name == cmd.Name })
	if j >= 0 && t.checks[j].inhCount > 0 && !recursing {
		return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot drop inherited constraint \"%s\" of relation \"%s\"", cmd.Name, t.name)
	}
	noInherit := j >= 0 && t.checks[j].noInherit
	if j >= 0 && t.part != nil && len(children) > 0 && !recurse {
		return pgerror.New(pgerror.InvalidTableDefinition, "cannot remove constraint from only the partitioned table when partitions exist").
			WithHint("Do not specify the ONLY keyword.")
	}
	if err := d.dropConstraint(t, cmd); err != nil {
		return err
	}
	d.cat.putTable(t)
	if j < 0 || noInherit {
		return nil
	}
	for _, ch := range children {
		nch := d.cat.tables[ch.oid].clone()
		k := slices.IndexFunc(nch.checks, func(c *checkDesc) bool { return c.name == cmd.Name })
		if k < 0 {
			continue
		}
		if recurse && nch.checks[k].inhCount == 1 && nch.checks[k].notLocal {
			if err := d.alterHierarchy(b, ch.oid, cmd, true, true); err != nil {
				return err
			}
			continue
		}
		if err := d.lockTable(nch, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
		nk := *nch.checks[k]
		nk.inhCount--
		if !recurse {
			nk.notLocal = false
		}
		nch.checks[k] = &nk
		d.cat.putTable(nch)
	}
	return nil
}

// alterColumnInherited runs SET / DROP DEFAULT, SET / DROP NOT NULL and
// ALTER COLUMN TYPE on t and, unless ONLY, on its descendants.
func (d *ddl) alterColumnInherited(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd, children []*tableDesc, recurse, recursing bool) error {
	i := t.colIndex(cmd.Name)
	var err error
	switch cmd.Subtype {
	case pg_query.AlterTableType_AT_ColumnDefault:
		err = d.setDefault(b, t, cmd)
	case pg_query.AlterTableType_AT_SetNotNull:
		if t.part != nil && len(children) > 0 && !recurse {
			return pgerror.New(pgerror.InvalidTableDefinition, "constraint must be added to child tables too").
				WithHint("Do not specify the ONLY keyword.")
		}
		err = d.setNotNull(t, cmd, true)
	case pg_query.AlterTableType_AT_DropNotNull:
		if t.part != nil && len(children) > 0 && !recurse {
			return pgerror.New(pgerror.InvalidTableDefinition, "constraint must be dropped from child tables too").
				WithHint("Do not specify the ONLY keyword.")
		}
		err = d.setNotNull(t, cmd, false)
	case pg_query.AlterTableType_AT_AlterColumnType:
		if i >= 0 && t.cols[i].inhCount > 0 && !recursing {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot alter inherited column \"%s\"", cmd.Name)
		}
		if ch := d.cat.inheritedFromElsewhere(t, cmd.Name); ch != nil && recurse && !recursing {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot alter inherited column \"%s\" of relation \"%s\"", cmd.Name, ch.name)
		}
		if len(children) > 0 && !recurse {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "type of inherited column \"%s\" must be changed in child tables too", cmd.Name)
		}
		before := t.clone()
		if err = d.alterColumnType(b, t, cmd); err == nil && columnTypesRewrite(before, t, []*pg_query.AlterTableCmd{cmd}) {
			t.missing = nil
		}
	}
	if err != nil {
		return err
	}
	d.cat.putTable(t)
	if !recurse {
		return nil
	}
	for _, ch := range children {
		if ch.colIndex(cmd.Name) < 0 {
			continue
		}
		if cmd.Subtype == pg_query.AlterTableType_AT_AlterColumnType {
			// A table that inherits the column twice (a diamond) is
			// converted once, as PostgreSQL visits each inheritor once.
			key := retypedTable{cmd, ch.oid}
			if d.retyped[key] {
				continue
			}
			if d.retyped == nil {
				d.retyped = map[retypedTable]bool{}
			}
			d.retyped[key] = true
		}
		if err := d.alterHierarchy(b, ch.oid, cmd, true, true); err != nil {
			return err
		}
	}
	return nil
}

// retypedTable is a table an ALTER COLUMN ... TYPE subcommand has reached.
type retypedTable struct {
	cmd *pg_query.AlterTableCmd
	oid uint32
}

// renameInheritedColumn refuses renaming an inherited column on its own,
// and renames the column in the descendants that inherit it.
func (d *ddl) renameInheritedColumn(rs *pg_query.RenameStmt, t *tableDesc, recursing bool) error {
	i := t.colIndex(rs.Subname)
	if i >= 0 && t.cols[i].inhCount > 0 && !recursing {
		return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot rename inherited column \"%s\"", rs.Subname)
	}
	children := d.cat.children(t.oid)
	if len(children) > 0 && !rs.Relation.Inh {
		return pgerror.Newf(pgerror.InvalidTableDefinition, "inherited column \"%s\" must be renamed in child tables too", rs.Subname)
	}
	if !recursing && d.cat.inheritedFromElsewhere(t, rs.Subname) != nil {
		return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot rename inherited column \"%s\"", rs.Subname)
	}
	for _, ch := range children {
		if ch.colIndex(rs.Subname) < 0 {
			continue
		}
		if err := d.lockTable(ch, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
		if err := d.renameColumn(rs, ch, true); err != nil {
			return err
		}
	}
	return nil
}

// inheritedFromElsewhere returns the first descendant of t whose column
// name also comes from a parent outside t's tree: its inheritance count is
// above the number of its parents under t (PostgreSQL's numparents of
// find_all_inheritors), so renaming or retyping the column through t alone
// would part it from that parent's.
func (c *catalog) inheritedFromElsewhere(t *tableDesc, name string) *tableDesc {
	parents := map[uint32]int16{}
	seen := map[uint32]bool{t.oid: true}
	var order []*tableDesc
	for queue := []*tableDesc{t}; len(queue) > 0; queue = queue[1:] {
		for _, ch := range c.children(queue[0].oid) {
			parents[ch.oid]++
			if !seen[ch.oid] {
				seen[ch.oid] = true
				order = append(order, ch)
				queue = append(queue, ch)
			}
		}
	}
	for _, ch := range order {
		if j := ch.colIndex(name); j >= 0 && ch.cols[j].inhCount > parents[ch.oid] {
			return ch
		}
	}
	return nil
}

// alterColumnOptionDown sets a column's statistics target or storage on t
// (a clone) and, without ONLY, on every table below it, as PostgreSQL's
// ATSimpleRecursion does: each descendant's column of that name takes it.
func (d *ddl) alterColumnOptionDown(t *tableDesc, cmd *pg_query.AlterTableCmd, recurse bool) error {
	targets := []*tableDesc{t}
	if recurse {
		targets = append(targets, d.cat.descendants(t)...)
	}
	for i, target := range targets {
		nt := target
		if i > 0 {
			if err := d.lockTable(target, alterCmdLockLevel(cmd)); err != nil {
				return err
			}
			nt = target.clone()
		}
		var err error
		if cmd.Subtype == pg_query.AlterTableType_AT_SetStatistics {
			err = d.setStatistics(nt, cmd)
		} else {
			err = d.setStorage(nt, cmd)
		}
		if err != nil {
			return err
		}
		d.cat.putTable(nt)
	}
	return nil
}
