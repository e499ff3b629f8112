package sqlexec

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

func (d *ddl) alterTable(at *pg_query.AlterTableStmt, full string) error {
	if at.Objtype == pg_query.ObjectType_OBJECT_FOREIGN_TABLE {
		t, done, err := d.foreignAlterTarget(at.Relation, at.MissingOk)
		if done {
			return err
		}
		if at, err = alterForeignStmt(t, at); err != nil {
			return err
		}
	}
	if at.Objtype == pg_query.ObjectType_OBJECT_TYPE {
		d.s.noteRewriteUnknown("ALTER TYPE")
		return d.alterCompositeType(at)
	}
	if ownerOnly(at) {
		return d.changeOwner(at)
	}
	if done, err := d.alterViewDefaults(at, full); done {
		return err
	}
	if done, err := d.alterViewOptions(at, full); done {
		return err
	}
	if err := d.tableActionOnView(at); err != nil {
		return err
	}
	if done, err := d.alterSequencePersistence(at); done {
		return err
	}
	if at.Objtype == pg_query.ObjectType_OBJECT_INDEX && len(at.Cmds) == 1 &&
		at.Cmds[0].GetAlterTableCmd().Subtype == pg_query.AlterTableType_AT_AttachPartition {
		return d.attachIndexPartition(at)
	}
	if at.Objtype == pg_query.ObjectType_OBJECT_INDEX {
		return d.alterIndex(at)
	}
	if at.Objtype != pg_query.ObjectType_OBJECT_TABLE {
		return pgerror.Unsupported("ALTER " + strings.TrimPrefix(at.Objtype.String(), "OBJECT_"))
	}
	t, err := d.alteredTable(at.Relation, at.MissingOk)
	if t == nil {
		return err
	}
	if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), relNoun(t), t.name); err != nil {
		return err
	}
	if err := d.checkNotInUse(t, isolation.TableLockAccessExclusive); err != nil {
		return err // as CheckTableNotInUse, whatever lock the subcommands take
	}
	if err := d.lockTable(t, alterTableLockLevel(at.Cmds)); err != nil {
		return err
	}
	b := d.binder(full)
	if err := d.alterPrep(b, t, at.Cmds, at.Relation.Inh); err != nil {
		return err
	}
	queue := alterQueue(at.Cmds)
	d.phase3 = &alterPhase3{b: b}
	defer func() { d.phase3 = nil }()
	rewritten := false // PostgreSQL writes the table anew
	var reason int64   // why, as AT_REWRITE_* bits (tableRewrite)
	runPass := func(pass int) error {
		for k := 0; k < len(queue[pass]); k++ {
			if err := d.alterTableCmd(b, t, at, queue, pass, &k, queue[pass][k], &rewritten, &reason); err != nil {
				return err
			}
		}
		return nil
	}
	passes := alterPassOrder(queue)
	if passes[0] == atPassAlterType {
		// The type changes read values the drops remove: they run first,
		// and the drops' errors, which come first in PostgreSQL, win.
		if err := runPass(atPassAlterType); err != nil {
			if dropErr := runPass(atPassDrop); dropErr != nil {
				return dropErr
			}
			return err
		}
		passes = passes[1:]
	}
	for _, pass := range passes {
		if err := runPass(pass); err != nil {
			return err
		}
	}
	phase3 := d.phase3
	d.phase3 = nil
	if err := d.runPhase3(phase3); err != nil {
		return err
	}
	if rewritten && t.part == nil {
		d.s.noteRewrite(t.oid, reason)
	}
	if rewritten {
		d.clearMissing(t)
		// The rows the transaction sees take the first places, in the
		// order of their places now, at their new sizes.
		nt := d.cat.tables[t.oid]
		return d.x.txn.Relayout(nt.id, isolation.LayoutOrder{Index: isolation.NoIndex, Visible: true,
			Size: func(row []any) int { return tupleSize(nt, row) }})
	}
	return nil
}

