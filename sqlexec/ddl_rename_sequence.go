package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// renameSequence runs ALTER SEQUENCE ... RENAME TO, and ALTER TABLE ...
// RENAME TO naming a sequence, under an ACCESS EXCLUSIVE lock on it as in
// PostgreSQL. The renamed descriptor shares the counter of the one it
// replaces. Column defaults call nextval with the
// sequence's name as text where PostgreSQL keeps its OID, so the defaults
// naming it are rewritten to the new name. ok is false when rs names no
// sequence.
func (d *ddl) renameSequence(rs *pg_query.RenameStmt) (ok bool, err error) {
	q := d.s.lookupSequence(d.cat, rs.Relation.Schemaname, rs.Relation.Relname)
	if q == nil {
		return false, nil
	}
	if err := d.s.requireOwner(relationOwner(d.cat, aclSequence, q.oid), "sequence", q.name); err != nil {
		return true, err
	}
	if err := d.requireSchemaCreate(q.schema); err != nil {
		return true, err
	}
	if d.relationExists(q.schema, rs.Newname) {
		return true, pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", rs.Newname)
	}
	if err := d.lockSequence(q, isolation.TableLockAccessExclusive); err != nil {
		return true, err
	}
	nq := *q
	nq.name = rs.Newname
	d.followSequence(q, &nq)
	seqs := d.cat.schemas[q.schema].seqs
	delete(seqs, q.name)
	seqs[nq.name] = &nq
	return true, nil
}

// followSequence rewrites the column defaults calling nextval of sequence
// q to name renamed, its successor under another name or schema; the
// catalog must still name q as it was.
func (d *ddl) followSequence(q, renamed *sequence) {
	for _, t := range sortedTables(d.cat) {
		var nt *tableDesc
		for i, col := range t.cols {
			def, changed := d.renamedNextval(col.def, q, renamed)
			if !changed {
				continue
			}
			if nt == nil {
				nt = t.clone()
			}
			nc := *nt.cols[i]
			nc.def = def
			nt.cols[i] = &nc
		}
		if nt != nil {
			d.cat.putTable(nt)
		}
	}
}

// renamedNextval returns def with every nextval of old (named as text, or
// as text cast to regclass) naming renamed instead; changed is false when
// def calls no nextval of old. def itself is left as it is.
func (d *ddl) renamedNextval(def *pg_query.Node, old, renamed *sequence) (out *pg_query.Node, changed bool) {
	if def == nil {
		return def, false
	}
	names := catalogNames{s: d.s, cat: d.cat}
	out = proto.Clone(def).(*pg_query.Node)
	walk(out, func(n *pg_query.Node) bool {
		s := nextvalText(n.GetFuncCall())
		if s == nil {
			return true
		}
		if oid, err := names.RelationOid(s.Sval); err == nil && uint32(oid) == old.oid {
			s.Sval = nextvalDefault(renamed).GetFuncCall().Args[0].GetAConst().GetSval().Sval
			changed = true
		}
		return true
	})
	return out, changed
}

// nextvalText is the text naming the sequence of a call nextval('name') or
// nextval('name'::regclass), as column defaults hold it; nil when fc is
// no such call.
func nextvalText(fc *pg_query.FuncCall) *pg_query.String {
	if fc == nil || lastName(fc.Funcname) != "nextval" || len(fc.Args) != 1 {
		return nil
	}
	arg := fc.Args[0]
	if tc := arg.GetTypeCast(); tc != nil {
		arg = tc.Arg
	}
	return arg.GetAConst().GetSval()
}
