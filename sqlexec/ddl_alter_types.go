package sqlexec

import (
	"bytes"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// columnTypeChange is one ALTER COLUMN ... TYPE of a statement: column i
// becomes type to, its values computed by conv from the row as it was
// before the statement.
type columnTypeChange struct {
	i     int
	to    types.Type
	conv  func(row []any) (any, error)
	using bool
	// keyed marks a column of the primary key the store keys the table's
	// rows by: its converted values must keep their keys.
	keyed bool
}

// alterColumnType converts a column to its new type (alterColumnTypes).
func (d *ddl) alterColumnType(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	return d.alterColumnTypes(b, t, []*pg_query.AlterTableCmd{cmd})
}

// alterColumnTypeRun returns the ALTER COLUMN TYPE commands of a pass's
// items that run together from items[0]: the consecutive ones that alone
// says are the table's own.
func alterColumnTypeRun(items []alterItem, alone func(*pg_query.AlterTableCmd) bool) []*pg_query.AlterTableCmd {
	var run []*pg_query.AlterTableCmd
	for _, it := range items {
		c := it.cmd
		if c.GetSubtype() != pg_query.AlterTableType_AT_AlterColumnType || !alone(c) {
			break
		}
		run = append(run, c)
	}
	return run
}

// alterColumnTypes runs the ALTER COLUMN ... TYPE commands of one
// statement together, as PostgreSQL does: every USING expression reads the
// row as it was before the statement (so "alter a type text using b, alter
// b type int using a" swaps), every row is converted and checked in one
// pass over the latest committed state, and the indexes on the columns are
// rebuilt. The statement's DROP COLUMNs ran before (atPassDrop): a
// column both altered and dropped is missing (42703).
func (d *ddl) alterColumnTypes(b *binder, t *tableDesc, cmds []*pg_query.AlterTableCmd) error {
	orig := t.clone()
	var changes []columnTypeChange
	for _, cmd := range cmds {
		ch, err := d.columnTypeChange(b, orig, cmd)
		if err != nil {
			return err
		}
		if err := d.checkColumnTypeForViews(orig, cmd.Name); err != nil {
			return err
		}
		if slices.ContainsFunc(changes, func(c columnTypeChange) bool { return c.i == ch.i }) {
			return pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter type of column \"%s\" twice", cmd.Name)
		}
		if col := orig.cols[ch.i]; col.identity != 0 && col.typ != ch.to {
			switch ch.to.Oid {
			case types.OidInt2, types.OidInt4, types.OidInt8:
			default:
				return pgerror.New(pgerror.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
			}
			as := pg_query.MakeSimpleDefElemNode("as", &pg_query.Node{Node: &pg_query.Node_TypeName{TypeName: &pg_query.TypeName{
				Names: []*pg_query.Node{pg_query.MakeStrNode("pg_catalog"), pg_query.MakeStrNode(integerTypeNames[ch.to.Oid])}, Typemod: -1}}}, -1)
			if err := d.alterIdentitySequence(t, col, []*pg_query.Node{as}); err != nil {
				return err
			}
		}
		if orig.cols[ch.i].typ != ch.to || ch.using {
			changes = append(changes, ch)
		}
		coll, err := columnDefCollation(cmd.GetDef().GetColumnDef(), ch.to)
		if err != nil {
			return err
		}
		// A new type drops the column's COMPRESSION, as in PostgreSQL.
		if coll != t.cols[ch.i].collation || t.cols[ch.i].compression != "" {
			nc := *t.cols[ch.i]
			nc.collation, nc.compression = coll, ""
			t.cols[ch.i] = &nc
		}
	}
	if len(changes) == 0 {
		return nil
	}
	convert := func(row []any) ([]any, error) {
		nr := append([]any(nil), row...)
		for _, ch := range changes {
			v, err := ch.conv(row)
			if err != nil {
				return nil, err
			}
			nr[ch.i] = v
		}
		return nr, nil
	}
	keys := make([]*convertedKeys, len(changes))
	for k, ch := range changes {
		keys[k] = newConvertedKeys(orig, ch.i, ch.to)
	}
	indexRows, err := d.newConvertedIndexRows(orig, t, changes)
	if err != nil {
		return err
	}
	if err := d.scanRows(orig, func(row []any) error {
		for k, ch := range changes {
			v, err := ch.conv(row)
			if err != nil {
				return err
			}
			if v == nil && t.cols[ch.i].notNull {
				return nullValuesError(t, t.cols[ch.i])
			}
			if ch.keyed && (v == nil || !bytes.Equal(types.AppendKey(nil, t.cols[ch.i].typ, row[ch.i]), types.AppendKey(nil, ch.to, v))) {
				// The store keys the rows by their primary key.
				return pgerror.Unsupported("changing the type of a primary-key column in a way that changes its values")
			}
			if err := keys[k].add(row, v); err != nil {
				return err
			}
		}
		if indexRows == nil {
			return nil
		}
		nr, err := convert(row)
		if err != nil {
			return err
		}
		return indexRows.add(nr)
	}); err != nil {
		return err
	}
	for _, ch := range changes {
		nc := *t.cols[ch.i]
		nc.typ = ch.to
		if nc.def != nil {
			e, err := b.expr(nil, nc.def)
			if err != nil {
				return err
			}
			if _, err := b.coerce(e, ch.to, types.CastAssignment); err != nil {
				return pgerror.Newf(pgerror.DatatypeMismatch, "default for column \"%s\" cannot be cast automatically to type %s", nc.name, ch.to)
			}
		}
		if nc.generated != nil {
			if _, err := b.generationExpr(t, &nc); err != nil {
				return pgerror.Newf(pgerror.DatatypeMismatch, "generation expression for column \"%s\" cannot be cast automatically to type %s", nc.name, ch.to)
			}
		}
		t.cols[ch.i] = &nc
	}
	altered := make([]int, len(changes))
	for k, ch := range changes {
		altered[k] = ch.i
	}
	if err := d.recheckConstraints(t, altered, convert); err != nil {
		return err
	}
	if err := d.rewriteRows(t, func(r isolation.RowRewrite) []any {
		nr := append([]any(nil), r.Row...)
		for _, ch := range changes {
			v, err := ch.conv(r.Row)
			if err != nil {
				v = nil // an old version that no longer converts; the latest ones were checked
			}
			nr[ch.i] = v
		}
		return nr
	}); err != nil {
		return err
	}
	if err := d.rebuildColumnStats(t, altered); err != nil {
		return err
	}
	return d.rebuildIndexesOn(t, func(c int) bool { return slices.Contains(altered, c) })
}

// integerTypeNames are the catalog names of the types an identity column
// may have.
var integerTypeNames = map[types.Oid]string{types.OidInt2: "int2", types.OidInt4: "int4", types.OidInt8: "int8"}

// columnTypeChange checks one ALTER COLUMN ... TYPE against t, the table
// before the statement, and binds its conversion there.
func (d *ddl) columnTypeChange(b *binder, t *tableDesc, cmd *pg_query.AlterTableCmd) (columnTypeChange, error) {
	i, err := d.column(t, cmd.Name)
	if err != nil {
		return columnTypeChange{}, err
	}
	cd := cmd.Def.GetColumnDef()
	to, err := b.typeName(cd.TypeName)
	if err != nil {
		return columnTypeChange{}, err
	}
	if err := b.requireTypeNameUsage(cd.TypeName, uint32(to.Oid)); err != nil {
		return columnTypeChange{}, err
	}
	if b.domainNamed(cd.TypeName) != nil {
		return columnTypeChange{}, pgerror.Unsupported("ALTER COLUMN TYPE to a domain")
	}
	col := t.cols[i]
	// A foreign key keeps working across a change within a family of
	// types whose equal values have equal keys (integers, strings), as
	// with the int -> bigint migration of an id and its references.
	sameKeys := sameKeyFamily(col.typ, to)
	for _, fk := range t.fks {
		if slices.Contains(fk.cols, i) && !sameKeys {
			return columnTypeChange{}, pgerror.Unsupported("changing the type of a foreign-key column to a type of another family")
		}
	}
	for _, r := range d.cat.referencing(t.oid) {
		if slices.Contains(r.fk.refCols, i) && !sameKeys {
			return columnTypeChange{}, pgerror.Unsupported("changing the type of a referenced column to a type of another family")
		}
	}
	if err := generatedTypeChange(t, i, cd.RawDefault != nil); err != nil {
		return columnTypeChange{}, err
	}
	conv, using, err := d.columnConversion(b, t, i, cd.RawDefault, to)
	if err != nil {
		return columnTypeChange{}, err
	}
	return columnTypeChange{i: i, to: to, conv: conv, using: using, keyed: !t.hidden && slices.Contains(t.pk, i)}, nil
}

// sameKeyFamily reports whether a and b are types whose values keep their
// index keys when converted from one to the other: both integer types, or
// both text or varchar.
func sameKeyFamily(a, b types.Type) bool {
	family := func(t types.Type) int {
		switch t.Oid {
		case types.OidInt2, types.OidInt4, types.OidInt8:
			return 1
		case types.OidText, types.OidVarchar:
			return 2
		}
		return 0
	}
	return family(a) != 0 && family(a) == family(b)
}

// rebuildIndexesOn rebuilds t's indexes on a column that altered says
// changed type, under their names, comments and roles (CLUSTER ON,
// REPLICA IDENTITY). A partitioned
// table's indexes are rebuilt before its partitions' (the statement
// recurses down the tree), so a partition's rebuilt index links to its
// parent's successor.
func (d *ddl) rebuildIndexesOn(t *tableDesc, altered func(col int) bool) error {
	old := t.indexes
	t.indexes = nil
	for _, ix := range old {
		if !slices.ContainsFunc(ix.cols, altered) && !ix.readsColumnOf(t, altered) {
			t.indexes = append(t.indexes, ix)
			continue
		}
		if err := d.dropStoreIndex(ix.id); err != nil {
			return err
		}
		delete(d.cat.schemas[t.schema].indexes, ix.name)
		nix := *ix
		if err := d.registerIndex(t, &nix); err != nil {
			return err
		}
		conName, parent := "", &nix.parent
		if ix.constraint {
			conName = ix.name
		}
		if t.pkIndex == ix {
			t.pkIndex, parent = &nix, &t.pkParent
		}
		if p, ok := d.carryComments(t, ix.oid, nix.oid, *parent, conName); ok {
			*parent = p
		}
		if t.clusteredOn == ix.oid {
			t.clusteredOn = nix.oid
		}
		if t.replicaIndex == ix.oid {
			t.replicaIndex = nix.oid
		}
	}
	return nil
}

// rebuiltIndex is an index's successor after ALTER COLUMN TYPE: its OID,
// and the comment that the rebuilt indexes of its partitions take.
type rebuiltIndex struct {
	oid     uint32
	comment string
}

// carryComments gives the comments of an index that ALTER COLUMN TYPE
// rebuilt (from, now to; parent the index of the partitioned parent it
// belonged to, conName the constraint it backs) to its successor, as
// PostgreSQL 15 does: an index of its own keeps its comments, while a
// partition's index, rebuilt through its parent's, takes the comment of
// the tree's top index and its constraint loses its own. It returns the
// parent's successor when the parent was rebuilt by the statement.
func (d *ddl) carryComments(t *tableDesc, from, to, parent uint32, conName string) (uint32, bool) {
	key := func(oid uint32) commentKey { return commentKey{classOID: oidPgClass, objOID: oid} }
	p, inherited := d.rebuiltIndexes[parent]
	comment := p.comment
	if inherited {
		d.cat.dropComments(from)
		d.cat.setComment(key(to), comment)
		if conName != "" {
			d.cat.setComment(constraintCommentKey(t.oid, conName), "")
		}
	} else {
		comment = d.cat.comments[key(from)]
		d.cat.moveComments(from, to)
	}
	if d.rebuiltIndexes == nil {
		d.rebuiltIndexes = map[uint32]rebuiltIndex{}
	}
	d.rebuiltIndexes[from] = rebuiltIndex{oid: to, comment: comment}
	return p.oid, inherited
}