// alterTableCmd runs one queued subcommand of an ALTER TABLE on t in its
// pass; k indexes the pass's queue (a run of ALTER COLUMN TYPE commands
// advances it past the run), and a constraint ADD COLUMN or ADD CONSTRAINT
// leaves for a later pass joins its queue.
func (d *ddl) alterTableCmd(b *binder, t *tableDesc, at *pg_query.AlterTableStmt, queue *[atNumPasses][]alterItem, pass int, k *int,
	item alterItem, rewritten *bool, reason *int64) error {
	cmd := item.cmd
	if item.tc != nil {
		nt := d.cat.tables[t.oid].clone()
		if err := d.addConstraint(b, nt, *item.tc, true); err != nil {
			return err
		}
		d.cat.putTable(nt)
		return nil
	}
	if c := cmd.GetDef().GetConstraint(); cmd.Subtype == pg_query.AlterTableType_AT_AddConstraint && pass == atPassAddConstr {
		// transformAlterTableStmt examines the constraint and sends it on
		// to the pass of its kind; a primary key first sets its columns
		// NOT NULL (atPassColAttrs), which finds them or fails.
		if c != nil {
			if c.Contype == pg_query.ConstrType_CONSTR_PRIMARY && c.Indexname == "" {
				queue[atPassColAttrs] = append(queue[atPassColAttrs], alterItem{cmd: cmd, keyColumns: true})
			}
			p := constraintPass(c)
			queue[p] = append(queue[p], alterItem{cmd: cmd})
			return nil
		}
	}
	if item.keyColumns {
		cur := d.cat.tables[t.oid]
		for _, n := range cmd.GetDef().GetConstraint().GetKeys() {
			if name := n.GetString_().GetSval(); cur.colIndex(name) < 0 && !slices.Contains(systemColumnNames, name) {
				return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, cur.name)
			}
		}
		return nil
	}
	if t.foreign == nil {
		if cd := cmd.GetDef().GetColumnDef(); cmd.Subtype == pg_query.AlterTableType_AT_AddColumn && len(cd.GetFdwoptions()) > 0 {
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a foreign table", t.name)
		}
	}
	// existed is an ADD COLUMN IF NOT EXISTS that finds its column.
	existed := cmd.Subtype == pg_query.AlterTableType_AT_AddColumn && d.cat.tables[t.oid].colIndex(cmd.GetDef().GetColumnDef().GetColname()) >= 0
	if err := keyColumnAlter(t, cmd); err != nil {
		return err
	}
	if err := d.checkRowTypeAlter(t, cmd); err != nil {
		return err
	}
	if cmd.Subtype == pg_query.AlterTableType_AT_AddColumn && t.bound != nil {
		return pgerror.New(pgerror.WrongObjectType, "cannot add column to a partition")
	}
	if c := cmd.GetDef().GetConstraint(); c != nil && c.Contype == pg_query.ConstrType_CONSTR_FOREIGN && t.part != nil && !at.Relation.Inh {
		return pgerror.Newf(pgerror.WrongObjectType, "cannot use ONLY for foreign key on partitioned table \"%s\" referencing relation \"%s\"", t.name, c.Pktable.Relname)
	}
	if c := cmd.GetDef().GetConstraint(); c != nil && t.part != nil && !at.Relation.Inh {
		if err := d.onlyPartitionedKey(t, c); err != nil {
			return err
		}
	}
	if d.inheritedAlter(t, cmd) {
		if rewriteCapable(cmd) {
			d.s.noteRewriteUnknown("an ALTER TABLE of an inheritance hierarchy")
		}
		if err := d.alterHierarchy(b, t.oid, cmd, at.Relation.Inh, false); err != nil {
			return err
		}
		if err := d.addedColumnOptions(t.oid, cmd, existed); err != nil {
			return err
		}
		return nil
	}
	nt := d.cat.tables[t.oid].clone()
	hadToast, rewrote := hasToastTable(nt), false
	var err error
	switch cmd.Subtype {
	case pg_query.AlterTableType_AT_AddColumn:
		var cons []tableConstraint
		if rewrote, cons, err = d.addColumnLater(b, nt, cmd); rewrote {
			*reason |= 2
		}
		for _, tc := range cons {
			// transformAlterTableStmt sends a column's index and other
			// constraints to their passes, after every ADD COLUMN; a CHECK
			// is named after the columns it reads, as a table's.
			if tc.c.Contype == pg_query.ConstrType_CONSTR_CHECK {
				tc.column = ""
			}
			p := constraintPass(tc.c)
			queue[p] = append(queue[p], alterItem{cmd: cmd, tc: &tc})
		}
	case pg_query.AlterTableType_AT_DropColumn:
		err = d.dropColumn(nt, cmd)
	case pg_query.AlterTableType_AT_AddConstraint:
		err = d.addConstraint(b, nt, tableConstraint{c: cmd.Def.GetConstraint()}, true)
	case pg_query.AlterTableType_AT_DropConstraint:
		err = d.dropConstraint(nt, cmd)
	case pg_query.AlterTableType_AT_AlterConstraint:
		err = d.alterConstraint(nt, cmd)
	case pg_query.AlterTableType_AT_ValidateConstraint:
		err = d.validateConstraint(b, nt, cmd.Name)
	case pg_query.AlterTableType_AT_ColumnDefault:
		err = d.setDefault(b, nt, cmd)
	case pg_query.AlterTableType_AT_DropExpression:
		err = d.dropExpression(nt, cmd)
	case pg_query.AlterTableType_AT_AlterColumnType:
		run := alterColumnTypeRun(queue[pass][*k:], func(c *pg_query.AlterTableCmd) bool { return !d.inheritedAlter(t, c) && keyColumnAlter(t, c) == nil })
		*k += len(run) - 1
		before := nt.clone()
		err = d.alterColumnTypes(b, nt, run)
		rewrote = err != nil || columnTypesRewrite(before, nt, run)
		if rewrote {
			*reason |= 4
			if timeZoneDependentRewrite(before, nt, run) {
				d.s.noteRewriteUnknown("a change between timestamp and timestamp with time zone")
			}
		}
	case pg_query.AlterTableType_AT_SetNotNull, pg_query.AlterTableType_AT_DropNotNull:
		err = d.setNotNull(nt, cmd, cmd.Subtype == pg_query.AlterTableType_AT_SetNotNull)
	case pg_query.AlterTableType_AT_AddIdentity:
		err = d.addIdentity(nt, cmd)
	case pg_query.AlterTableType_AT_SetIdentity:
		err = d.setIdentity(nt, cmd)
	case pg_query.AlterTableType_AT_DropIdentity:
		err = d.dropIdentity(nt, cmd)
	case pg_query.AlterTableType_AT_EnableTrig, pg_query.AlterTableType_AT_DisableTrig,
		pg_query.AlterTableType_AT_EnableAlwaysTrig, pg_query.AlterTableType_AT_EnableReplicaTrig,
		pg_query.AlterTableType_AT_EnableTrigUser, pg_query.AlterTableType_AT_DisableTrigUser,
		pg_query.AlterTableType_AT_EnableTrigAll, pg_query.AlterTableType_AT_DisableTrigAll:
		err = d.enableTriggers(nt, cmd, at.Relation.Inh)
	case pg_query.AlterTableType_AT_AttachPartition:
		err = d.attachPartition(b, nt, cmd)
	case pg_query.AlterTableType_AT_DetachPartition:
		err = d.detachPartition(nt, cmd)
	case pg_query.AlterTableType_AT_AddInherit:
		err = d.addInherit(nt, cmd)
	case pg_query.AlterTableType_AT_DropInherit:
		err = d.dropInherit(nt, cmd)
	case pg_query.AlterTableType_AT_ClusterOn, pg_query.AlterTableType_AT_DropCluster:
		switch {
		case nt.part != nil:
			err = pgerror.New(pgerror.FeatureNotSupported, "cannot mark index clustered in partitioned table")
		case cmd.Subtype == pg_query.AlterTableType_AT_ClusterOn:
			err = d.clusterOn(nt, cmd.Name)
		default:
			nt.clusteredOn = 0
		}
	case pg_query.AlterTableType_AT_ReplicaIdentity:
		err = d.setReplicaIdentity(nt, cmd.Def.GetReplicaIdentityStmt())
	case pg_query.AlterTableType_AT_EnableRowSecurity, pg_query.AlterTableType_AT_DisableRowSecurity,
		pg_query.AlterTableType_AT_ForceRowSecurity, pg_query.AlterTableType_AT_NoForceRowSecurity:
		toggleRowSecurity(nt, cmd.Subtype)
	case pg_query.AlterTableType_AT_SetLogged, pg_query.AlterTableType_AT_SetUnLogged:
		// alterPrep let at most one of them change the persistence.
		if rewrote, err = d.setPersistence(nt, cmd.Subtype == pg_query.AlterTableType_AT_SetLogged); rewrote {
			*reason |= 1
		}
	case pg_query.AlterTableType_AT_SetStorage:
		err = d.setStorage(nt, cmd)
	case pg_query.AlterTableType_AT_SetStatistics:
		err = d.setStatistics(nt, cmd)
	case pg_query.AlterTableType_AT_SetCompression:
		err = d.setCompression(nt, cmd)
	case pg_query.AlterTableType_AT_SetTableSpace:
		err = setTablespace(cmd.Name)
	case pg_query.AlterTableType_AT_SetRelOptions:
		err = setTableOptions(nt, cmd)
	case pg_query.AlterTableType_AT_ResetRelOptions:
		err = resetTableOptions(nt, cmd)
	case pg_query.AlterTableType_AT_GenericOptions:
		err = d.setForeignOptions(nt, cmd)
	case pg_query.AlterTableType_AT_AlterColumnGenericOptions:
		err = d.setForeignColumnOptions(nt, cmd)
	case pg_query.AlterTableType_AT_ChangeOwner:
		// fickle records no owners: a new one changes nothing.
	default:
		err = pgerror.Unsupported("ALTER TABLE " + strings.TrimPrefix(cmd.Subtype.String(), "AT_"))
	}
	if err == nil {
		err = d.cat.checkRowTypeMember(nt)
	}
	if err == nil {
		err = d.checkRowTypeExprs(nt)
	}
	if err != nil {
		return err
	}
	nt.toastKept = keepsToastTable(nt, hadToast, rewrote)
	*rewritten = *rewritten || rewrote
	d.cat.putTable(nt)
	if err := d.addedColumnOptions(t.oid, cmd, existed); err != nil {
		return err
	}
	return nil
}

func (d *ddl) column(t *tableDesc, name string) (int, error) {
	i := t.colIndex(name)
	if i < 0 {
		return -1, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, t.name)
	}
	return i, nil
}

// addColumn runs ADD COLUMN on t with the constraints written on the
// column.
func (d *ddl) addColumn(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd) (rewrites bool, err error) {
	rewrites, cons, err := d.addColumnLater(b, t, cmd)
	if err != nil {
		return rewrites, err
	}
	for _, tc := range cons {
		if err := d.addConstraint(b, t, tc, true); err != nil {
			return false, err
		}
	}
	return rewrites, nil
}

