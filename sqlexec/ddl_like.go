package sqlexec

import (
	"slices"

	"google.golang.org/protobuf/proto"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// This file runs the LIKE clause of CREATE TABLE: the new table gets the
// source table's columns (names, types, NOT NULL) and, with INCLUDING, its
// defaults, CHECK constraints, indexes and comments, as PostgreSQL's
// transformTableLikeClause copies them.

// likeOption is a bit of TableLikeClause.Options (PostgreSQL's
// CREATE_TABLE_LIKE_* flags).
type likeOption uint32

const (
	likeComments    likeOption = 1 << 0
	likeCompression likeOption = 1 << 1
	likeConstraints likeOption = 1 << 2
	likeDefaults    likeOption = 1 << 3
	likeGenerated   likeOption = 1 << 4
	likeIdentity    likeOption = 1 << 5
	likeIndexes     likeOption = 1 << 6
	likeStatistics  likeOption = 1 << 7
)

// likeClause appends the columns LIKE copies to t, a table being created,
// and returns the constraints to add with the table's own, and what to do
// once the table exists (its copied indexes and comments).
func (d *ddl) likeClause(b *binder, t *tableDesc, lc *pg_query.TableLikeClause) ([]tableConstraint, func() error, error) {
	rv := lc.Relation
	src := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname)
	if src == nil {
		if d.s.lookupView(d.cat, rv.Schemaname, rv.Relname) != nil || d.s.lookupType(d.cat, rv.Schemaname, rv.Relname) != nil {
			return nil, nil, pgerror.Unsupported("CREATE TABLE ... (LIKE a view or a composite type)")
		}
		return nil, nil, b.errAt(pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv)), rv.Location)
	}
	if err := d.lockTable(src, isolation.TableLockAccessShare); err != nil {
		return nil, nil, err
	}
	opts := likeOption(lc.Options)
	attnums := map[int16]int16{} // the source's attnums to the new table's
	for _, c := range src.cols {
		if i := t.colIndex(c.name); i >= 0 {
			if t.cols[i].notLocal {
				return nil, nil, pgerror.Unsupported("CREATE TABLE ... (LIKE ...) of a column the table inherits")
			}
			return nil, nil, pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" specified more than once", c.name)
		}
		if c.identity != 0 && opts&likeIdentity != 0 {
			return nil, nil, pgerror.Unsupported("CREATE TABLE ... (LIKE ... INCLUDING IDENTITY) of an identity column")
		}
		col := &columnDesc{name: c.name, typ: c.typ, notNull: c.notNull, domain: c.domain, attnum: t.droppedAttnum + 1, collation: c.collation}
		for _, have := range t.cols {
			col.attnum = max(col.attnum, have.attnum+1)
		}
		if opts&likeCompression != 0 {
			col.compression = c.compression
		}
		if c.def != nil && opts&likeDefaults != 0 {
			col.def = proto.Clone(c.def).(*pg_query.Node)
		}
		if c.generated != nil && opts&likeGenerated != 0 {
			col.generated = proto.Clone(c.generated).(*pg_query.Node)
		}
		attnums[c.attnum] = col.attnum
		t.cols = append(t.cols, col)
	}
	var cons []tableConstraint
	if opts&likeConstraints != 0 {
		for _, ck := range src.checks {
			c := &pg_query.Constraint{Contype: pg_query.ConstrType_CONSTR_CHECK, Conname: ck.name,
				RawExpr: proto.Clone(ck.expr).(*pg_query.Node), IsNoInherit: ck.noInherit, InitiallyValid: true}
			cons = append(cons, tableConstraint{c: c})
		}
	}
	type copiedIndex struct {
		cols           []string
		unique, constr bool
		comment        string
		shape          *indexDesc // its options, of src's columns
	}
	var indexes []copiedIndex
	if opts&likeIndexes != 0 {
		if src.pk != nil {
			if _, ok := d.cat.comments[commentKey{classOID: oidPgClass, objOID: primaryKeyIndexOID(src)}]; ok && opts&likeComments != 0 {
				return nil, nil, pgerror.Unsupported("CREATE TABLE ... (LIKE ... INCLUDING COMMENTS) of a commented primary key")
			}
			opts := src.pkOptions
			if src.pkIndex != nil {
				opts = src.pkIndex.options
			}
			c := &pg_query.Constraint{Contype: pg_query.ConstrType_CONSTR_PRIMARY, Options: relOptionNodes(opts), Location: -1}
			for _, n := range colNameList(src, src.pk) {
				c.Keys = append(c.Keys, pg_query.MakeStrNode(n))
			}
			if src.pkIndex != nil {
				for _, n := range colNameList(src, src.pkIndex.include) {
					c.Including = append(c.Including, pg_query.MakeStrNode(n))
				}
			}
			cons = append(cons, tableConstraint{c: c})
		}
		for _, ix := range src.indexes {
			if ix == src.pkIndex {
				continue
			}
			indexes = append(indexes, copiedIndex{cols: ix.keyColumnNames(src), unique: ix.unique, constr: ix.constraint,
				comment: d.cat.comments[commentKey{classOID: oidPgClass, objOID: ix.oid}], shape: ix})
		}
	}
	after := func() error {
		for _, ci := range indexes {
			cols := make([]int, len(ci.cols))
			for i, n := range ci.cols {
				cols[i] = -1
				if !ci.shape.isExprKey(i) {
					cols[i] = t.colIndex(n)
				}
			}
			if t.part != nil && ci.unique && !ci.shape.exclusion {
				if err := checkPartitionedKey(t, cols, "UNIQUE"); err != nil {
					return err
				}
			}
			suffix := "idx"
			switch {
			case ci.shape.exclusion:
				suffix = "excl"
			case ci.constr:
				suffix = "key"
			}
			named := indexColumnNames(append(slices.Clip(ci.cols), colNameList(src, ci.shape.include)...))
			ix := &indexDesc{name: d.uniqueRelName(t.schema, t.name, indexNameAddition(named), suffix), table: t.oid, cols: cols, unique: ci.unique, constraint: ci.constr,
				pred: ci.shape.pred, exprs: ci.shape.exprs, exprNames: ci.shape.exprNames}
			ix.withOptionsOf(t, ci.shape, src)
			if ci.shape.exclusion {
				// The copy compares the same types with the same operators.
				ix.exclusion, ix.excl = true, ci.shape.excl
				ix.deferrable, ix.initiallyDeferred = ci.shape.deferrable, ci.shape.initiallyDeferred
			}
			if err := d.registerIndex(t, ix); err != nil {
				return err
			}
			if opts&likeComments != 0 {
				d.cat.setComment(commentKey{classOID: oidPgClass, objOID: ix.oid}, ci.comment)
			}
		}
		if opts&likeStatistics != 0 {
			d.copyStatsLike(src, t, opts&likeComments != 0)
		}
		if opts&likeComments != 0 {
			for from, to := range attnums {
				if text, ok := d.cat.comments[commentKey{classOID: oidPgClass, objOID: src.oid, subID: int32(from)}]; ok {
					d.cat.setComment(commentKey{classOID: oidPgClass, objOID: t.oid, subID: int32(to)}, text)
				}
			}
		}
		return nil
	}
	return cons, after, nil
}
