package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// PostgreSQL 15 runs an ALTER TABLE's subcommands not in the order written
// but pass by pass (tablecmds.c, AT_PASS_*): every DROP first, then column
// type changes, new columns, the examination of new constraints, column
// attributes, index-based constraints, indexes, other constraints and
// defaults, and last everything else. Within a pass the written order
// holds. Some checks run before any pass (ATPrepCmd, alterPrep).
const (
	atPassDrop           = iota // DROP COLUMN, DROP CONSTRAINT, DROP DEFAULT, DROP NOT NULL, ...
	atPassAlterType             // ALTER COLUMN TYPE
	atPassOldIndex              // indexes re-added after a type change
	atPassOldConstr             // constraints re-added after a type change
	atPassAddCol                // ADD COLUMN
	atPassAddConstr             // ADD CONSTRAINT: its examination, which moves it to a later pass
	atPassColAttrs              // SET NOT NULL
	atPassAddIndexConstr        // ADD CONSTRAINT ... USING INDEX
	atPassAddIndex              // PRIMARY KEY, UNIQUE and EXCLUDE constraints (their indexes)
	atPassAddOtherConstr        // CHECK and FOREIGN KEY constraints, SET DEFAULT, ADD IDENTITY
	atPassMisc                  // everything else
	atNumPasses
)

// alterItem is one subcommand waiting in its pass: a command of the
// statement, or (tc set) a constraint written on a column that ADD COLUMN
// left for a later pass, as transformAlterTableStmt does.
type alterItem struct {
	cmd *pg_query.AlterTableCmd
	tc  *tableConstraint
	// keyColumns is the SET NOT NULL a PRIMARY KEY's examination queues
	// for its columns: here only the check that they exist.
	keyColumns bool
}

// alterPass is the pass in which PostgreSQL 15's ATPrepCmd places cmd.
func alterPass(cmd *pg_query.AlterTableCmd) int {
	switch cmd.Subtype {
	case pg_query.AlterTableType_AT_DropColumn, pg_query.AlterTableType_AT_DropConstraint,
		pg_query.AlterTableType_AT_DropNotNull, pg_query.AlterTableType_AT_DropExpression,
		pg_query.AlterTableType_AT_DropIdentity, pg_query.AlterTableType_AT_DropOids:
		return atPassDrop
	case pg_query.AlterTableType_AT_ColumnDefault:
		if cmd.Def == nil {
			return atPassDrop // DROP DEFAULT
		}
		return atPassAddOtherConstr
	case pg_query.AlterTableType_AT_AlterColumnType:
		return atPassAlterType
	case pg_query.AlterTableType_AT_AddColumn:
		return atPassAddCol
	case pg_query.AlterTableType_AT_AddConstraint:
		return atPassAddConstr
	case pg_query.AlterTableType_AT_SetNotNull, pg_query.AlterTableType_AT_CheckNotNull:
		return atPassColAttrs
	case pg_query.AlterTableType_AT_AddIndexConstraint:
		return atPassAddIndexConstr
	case pg_query.AlterTableType_AT_AddIndex:
		return atPassAddIndex
	case pg_query.AlterTableType_AT_AddIdentity, pg_query.AlterTableType_AT_CookedColumnDefault:
		return atPassAddOtherConstr
	}
	return atPassMisc
}

// constraintPass is the pass in which PostgreSQL runs a constraint once
// its examination (transformAlterTableStmt) is done.
func constraintPass(c *pg_query.Constraint) int {
	switch {
	case c.Indexname != "":
		return atPassAddIndexConstr
	case c.Contype == pg_query.ConstrType_CONSTR_PRIMARY, c.Contype == pg_query.ConstrType_CONSTR_UNIQUE,
		c.Contype == pg_query.ConstrType_CONSTR_EXCLUSION:
		return atPassAddIndex
	}
	return atPassAddOtherConstr
}

// alterQueue places the statement's commands in their passes, keeping the
// written order within a pass.
func alterQueue(cmds []*pg_query.Node) *[atNumPasses][]alterItem {
	var q [atNumPasses][]alterItem
	for _, n := range cmds {
		cmd := n.GetAlterTableCmd()
		p := alterPass(cmd)
		q[p] = append(q[p], alterItem{cmd: cmd})
	}
	return &q
}