// addColumnLater adds the column of an ADD COLUMN to t and returns the
// constraints written on it (CHECK, FOREIGN KEY, UNIQUE, PRIMARY KEY),
// which PostgreSQL adds in later passes.
func (d *ddl) addColumnLater(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd) (rewrites bool, cons []tableConstraint, err error) {
	cd := cmd.Def.GetColumnDef()
	if t.colIndex(cd.Colname) >= 0 {
		if cmd.MissingOk {
			d.notice(pgerror.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists, skipping", cd.Colname, t.name)
			return false, nil, nil
		}
		return false, nil, pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cd.Colname, t.name)
	}
	cons, err = d.addColumnDef(b, t, cd, true)
	if err != nil {
		return false, nil, err
	}
	col := t.cols[len(t.cols)-1]
	defNode := col.def
	var check domainCheck
	if dom := b.domainByOid(col.domain); dom != nil {
		if check, err = b.domainCheckFor(dom); err != nil {
			return false, nil, err
		}
		if defNode == nil {
			defNode = d.cat.domainDefault(dom)
		}
	}
	var def, gen *scalar
	volatileCalls := b.pgVolatileCalls
	if defNode != nil && col.generated == nil {
		if err := b.unplaced(func() (err error) {
			if def, err = b.defaultExpr(col, defNode); err != nil {
				return err
			}
			return d.readDefaultLiteral(b, col, defNode, def)
		}); err != nil {
			return false, nil, err
		}
	}
	if col.generated != nil {
		if gen, err = b.generationExpr(t, col); err != nil {
			return false, nil, err
		}
	}
	if rewrites = b.addedColumnRewrites(col, b.pgVolatileCalls != volatileCalls); rewrites {
		t.missing = nil
	} else if err := d.noteMissing(t, col, def); err != nil {
		return false, nil, err
	}
	hasRows := false
	if err := d.scanRows(t, func([]any) error { hasRows = true; return nil }); err != nil {
		return false, nil, err
	}
	// A final scan (alterPhase3) checks the NOT NULL, if one is coming.
	deferNull := col.notNull && d.deferring()
	if deferNull {
		d.phase3.phase3For(t).notNull = true
	}
	if hasRows && col.notNull && !deferNull && def == nil && gen == nil && check == nil {
		return false, nil, nullValuesError(t, col)
	}
	// Every version of a key gets the value computed for its latest row, so
	// that a row keeps one value of a volatile default (nextval) whichever
	// version a reader sees. A deleted key's older versions get NULL from a
	// volatile default: PostgreSQL's rewrite computes none for them. As in
	// PostgreSQL, the value of each live row passes the column's domain
	// first (a NULL too: a NOT NULL domain without a default fails), then
	// the column's NOT NULL.
	var firstErr error
	values := map[string]any{}
	savedRow := d.x.row
	defer func() { d.x.row = savedRow }()
	err = d.rewriteRows(t, func(r isolation.RowRewrite) []any {
		nr := append(append(make([]any, 0, len(r.Row)+1), r.Row...), nil)
		if !hasRows || firstErr != nil {
			return nr
		}
		var v any
		switch {
		case gen != nil:
			d.x.row = nr
			v, firstErr = gen.eval(d.x)
		case def != nil:
			var ok bool
			if v, ok = values[r.Key]; !ok && (r.Latest || !def.volatile) {
				v, firstErr = def.eval(d.x)
				values[r.Key] = v
			}
		}
		nr[len(r.Row)] = v
		if r.Latest && firstErr == nil && check != nil {
			firstErr = check(d.x, v)
		}
		if r.Latest && firstErr == nil && v == nil && col.notNull && !deferNull {
			firstErr = nullValuesError(t, col)
		}
		return nr
	})
	if err != nil {
		return false, nil, err
	}
	if firstErr != nil {
		return false, nil, firstErr
	}
	return rewrites, cons, nil
}

func (d *ddl) dropColumn(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	i := t.colIndex(cmd.Name)
	if i < 0 && slices.Contains(systemColumnNames, cmd.Name) {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot drop system column \"%s\"", cmd.Name)
	}
	if i < 0 {
		if cmd.MissingOk {
			d.notice(pgerror.SuccessfulCompletion, "column \"%s\" of relation \"%s\" does not exist, skipping", cmd.Name, t.name)
			return nil
		}
		return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, t.name)
	}
	if err := d.dropGeneratedDependents(t, i, cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
		return err
	}
	i = t.colIndex(cmd.Name)
	if err := d.checkColumnDropForViews(t, cmd.Name, cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
		return err
	}
	if err := d.publicationColumnUse(t, t.cols[i].attnum, cmd.Name, cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
		return err
	}
	var deps []fkRef
	for _, r := range d.cat.referencing(t.oid) {
		if r.fk.parentName == "" && slices.Contains(r.fk.refCols, i) {
			deps = append(deps, r)
		}
	}
	if err := d.dropDependentForeignKeys(t, deps, fmt.Sprintf("column %s of table %s", cmd.Name, t.name),
		fmt.Sprintf("column %s of table %s", cmd.Name, t.name), cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
		return err
	}
	if slices.Contains(t.pk, i) && !t.hidden {
		// The rows were keyed by the primary key that goes with the column.
		if err := d.rekeyToRowIDs(t); err != nil {
			return err
		}
		d.cat.dropComments(primaryKeyIndexOID(t))
	}
	shift := func(cols []int) ([]int, bool) {
		out := make([]int, 0, len(cols))
		for _, c := range cols {
			switch {
			case c == i:
				return nil, false
			case c > i:
				out = append(out, c-1)
			default:
				out = append(out, c)
			}
		}
		return out, true
	}
	triggers, err := d.triggersWithoutColumn(t, i, cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE)
	if err != nil {
		return err
	}
	t.triggers = triggers
	d.dropOwnedSequences(t, t.cols[i].attnum)
	delete(d.cat.acls, aclKey{kind: aclColumn, oid: t.oid, attnum: t.cols[i].attnum})
	// Every index is rebuilt: the row positions of its columns move.
	old := t.indexes
	t.indexes = nil
	for _, ix := range old {
		if err := d.dropStoreIndex(ix.id); err != nil {
			return err
		}
		delete(d.cat.schemas[t.schema].indexes, ix.name)
	}
	if t.pk != nil {
		if pk, ok := shift(t.pk); ok {
			t.pk = pk
		} else {
			if t.clusteredOn == primaryKeyIndexOID(t) {
				t.clusteredOn = 0
			}
			t.pk, t.pkName, t.pkIndex, t.pkOptions, t.pkParent, t.pkCloned = nil, "", nil, nil, 0, false
		}
	}
	var fks []*fkDesc
	for _, fk := range t.fks {
		if cols, ok := shift(fk.cols); ok {
			nfk := *fk
			nfk.cols = cols
			if fk.delSetCols != nil {
				nfk.delSetCols, _ = shift(fk.delSetCols) // a subset of cols: all stay
			}
			if fk.refTable == t.oid {
				if nfk.refCols, ok = shift(fk.refCols); !ok {
					continue
				}
			}
			fks = append(fks, &nfk)
		}
	}
	t.fks = fks
	var checks []*checkDesc
	for _, ck := range t.checks {
		if !readsColumn(ck.expr, cmd.Name) {
			checks = append(checks, ck)
		}
	}
	t.checks = checks
	if err := d.rewriteRows(t, func(r isolation.RowRewrite) []any {
		nr := make([]any, 0, len(r.Row)-1)
		nr = append(nr, r.Row[:i]...)
		return append(nr, r.Row[i+1:]...)
	}); err != nil {
		return err
	}
	d.cat.dropColumnComment(t.oid, t.cols[i].attnum)
	d.dropColumnStats(t, i)
	t.droppedAttnum = max(t.droppedAttnum, t.cols[i].attnum)
	t.droppedCols = append(t.droppedCols, t.cols[i])
	delete(t.missing, t.cols[i].attnum)
	t.cols = append(t.cols[:i:i], t.cols[i+1:]...)
	for _, ix := range old {
		cols, ok := shift(ix.cols)
		include, inclOK := shift(ix.include)
		if !ok || !inclOK || ix.readsIndexColumn(cmd.Name) {
			d.cat.dropComments(ix.oid)
			continue
		}
		// The store's index is built anew over the shifted columns; in the
		// catalog it stays the same index (OID, DEFERRABLE, parent link,
		// comment, options), as PostgreSQL leaves an index the column is
		// not in.
		nix := *ix
		nix.cols = cols
		if ix.include != nil {
			nix.include = include
		}
		if err := d.registerIndex(t, &nix); err != nil {
			return err
		}
		nix.oid = ix.oid
		if ix == d.cat.tables[t.oid].pkIndex {
			t.pkIndex = &nix
		}
	}
	for _, r := range d.cat.referencing(t.oid) {
		if r.child.oid == t.oid {
			continue
		}
		child := d.cat.tables[r.child.oid].clone()
		for j, fk := range child.fks {
			if fk.refTable == t.oid {
				nfk := *fk
				nfk.refCols, _ = shift(fk.refCols)
				child.fks[j] = &nfk
			}
		}
		d.cat.putTable(child)
	}
	return nil
}

