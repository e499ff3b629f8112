package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// expandValuesStars returns ins with each "v.*" item of its VALUES lists,
// where v is a composite variable or parameter of the routine the
// statement is in (a trigger's NEW, an SQL function's row argument), replaced
// by the variable's fields v.f1, v.f2, ..., as PostgreSQL expands a star in
// a VALUES list. ins itself is not changed; other items stay as they are.
func (b *binder) expandValuesStars(ins *pg_query.InsertStmt) *pg_query.InsertStmt {
	st := ins.GetSelectStmt().GetSelectStmt()
	if st == nil || len(st.ValuesLists) == 0 || b.vars == nil {
		return ins
	}
	var lists []*pg_query.Node
	for i, l := range st.ValuesLists {
		items := l.GetList().GetItems()
		var out []*pg_query.Node
		for j, it := range items {
			fields := b.routineVarFields(it)
			if fields == nil {
				if out != nil {
					out = append(out, it)
				}
				continue
			}
			if out == nil {
				out = append(out, items[:j]...)
			}
			out = append(out, fields...)
		}
		if out == nil {
			if lists != nil {
				lists = append(lists, l)
			}
			continue
		}
		if lists == nil {
			lists = append(lists, st.ValuesLists[:i]...)
		}
		lists = append(lists, &pg_query.Node{Node: &pg_query.Node_List{List: &pg_query.List{Items: out}}})
	}
	if lists == nil {
		return ins
	}
	ins = proto.Clone(ins).(*pg_query.InsertStmt)
	ins.SelectStmt.GetSelectStmt().ValuesLists = lists
	return ins
}

// routineVarFields returns the field selections ((v).f1, ...) of the
// routine variable that the star reference n ("v.*") names, nil when n is
// not such a reference or the variable is not of a composite type of known
// fields.
func (b *binder) routineVarFields(n *pg_query.Node) []*pg_query.Node {
	cr := n.GetColumnRef()
	if cr == nil || !isStarRef(cr) || len(cr.Fields) < 2 {
		return nil
	}
	for _, f := range cr.Fields[:len(cr.Fields)-1] {
		if f.GetString_() == nil {
			return nil
		}
	}
	prefix := strs(cr.Fields[:len(cr.Fields)-1])
	v, ok := b.routineVar(prefix, cr.Location)
	if !ok {
		return nil
	}
	fields, ok := v.typ.Fields()
	if !ok {
		return nil
	}
	out := make([]*pg_query.Node, len(fields))
	for i, f := range fields {
		ref := &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: cr.Fields[:len(cr.Fields)-1], Location: cr.Location}}}
		out[i] = &pg_query.Node{Node: &pg_query.Node_AIndirection{AIndirection: &pg_query.A_Indirection{Arg: ref, Indirection: []*pg_query.Node{pg_query.MakeStrNode(f.Name)}}}}
	}
	return out
}