// alterPrep runs the checks PostgreSQL makes in ATPrepCmd, for every
// command in the order written before any pass runs: a later pass's
// command can fail before an earlier pass's command runs. t is the table
// before the statement, recurse false under ONLY.
func (d *ddl) alterPrep(b *binder, t *tableDesc, cmds []*pg_query.Node, recurse bool) error {
	persistenceChanged := false
	for _, n := range cmds {
		cmd := n.GetAlterTableCmd()
		if t.foreign != nil {
			if err := foreignTableCmdError(t, cmd); err != nil {
				return err
			}
		}
		switch cmd.Subtype {
		case pg_query.AlterTableType_AT_AlterColumnType:
			if d.inheritedAlter(t, cmd) {
				continue // alterColumnInherited checks the hierarchy
			}
			if err := keyColumnAlter(t, cmd); err != nil {
				return err
			}
			if err := d.columnTypePrep(b, t, cmd); err != nil {
				return err
			}
		case pg_query.AlterTableType_AT_DropExpression:
			// As ATPrepDropExpression: ONLY on a table with inheritors,
			// then the column, then an inherited column.
			if !recurse && len(d.cat.children(t.oid)) > 0 {
				return pgerror.New(pgerror.FeatureNotSupported, "ALTER TABLE / DROP EXPRESSION must be applied to child tables too")
			}
			i := t.colIndex(cmd.Name)
			if i < 0 {
				return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, t.name)
			}
			if t.cols[i].inhCount > 0 {
				return pgerror.New(pgerror.InvalidTableDefinition, "cannot drop generation expression from inherited column")
			}
		case pg_query.AlterTableType_AT_SetLogged, pg_query.AlterTableType_AT_SetUnLogged:
			if persistenceChanged {
				return pgerror.New(pgerror.FeatureNotSupported, "cannot change persistence setting twice")
			}
			changed, err := d.persistenceChange(t, cmd.Subtype == pg_query.AlterTableType_AT_SetLogged)
			if err != nil {
				return err
			}
			persistenceChanged = changed
		case pg_query.AlterTableType_AT_AddInherit:
			// ATPrepAddInherit; the parent is looked at when INHERIT runs.
			if t.bound != nil {
				return pgerror.New(pgerror.WrongObjectType, "cannot change inheritance of a partition")
			}
			if t.part != nil {
				return pgerror.New(pgerror.WrongObjectType, "cannot change inheritance of partitioned table")
			}
		case pg_query.AlterTableType_AT_SetTableSpace:
			if err := setTablespace(cmd.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// alterPassOrder is the order in which the passes of queue run: PostgreSQL's,
// except that the column type changes run before the drops when a USING
// expression reads a column the statement drops. PostgreSQL computes the
// new values from the rows as they were before the statement, after every
// pass; fickle changes the rows pass by pass, so it converts them while
// the dropped column still holds its values.
func alterPassOrder(queue *[atNumPasses][]alterItem) []int {
	order := make([]int, 0, atNumPasses)
	for _, it := range queue[atPassAlterType] {
		using := it.cmd.GetDef().GetColumnDef().GetRawDefault()
		if using == nil {
			continue
		}
		for _, drop := range queue[atPassDrop] {
			if drop.cmd.Subtype == pg_query.AlterTableType_AT_DropColumn && readsColumn(using, drop.cmd.Name) {
				order = append(order, atPassAlterType)
				break
			}
		}
		if len(order) > 0 {
			break
		}
	}
	typeFirst := len(order) > 0
	for pass := range atNumPasses {
		if !typeFirst || pass != atPassAlterType {
			order = append(order, pass)
		}
	}
	return order
}

// alterPhase3 gathers, while the passes of an ALTER TABLE run, the checks
// of rows that PostgreSQL makes after every pass (ATRewriteTables): table
// by table, in the order the statement first reached them (the named
// table, then its inheritors), one scan checks each row against every NOT
// NULL column (once some column became NOT NULL) and then the new CHECK
// constraints in the order they were added; the new foreign keys are
// validated after every table's scan, in order.
type alterPhase3 struct {
	b      *binder
	tables []*phase3Table
	fks    []phase3FK
}

// phase3Table is what the final scan of one table checks.
type phase3Table struct {
	oid     uint32
	notNull bool
	checks  []phase3Check
}

// phase3Check is a new CHECK constraint waiting for the final scan.
type phase3Check struct {
	name string
	cond *scalar
}

// phase3FK is a new foreign key of a table waiting for its validation.
type phase3FK struct {
	table uint32
	fk    *fkDesc
}

// deferring says whether the rows of tables are checked in the final scan
// of the ALTER TABLE running (alterPhase3) rather than at once.
func (d *ddl) deferring() bool {
	return d.phase3 != nil
}

// phase3For is the final scan's entry of t, made on first use.
func (p *alterPhase3) phase3For(t *tableDesc) *phase3Table {
	for _, pt := range p.tables {
		if pt.oid == t.oid {
			return pt
		}
	}
	pt := &phase3Table{oid: t.oid}
	p.tables = append(p.tables, pt)
	return pt
}

// deferCheck leaves the validation of t's new CHECK constraint name to
// the final scan, if one is coming; false when the caller checks now.
func (d *ddl) deferCheck(t *tableDesc, name string, cond *scalar) bool {
	if !d.deferring() {
		return false
	}
	pt := d.phase3.phase3For(t)
	pt.checks = append(pt.checks, phase3Check{name: name, cond: cond})
	return true
}

// deferForeignKey leaves the validation of t's new foreign key fk to
// after the final scans, if they are coming; false when the caller
// validates now.
func (d *ddl) deferForeignKey(t *tableDesc, fk *fkDesc) bool {
	if !d.deferring() {
		return false
	}
	d.phase3.phase3For(t)
	d.phase3.fks = append(d.phase3.fks, phase3FK{table: t.oid, fk: fk})
	return true
}

// deferNoNulls leaves the check that column col of t has no NULLs to the
// final scan, if one is coming; false when the caller checks now.
func (d *ddl) deferNoNulls(t *tableDesc, col int) bool {
	if !d.deferring() {
		return false
	}
	if !t.cols[col].notNull {
		d.phase3.phase3For(t).notNull = true
	}
	return true
}

// runPhase3 makes the final checks alterPhase3 gathered on the tables as
// the passes left them.
func (d *ddl) runPhase3(p *alterPhase3) error {
	for _, pt := range p.tables {
		t := d.cat.tables[pt.oid]
		if t == nil || !pt.notNull && len(pt.checks) == 0 {
			continue
		}
		if err := d.scanRows(t, func(row []any) error {
			for i, col := range t.cols {
				if pt.notNull && col.notNull && i < len(row) && row[i] == nil {
					return nullValuesError(t, col)
				}
			}
			for _, ck := range pt.checks {
				d.x.row = row
				v, err := ck.cond.eval(d.x)
				if err != nil {
					return err
				}
				if v == false {
					return checkViolation(t, ck.name)
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for _, f := range p.fks {
		if t := d.cat.tables[f.table]; t != nil {
			if err := d.validateForeignKey(p.b, t, f.fk); err != nil {
				return err
			}
		}
	}
	return nil
}

// columnTypePrep makes the checks of an ALTER COLUMN ... TYPE that
// PostgreSQL's ATPrepAlterColumnType makes before any pass, on t as the
// statement found it: the column, the type, and the USING expression or
// the cast from the old type. The checks against other objects (views,
// generated columns, keys) come when the type changes, after the drops.
func (d *ddl) columnTypePrep(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	i, err := d.column(t, cmd.Name)
	if err != nil {
		return err
	}
	cd := cmd.Def.GetColumnDef()
	to, err := b.typeName(cd.TypeName)
	if err != nil {
		return err
	}
	if err := b.requireTypeNameUsage(cd.TypeName, uint32(to.Oid)); err != nil {
		return err
	}
	if err := generatedUsing(t.cols[i], cd.RawDefault != nil); err != nil {
		return err
	}
	if t.foreign != nil {
		// A foreign table stores nothing to convert: PostgreSQL checks
		// only that no column of another table holds its row type.
		if cd.RawDefault != nil {
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a table", t.name)
		}
		return d.checkRowTypeAlter(t, cmd)
	}
	_, _, err = d.columnConversion(b, t, i, cd.RawDefault, to)
	return err
}