// pendingForeignKeyEvents names the table whose queued checks of foreign
// key fk of t, or of its clones on t's partitions, keep fk from being
// dropped (55006); "" when none are queued.
func (d *ddl) pendingForeignKeyEvents(t *tableDesc, fk *fkDesc) string {
	if pending, childSide := d.s.fkChecksPending(constraintKey{t.oid, fk.name}); pending {
		if ref := d.cat.tables[fk.refTable]; !childSide && ref != nil {
			return ref.name // the queued events are the referenced table's
		}
		return t.name
	}
	for _, ch := range d.cat.children(t.oid) {
		for _, cfk := range ch.fks {
			if cfk.parentName == fk.name {
				if on := d.pendingForeignKeyEvents(ch, cfk); on != "" {
					return on
				}
			}
		}
	}
	return ""
}

func (d *ddl) dropConstraint(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	name := cmd.Name
	d.cat.setComment(constraintCommentKey(t.oid, name), "")
	for j, ck := range t.checks {
		if ck.name == name {
			t.checks = append(t.checks[:j:j], t.checks[j+1:]...)
			return nil
		}
	}
	for j, fk := range t.fks {
		if fk.name == name {
			if fk.parentName != "" {
				return inheritedConstraintDrop(t, name)
			}
			if on := d.pendingForeignKeyEvents(t, fk); on != "" {
				return pgerror.Newf(pgerror.ObjectInUse, "cannot ALTER TABLE \"%s\" because it has pending trigger events", on)
			}
			t.fks = append(t.fks[:j:j], t.fks[j+1:]...)
			dropReferencedClones(t, map[string]bool{name: true})
			d.dropForeignKeyClones(t, name)
			return nil
		}
	}
	if name == t.pkName && t.pk != nil {
		if t.pkParent != 0 || t.pkIndex != nil && t.pkIndex.parent != 0 {
			return inheritedConstraintDrop(t, name)
		}
		if err := d.refuseDropOfGroupingKey(t, name, cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
			return err
		}
		oid := primaryKeyIndexOID(t)
		if err := d.dropDependentForeignKeys(t, d.keyDependents(t, oid), fmt.Sprintf("constraint %s on table %s", name, t.name),
			"index "+name, cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
			return err
		}
		if err := d.dropPrimaryKey(t); err != nil {
			return err
		}
		return d.dropPartitionKeyClones(t, oid, fmt.Sprintf("constraint %s on table %s", name, t.name), cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE)
	}
	for _, ix := range t.indexes {
		if ix.name == name && ix.constraint {
			if ix.parent != 0 {
				return inheritedConstraintDrop(t, name)
			}
			if err := d.dropDependentForeignKeys(t, d.keyDependents(t, ix.oid), fmt.Sprintf("constraint %s on table %s", name, t.name),
				"index "+name, cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
				return err
			}
			if err := d.dropKeyIndex(t, ix); err != nil {
				return err
			}
			return d.dropPartitionKeyClones(t, ix.oid, fmt.Sprintf("constraint %s on table %s", name, t.name), cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE)
		}
	}
	if err := refuseDropOfTriggerConstraint(t, name); err != nil {
		return err
	}
	if cmd.MissingOk {
		d.notice(pgerror.SuccessfulCompletion, "constraint \"%s\" of relation \"%s\" does not exist, skipping", name, t.name)
		return nil
	}
	return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, t.name)
}

// refuseDropOfGroupingKey fails the drop of t's primary key name while a
// view's or materialized view's GROUP BY relies on it to read t's other
// columns: PostgreSQL's 2BP01 (naming each in OID order), or with
// CASCADE a refusal, since fickle drops no view here.
func (d *ddl) refuseDropOfGroupingKey(t *tableDesc, name string, cascade bool) error {
	type dependent struct {
		oid        uint32
		kind, name string
	}
	var deps []dependent
	for _, v := range sortedViews(d.cat) {
		if slices.Contains(v.keyDeps, t.oid) {
			deps = append(deps, dependent{v.oid, "view", v.name})
		}
	}
	for _, mv := range sortedMatviews(d.cat) {
		if slices.Contains(mv.matview.keyDeps, t.oid) {
			deps = append(deps, dependent{mv.oid, "materialized view", mv.name})
		}
	}
	if len(deps) == 0 {
		return nil
	}
	if cascade {
		return pgerror.Unsupported("dropping with CASCADE a primary key that a view's GROUP BY relies on")
	}
	slices.SortFunc(deps, func(a, b dependent) int { return cmp.Compare(a.oid, b.oid) })
	lines := make([]string, len(deps))
	for i, dep := range deps {
		lines[i] = fmt.Sprintf("%s %s depends on constraint %s on table %s", dep.kind, dep.name, name, t.name)
	}
	return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop constraint %s on table %s because other objects depend on it", name, t.name).
		WithDetail("%s", strings.Join(lines, "\n")).
		WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}

// dropKeyIndex drops ix, the index of a PRIMARY KEY, UNIQUE or EXCLUDE
// constraint of t, with its comment.
func (d *ddl) dropKeyIndex(t *tableDesc, ix *indexDesc) error {
	if err := d.dropStoreIndex(ix.id); err != nil {
		return err
	}
	t.indexes = removeIndex(t.indexes, ix)
	delete(d.cat.schemas[t.schema].indexes, ix.name)
	d.cat.dropComments(ix.oid)
	return nil
}

// dropPartitionKeyClones drops, down the partitions of t, the PRIMARY KEY
// and UNIQUE constraints linked to t's dropped constraint index oid: as in
// PostgreSQL they go with it, whether made from it or attached to it, and
// so do the foreign keys that reference them (with cascade; else 2BP01
// names what, the constraint the statement drops).
func (d *ddl) dropPartitionKeyClones(t *tableDesc, oid uint32, what string, cascade bool) error {
	if t.part == nil {
		return nil
	}
	for _, ch := range d.cat.children(t.oid) {
		nc := ch.clone()
		if nc.pk != nil && nc.pkParent == oid {
			pkOID := primaryKeyIndexOID(nc)
			if err := d.dropDependentForeignKeys(nc, d.keyDependents(nc, pkOID), what, "index "+nc.pkName, cascade); err != nil {
				return err
			}
			if err := d.dropPrimaryKey(nc); err != nil {
				return err
			}
			if err := d.dropPartitionKeyClones(nc, pkOID, what, cascade); err != nil {
				return err
			}
		}
		for _, ix := range slices.Clone(nc.indexes) {
			if ix.parent == oid && ix.constraint {
				if err := d.dropDependentForeignKeys(nc, d.keyDependents(nc, ix.oid), what, "index "+ix.name, cascade); err != nil {
					return err
				}
				if err := d.dropKeyIndex(nc, ix); err != nil {
					return err
				}
				if err := d.dropPartitionKeyClones(nc, ix.oid, what, cascade); err != nil {
					return err
				}
			}
		}
		d.cat.putTable(nc)
	}
	return nil
}

func (d *ddl) setDefault(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	i, err := d.column(t, cmd.Name)
	if err != nil {
		return err
	}
	if t.cols[i].generated != nil {
		return generatedDefaultError(t, t.cols[i], cmd.Def != nil)
	}
	if t.cols[i].identity != 0 {
		e := identityColumnError(t, t.cols[i])
		if cmd.Def == nil {
			e = e.WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
		}
		return e
	}
	nc := *t.cols[i]
	nc.def = b.s.qualifiedCalls(b.cat, cmd.Def)
	if cmd.Def != nil {
		if err := b.unplaced(func() error {
			def, err := b.defaultExpr(&nc, nc.def)
			if err != nil {
				return err
			}
			return d.readDefaultLiteral(b, &nc, nc.def, def)
		}); err != nil {
			return err
		}
		if b.storesNoDefault(&nc, cmd.Def) {
			nc.def = nil
		}
	}
	t.cols[i] = &nc
	return nil
}

func (d *ddl) setNotNull(t *tableDesc, cmd *pg_query.AlterTableCmd, set bool) error {
	i, err := d.column(t, cmd.Name)
	if err != nil {
		return err
	}
	if !set {
		if t.cols[i].identity != 0 {
			return identityColumnError(t, t.cols[i])
		}
		for _, c := range t.pk {
			if c == i {
				return pgerror.Newf(pgerror.InvalidTableDefinition, "column \"%s\" is in a primary key", cmd.Name)
			}
		}
		if ix := t.indexByOID(t.replicaIndex); t.replicaIdentity == 'i' && ix != nil && slices.Contains(ix.cols, i) {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "column \"%s\" is in index used as replica identity", cmd.Name)
		}
		if t.bound != nil {
			p := d.cat.tables[t.parents[0]]
			if j := p.colIndex(cmd.Name); j >= 0 && p.cols[j].notNull {
				return pgerror.Newf(pgerror.InvalidTableDefinition, "column \"%s\" is marked NOT NULL in parent table", cmd.Name)
			}
		}
	} else if !d.deferNoNulls(t, i) {
		if err := d.checkNoNulls(t, i); err != nil {
			return err
		}
	}
	nc := *t.cols[i]
	nc.notNull = set
	t.cols[i] = &nc
	return nil
}

// alteredTable finds the table an ALTER names; when there is none, nil
// and, with IF EXISTS (missingOk), a notice instead of 42P01.
func (d *ddl) alteredTable(rv *pg_query.RangeVar, missingOk bool) (*tableDesc, error) {
	if t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname); t != nil {
		return t, nil
	}
	if sys := d.s.systemRelationOf(d.cat, rv); sys != nil && sys.kind == relTable {
		return nil, pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied: \"%s\" is a system catalog", rv.Relname)
	}
	if missingOk {
		d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", rv.Relname)
		return nil, nil
	}
	return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
}

// rename supports ALTER TABLE ... RENAME TO and RENAME COLUMN.
func (d *ddl) rename(rs *pg_query.RenameStmt) error {
	if isRoutineObject(rs.RenameType) {
		return d.renameRoutine(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_TYPE || rs.RenameType == pg_query.ObjectType_OBJECT_DOMAIN {
		return d.renameType(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_ATTRIBUTE {
		return d.renameAttribute(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_SCHEMA {
		return d.renameSchema(rs)
	}
	if opclassKindWords(rs.RenameType) != "" {
		return d.renameOpclass(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_PUBLICATION {
		return d.renamePublication(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_EVENT_TRIGGER {
		return d.renameEventTrigger(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_FDW {
		return d.renameFDW(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_FOREIGN_SERVER {
		return d.renameServer(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_RULE {
		return d.renameRule(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_POLICY {
		return d.renamePolicy(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_TRIGGER {
		return d.renameTrigger(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_TABCONSTRAINT {
		return d.renameConstraint(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_DOMCONSTRAINT {
		return d.renameDomainConstraint(rs)
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_FOREIGN_TABLE {
		if _, done, err := d.foreignAlterTarget(rs.Relation, rs.MissingOk); done {
			return err
		}
		rs = proto.Clone(rs).(*pg_query.RenameStmt)
		rs.RenameType = pg_query.ObjectType_OBJECT_TABLE
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_VIEW && rs.Relation != nil {
		if v := d.s.lookupView(d.cat, rs.Relation.Schemaname, rs.Relation.Relname); v != nil {
			return d.renameView(v, rs.Newname)
		}
		if d.s.lookupTable(d.cat, rs.Relation.Schemaname, rs.Relation.Relname) != nil {
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a view", rs.Relation.Relname)
		}
		_, err := d.alteredTable(rs.Relation, rs.MissingOk)
		return err
	}
	renamesRelation := rs.RenameType == pg_query.ObjectType_OBJECT_TABLE || rs.RenameType == pg_query.ObjectType_OBJECT_INDEX
	if rs.RenameType == pg_query.ObjectType_OBJECT_SEQUENCE && rs.Relation != nil {
		if ok, err := d.renameSequence(rs); ok {
			return err
		}
		if d.s.lookupTable(d.cat, rs.Relation.Schemaname, rs.Relation.Relname) != nil {
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a sequence", rs.Relation.Relname)
		}
	}
	if rs.Relation == nil || !renamesRelation && rs.RenameType != pg_query.ObjectType_OBJECT_COLUMN && rs.RenameType != pg_query.ObjectType_OBJECT_SEQUENCE {
		return pgerror.Unsupported("ALTER ... RENAME of " + strings.TrimPrefix(rs.RenameType.String(), "OBJECT_"))
	}
	t := d.s.lookupTable(d.cat, rs.Relation.Schemaname, rs.Relation.Relname)
	if t == nil && rs.RenameType == pg_query.ObjectType_OBJECT_TABLE {
		if ok, err := d.renameSequence(rs); ok {
			return err
		}
	}
	if t == nil && renamesRelation {
		if ok, err := d.renameIndex(rs); ok {
			return err
		}
	}
	if t == nil && rs.RenameType == pg_query.ObjectType_OBJECT_COLUMN {
		if v := d.s.lookupView(d.cat, rs.Relation.Schemaname, rs.Relation.Relname); v != nil {
			return d.renameViewColumn(rs, v)
		}
	}
	if t == nil && rs.RenameType == pg_query.ObjectType_OBJECT_TABLE {
		// ALTER TABLE renames a view in PostgreSQL, as ALTER VIEW does.
		if v := d.s.lookupView(d.cat, rs.Relation.Schemaname, rs.Relation.Relname); v != nil {
			return d.renameView(v, rs.Newname)
		}
	}
	if t == nil {
		_, err := d.alteredTable(rs.Relation, rs.MissingOk)
		return err
	}
	if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
		return err
	}
	if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "table", t.name); err != nil {
		return err
	}
	nt := t.clone()
	if renamesRelation {
		if err := d.requireSchemaCreate(t.schema); err != nil {
			return err
		}
		if d.relationExists(t.schema, rs.Newname) {
			return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", rs.Newname)
		}
		delete(d.cat.schemas[t.schema].tables, t.name)
		nt.name = rs.Newname
		d.cat.putTable(nt)
		return d.requalifyReaders(t.oid, relationName{t.schema, t.name}, relationName{nt.schema, nt.name})
	}
	return d.renameColumn(rs, nt, false)
}

// renameView runs ALTER VIEW v RENAME TO name (or ALTER TABLE naming a
// view): the view keeps its OID, and the views and materialized views
// that read it read it under its new name.
func (d *ddl) renameView(v *viewDesc, name string) error {
	if err := d.s.requireOwner(relationOwner(d.cat, aclTable, v.oid), "view", v.name); err != nil {
		return err
	}
	if err := d.requireSchemaCreate(v.schema); err != nil {
		return err
	}
	if d.relationExists(v.schema, name) {
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", name)
	}
	sc := d.cat.schemas[v.schema]
	delete(sc.views, v.name)
	nv := *v
	nv.name = name
	sc.views[name] = &nv
	return d.requalifyReaders(v.oid, relationName{v.schema, v.name}, relationName{v.schema, name})
}

// renameColumn runs RENAME COLUMN on t, a clone of the catalog's
// descriptor, and on the descendants that inherit the column; recursing
// says the call comes from a parent.
func (d *ddl) renameColumn(rs *pg_query.RenameStmt, t *tableDesc, recursing bool) error {
	nt := t.clone()
	i := nt.colIndex(rs.Subname)
	if i < 0 {
		// RENAME COLUMN's wording, unlike ALTER TABLE's other subcommands',
		// names no relation.
		return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", rs.Subname)
	}
	if nt.colIndex(rs.Newname) >= 0 {
		return pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", rs.Newname, t.name)
	}
	if err := systemColumnName(rs.Newname); err != nil {
		return err
	}
	if table, _ := d.cat.typeUser(t.rowType); table != "" {
		return pgerror.Unsupported("RENAME COLUMN on a table whose row type a column of another table uses")
	}
	if err := keyColumnChange(nt, rs.Subname, "rename"); err != nil {
		return err
	}
	if err := d.renameInheritedColumn(rs, nt, recursing); err != nil {
		return err
	}
	if err := d.renameViewColumnRefs(t, rs.Subname, rs.Newname); err != nil {
		return err
	}
	if err := d.renameMatviewColumnRefs(t, rs.Subname, rs.Newname); err != nil {
		return err
	}
	for _, p := range nt.policies {
		if p.using != nil && containsSubLink(p.using) || p.check != nil && containsSubLink(p.check) {
			return pgerror.Unsupported(fmt.Sprintf("RENAME COLUMN of a table whose policy %s has a subquery", p.name))
		}
	}
	nc := *nt.cols[i]
	nc.name = rs.Newname
	nt.cols[i] = &nc
	rename := func(expr *pg_query.Node, qualifiers ...string) *pg_query.Node {
		return renamedColumnRefs(expr, rs.Subname, rs.Newname, qualifiers)
	}
	for j, c := range nt.cols {
		if c.generated != nil {
			gc := *c
			gc.generated = rename(c.generated, t.name)
			nt.cols[j] = &gc
		}
	}
	for j, ck := range nt.checks {
		nk := *ck
		nk.expr = rename(ck.expr, t.name)
		nk.text = deparseExpr(nk.expr)
		nt.checks[j] = &nk
	}
	for j, p := range nt.policies {
		np := *p
		np.using, np.check = rename(p.using, t.name), rename(p.check, t.name)
		nt.policies[j] = &np
	}
	for j, tr := range nt.triggers {
		if tr.when != nil {
			ntr := *tr
			ntr.when = rename(tr.when, "new", "old")
			nt.triggers[j] = &ntr
		}
	}
	d.renamePublicationColumn(nt, rs.Subname, rs.Newname)
	renameColumnStats(nt, rs.Subname, rs.Newname)
	for j, ix := range nt.indexes {
		if nix := ix.renamedIndexColumn(rs.Subname, rs.Newname); nix != ix {
			nt.indexes[j] = nix
			d.cat.schemas[nt.schema].indexes[nix.name] = nix
		}
	}
	d.cat.putTable(nt)
	return nil
}

// renamedColumnRefs returns a copy of expr (nil for nil) whose references
// to column from, bare or qualified by one of qualifiers (a trigger's NEW
// and OLD), name column to: the stored expressions of a table follow a
// renamed column, as PostgreSQL's, which refer to columns by number, do.
func renamedColumnRefs(expr *pg_query.Node, from, to string, qualifiers []string) *pg_query.Node {
	if expr == nil {
		return nil
	}
	expr = proto.Clone(expr).(*pg_query.Node)
	walk(expr, func(n *pg_query.Node) bool {
		cr := n.GetColumnRef()
		if cr == nil {
			return true
		}
		f := cr.Fields
		if len(f) == 2 && !slices.Contains(qualifiers, f[0].GetString_().GetSval()) || len(f) > 2 {
			return true
		}
		if s := f[len(f)-1].GetString_(); s != nil && s.Sval == from {
			s.Sval = to
		}
		return true
	})
	return expr
}

// renameViewColumnRefs makes the queries of the views that read column
// from of t name it to, where renamedColumnQuery can (a view's columns keep
// their names); it refuses the rename (0A000) for any other view that reads
// the column.
func (d *ddl) renameViewColumnRefs(t *tableDesc, from, to string) error {
	for _, v := range sortedViews(d.cat) {
		if !slices.Contains(v.deps, t.oid) || !viewNamesColumn(v, from) {
			continue
		}
		q := renamedColumnQuery(d.cat, v.query, v.deps, t, from, to)
		if q == nil {
			return pgerror.Unsupported(fmt.Sprintf("RENAME COLUMN of a column that view %s reads", v.name))
		}
		nv := *v
		nv.query = q
		d.cat.schemas[v.schema].views[v.name] = &nv
	}
	return nil
}

// renameViewColumn runs ALTER VIEW ... RENAME COLUMN: the view's column
// takes the new name (pg_get_viewdef then prints the old expression AS it).
// A view or materialized view reading the column by its name is refused
// (0A000): its query keeps names, where PostgreSQL's keeps numbers.
func (d *ddl) renameViewColumn(rs *pg_query.RenameStmt, v *viewDesc) error {
	if err := d.s.requireOwner(v.ownerRole(), "view", v.name); err != nil {
		return err
	}
	i := slices.Index(v.colNames(), rs.Subname)
	if i < 0 {
		return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", rs.Subname)
	}
	if slices.Contains(v.colNames(), rs.Newname) {
		return pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", rs.Newname, v.name)
	}
	for _, o := range sortedViews(d.cat) {
		if slices.Contains(o.deps, v.oid) && viewNamesColumn(o, rs.Subname) {
			return pgerror.Unsupported(fmt.Sprintf("RENAME COLUMN of a column that view %s reads", o.name))
		}
	}
	for _, mv := range sortedMatviews(d.cat) {
		if slices.Contains(mv.matview.deps, v.oid) && queryNamesColumn(mv.matview.query, rs.Subname) {
			return pgerror.Unsupported(fmt.Sprintf("RENAME COLUMN of a column that materialized view %s reads", mv.name))
		}
	}
	nv := *v
	nv.cols = slices.Clone(v.cols)
	nv.cols[i].name = rs.Newname
	d.cat.schemas[v.schema].views[v.name] = &nv
	return nil
}

// viewReadingColumn returns a view that reads t and names a column called
// name (a view's query keeps column names, where PostgreSQL's keeps
// column numbers), nil when none does.
func (d *ddl) viewReadingColumn(t *tableDesc, name string) *viewDesc {
	for _, v := range sortedViews(d.cat) {
		if slices.Contains(v.deps, t.oid) && viewNamesColumn(v, name) {
			return v
		}
	}
	return nil
}

// viewNamesColumn reports whether v's query has a column reference named
// name.
func viewNamesColumn(v *viewDesc, name string) bool {
	found := false
	walk(v.query, func(n *pg_query.Node) bool {
		if cr := n.GetColumnRef(); cr != nil {
			if s := cr.Fields[len(cr.Fields)-1].GetString_(); s != nil && s.Sval == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// dropOwnedSequences drops the sequences column attnum of t owns, as
// PostgreSQL drops them with the column.
func (d *ddl) dropOwnedSequences(t *tableDesc, attnum int16) {
	sc := d.cat.schemas[t.schema]
	for n, q := range sc.seqs {
		if owner, col := q.owner(); owner == t.oid && col == attnum {
			delete(sc.seqs, n)
			d.cat.dropComments(q.oid)
			d.cat.dropRelationACL(q.oid)
		}
	}
}

// ownerOnly reports whether every command of at is OWNER TO.
func ownerOnly(at *pg_query.AlterTableStmt) bool {
	for _, c := range at.Cmds {
		if c.GetAlterTableCmd().GetSubtype() != pg_query.AlterTableType_AT_ChangeOwner {
			return false
		}
	}
	return len(at.Cmds) > 0
}

// changeOwner runs ALTER TABLE/SEQUENCE/INDEX/VIEW ... OWNER TO role. fickle
// records a table's owner only for its default privileges (the catalog
// shows the bootstrap superuser as every object's owner), so it checks,
// as PostgreSQL does, that the relation exists and is of the kind the
// statement names (ALTER TABLE accepts every kind), and gives a table to
// the role when it exists; any role name is accepted, so that pg_dump
// output loads without its roles.
func (d *ddl) changeOwner(at *pg_query.AlterTableStmt) error {
	rv := at.Relation
	if rv.Schemaname != "" && d.cat.schemas[rv.Schemaname] == nil {
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", rv.Schemaname)
	}
	path := d.s.searchPath()
	if rv.Schemaname != "" {
		path = []string{rv.Schemaname}
	}
	kind, ok := relationKindIn(d.cat, path, rv.Relname)
	if !ok {
		if at.MissingOk {
			d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", rv.Relname)
			return nil
		}
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	want := map[pg_query.ObjectType]string{pg_query.ObjectType_OBJECT_SEQUENCE: "a sequence",
		pg_query.ObjectType_OBJECT_INDEX: "an index", pg_query.ObjectType_OBJECT_VIEW: "a view"}
	wantKind := map[pg_query.ObjectType]relationKind{pg_query.ObjectType_OBJECT_SEQUENCE: relSequence,
		pg_query.ObjectType_OBJECT_INDEX: relIndex, pg_query.ObjectType_OBJECT_VIEW: relView}
	if k, named := wantKind[at.Objtype]; named && k != kind {
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not %s", rv.Relname, want[at.Objtype])
	}
	if oid, kind, _ := relationLookup(d.cat, path, rv.Relname); kind != relIndex && oid >= firstUserOID {
		if err := d.ownerChangeAllowed(at, uint32(oid), kind); err != nil {
			return err
		}
	}
	// A relation given to an existing role: that role now holds the
	// owner's privileges (a view's tables are read with them), and the
	// grants follow it.
	oid, _, _ := relationLookup(d.cat, path, rv.Relname)
	for _, c := range at.Cmds {
		spec := c.GetAlterTableCmd().GetNewowner()
		if r := d.s.roleNamed(d.s.roleSpecName(spec.GetRoletype().String(), spec.GetRolename())); r != nil && kind != relIndex {
			d.giveRelation(uint32(oid), r.oid)
		}
	}
	return nil
}

// ownerChangeAllowed is the permission check of ALTER TABLE, VIEW or
// SEQUENCE ... OWNER TO, PostgreSQL 15's: unless a superuser runs it or
// the owner stays the same, the role running it must act as the owner,
// belong to the new owning role, and that role must hold CREATE on the
// relation's schema.
func (d *ddl) ownerChangeAllowed(at *pg_query.AlterTableStmt, oid uint32, kind relationKind) error {
	role := d.s.currentRole()
	if d.s.isSuperuser(role) {
		return nil
	}
	acl, noun := aclTable, "table"
	switch kind {
	case relSequence:
		acl, noun = aclSequence, "sequence"
	case relView:
		noun = "view"
	}
	owner := relationOwner(d.cat, acl, oid)
	for _, c := range at.Cmds {
		spec := c.GetAlterTableCmd().GetNewowner()
		r := d.s.roleNamed(d.s.roleSpecName(spec.GetRoletype().String(), spec.GetRolename()))
		if r != nil && r.oid == owner {
			continue
		}
		if err := d.s.requireOwner(owner, noun, at.Relation.Relname); err != nil {
			return err
		}
		if r == nil {
			continue
		}
		if !d.s.belongsTo(role, r.oid) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "must be member of role \"%s\"", r.name)
		}
		if schema, _, ok := relationByOid(d.cat, int64(oid)); ok && d.cat.schemas[schema] != nil &&
			!d.s.hasPrivilege(r.oid, aclSchema, d.cat.schemas[schema].oid, []byte{'C'}) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", schema)
		}
	}
	return nil
}

// addIdentity runs ALTER COLUMN ... ADD GENERATED ... AS IDENTITY, as
// pg_dump writes every identity column: the column, NOT NULL and without a
// default, gets a sequence of its own.
func (d *ddl) addIdentity(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	i, err := d.column(t, cmd.Name)
	if err != nil {
		return err
	}
	col := *t.cols[i]
	switch col.typ.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8:
	default:
		return pgerror.New(pgerror.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	switch {
	case col.identity != 0:
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" is already an identity column", col.name, t.name)
	case col.def != nil:
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" already has a default value", col.name, t.name)
	case !col.notNull:
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" must be declared NOT NULL before identity can be added", col.name, t.name)
	}
	c := cmd.Def.GetConstraint()
	col.identity = c.GeneratedWhen[0]
	if err := d.columnSequence(t, &col, c.Options); err != nil {
		return err
	}
	t.cols[i] = &col
	return nil
}

// identityColumnError is PostgreSQL's refusal to change the default or
// nullability of an identity column.
func identityColumnError(t *tableDesc, col *columnDesc) *pgerror.Error {
	return pgerror.Newf(pgerror.SyntaxError, "column \"%s\" of relation \"%s\" is an identity column", col.name, t.name)
}

// identitySequence returns the sequence behind identity column col of t.
func (d *ddl) identitySequence(t *tableDesc, col *columnDesc) *sequence {
	for _, q := range d.cat.ownedSequences(t) {
		if _, attnum := q.owner(); attnum == col.attnum {
			return q
		}
	}
	return nil
}

// alterIdentitySequence applies ALTER SEQUENCE options to the sequence of
// identity column col, as PostgreSQL turns ALTER COLUMN ... SET options and
// a type change into an ALTER SEQUENCE of it.
func (d *ddl) alterIdentitySequence(t *tableDesc, col *columnDesc, opts []*pg_query.Node) error {
	q := d.identitySequence(t, col)
	if q == nil {
		return pgerror.Newf(pgerror.InternalError, "no sequence found for identity column \"%s\"", col.name)
	}
	if err := d.lockSequence(q, isolation.TableLockShareRowExclusive); err != nil {
		return err
	}
	return d.replaceSequence(q).alter(opts, d.sequenceTypeOf)
}

// setIdentity runs ALTER COLUMN ... SET GENERATED { ALWAYS | BY DEFAULT }
// and SET / RESTART of the identity sequence's options.
func (d *ddl) setIdentity(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	i, err := d.column(t, cmd.Name)
	if err != nil {
		return err
	}
	col := *t.cols[i]
	if col.identity == 0 {
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" is not an identity column", col.name, t.name)
	}
	var seqOpts []*pg_query.Node
	for _, o := range cmd.Def.GetList().GetItems() {
		if de := o.GetDefElem(); de != nil && de.Defname == "generated" {
			col.identity = byte(de.Arg.GetInteger().Ival)
			continue
		}
		seqOpts = append(seqOpts, o)
	}
	if len(seqOpts) > 0 {
		if err := d.alterIdentitySequence(t, &col, seqOpts); err != nil {
			return err
		}
	}
	t.cols[i] = &col
	return nil
}

// dropIdentity runs ALTER COLUMN ... DROP IDENTITY [IF EXISTS]: the column
// keeps its values and NOT NULL, its sequence is dropped.
func (d *ddl) dropIdentity(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	i, err := d.column(t, cmd.Name)
	if err != nil {
		return err
	}
	col := *t.cols[i]
	if col.identity == 0 {
		if cmd.MissingOk {
			d.notice(pgerror.SuccessfulCompletion, "column \"%s\" of relation \"%s\" is not an identity column, skipping", col.name, t.name)
			return nil
		}
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" is not an identity column", col.name, t.name)
	}
	if q := d.identitySequence(t, &col); q != nil {
		if err := d.lockSequence(q, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
	}
	d.dropOwnedSequences(t, col.attnum)
	col.identity, col.def = 0, nil
	t.cols[i] = &col
	return nil
}

// clusterOn runs ALTER TABLE t CLUSTER ON name: the index, one of t's in
// its schema, becomes the one CLUSTER would order t by. fickle keeps no
// physical order, so only pg_index.indisclustered shows it.
func (d *ddl) clusterOn(t *tableDesc, name string) error {
	if t.pk != nil && !t.hidden && t.pkName == name {
		t.clusteredOn = primaryKeyIndexOID(t)
		return nil
	}
	ix := d.cat.schemas[t.schema].indexes[name]
	switch {
	case ix == nil:
		return pgerror.Newf(pgerror.UndefinedObject, "index \"%s\" for table \"%s\" does not exist", name, t.name)
	case ix.table != t.oid:
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not an index for table \"%s\"", name, t.name)
	case ix.pred != nil:
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot cluster on partial index \"%s\"", name)
	}
	t.clusteredOn = ix.oid
	return nil
}

// tableOnlyActions name the ALTER TABLE actions a view cannot take, in
// PostgreSQL's words for its "cannot be performed on relation" error.
var tableOnlyActions = map[pg_query.AlterTableType]string{
	pg_query.AlterTableType_AT_AddColumn:          "ADD COLUMN",
	pg_query.AlterTableType_AT_DropColumn:         "DROP COLUMN",
	pg_query.AlterTableType_AT_SetNotNull:         "ALTER COLUMN ... SET NOT NULL",
	pg_query.AlterTableType_AT_DropNotNull:        "ALTER COLUMN ... DROP NOT NULL",
	pg_query.AlterTableType_AT_AlterColumnType:    "ALTER COLUMN ... SET DATA TYPE",
	pg_query.AlterTableType_AT_SetStorage:         "ALTER COLUMN ... SET STORAGE",
	pg_query.AlterTableType_AT_SetStatistics:      "ALTER COLUMN ... SET STATISTICS",
	pg_query.AlterTableType_AT_SetCompression:     "ALTER COLUMN ... SET COMPRESSION",
	pg_query.AlterTableType_AT_AddIdentity:        "ALTER COLUMN ... ADD IDENTITY",
	pg_query.AlterTableType_AT_DropIdentity:       "ALTER COLUMN ... DROP IDENTITY",
	pg_query.AlterTableType_AT_AddConstraint:      "ADD CONSTRAINT",
	pg_query.AlterTableType_AT_DropConstraint:     "DROP CONSTRAINT",
	pg_query.AlterTableType_AT_ValidateConstraint: "VALIDATE CONSTRAINT",
	pg_query.AlterTableType_AT_AlterConstraint:    "ALTER CONSTRAINT",
	pg_query.AlterTableType_AT_AddInherit:         "INHERIT",
	pg_query.AlterTableType_AT_DropInherit:        "NO INHERIT",
	pg_query.AlterTableType_AT_AttachPartition:    "ATTACH PARTITION",
	pg_query.AlterTableType_AT_DetachPartition:    "DETACH PARTITION",
	pg_query.AlterTableType_AT_SetLogged:          "SET LOGGED",
	pg_query.AlterTableType_AT_SetUnLogged:        "SET UNLOGGED",
	pg_query.AlterTableType_AT_EnableTrig:         "ENABLE TRIGGER",
	pg_query.AlterTableType_AT_EnableAlwaysTrig:   "ENABLE ALWAYS TRIGGER",
	pg_query.AlterTableType_AT_EnableReplicaTrig:  "ENABLE REPLICA TRIGGER",
	pg_query.AlterTableType_AT_DisableTrig:        "DISABLE TRIGGER",
	pg_query.AlterTableType_AT_EnableTrigAll:      "ENABLE TRIGGER ALL",
	pg_query.AlterTableType_AT_DisableTrigAll:     "DISABLE TRIGGER ALL",
	pg_query.AlterTableType_AT_EnableTrigUser:     "ENABLE TRIGGER USER",
	pg_query.AlterTableType_AT_DisableTrigUser:    "DISABLE TRIGGER USER",
}

// tableActionOnView fails with PostgreSQL's 42809 when ALTER TABLE names a
// view and its first command is one only tables take (DROP COLUMN, SET
// NOT NULL, ...).
func (d *ddl) tableActionOnView(at *pg_query.AlterTableStmt) error {
	v := d.alteredView(at)
	if v == nil || at.Objtype != pg_query.ObjectType_OBJECT_TABLE {
		return nil
	}
	for _, c := range at.Cmds {
		switch st := c.GetAlterTableCmd().GetSubtype(); st {
		case pg_query.AlterTableType_AT_ColumnDefault, pg_query.AlterTableType_AT_SetRelOptions,
			pg_query.AlterTableType_AT_ResetRelOptions, pg_query.AlterTableType_AT_ChangeOwner:
			continue
		default:
			if action, ok := tableOnlyActions[st]; ok {
				return pgerror.Newf(pgerror.WrongObjectType, "ALTER action %s cannot be performed on relation \"%s\"", action, v.name).
					WithDetail("This operation is not supported for views.")
			}
			return nil
		}
	}
	return nil
}
