package sqlexec

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// literalBinding is what a statement prepared by PrepareLiterals keeps of
// the text the client sent: the history records that text and its WHERE
// clause with the literals in place, as if it had been parsed itself.
type literalBinding struct {
	full string // the query text
	sql  string // the statement's own part of it
	lits []literal
}

// replan re-plans p, a statement of the literal cache whose catalog
// changed before it ran (DDL committed meanwhile), from the client's text
// itself: its values were read as the old plan's parameter types, and the
// text's own errors carry the client's positions.
func (b *literalBinding) replan(s *Session, p *Prepared) error {
	sts, err := parseStatements(b.full)
	if err != nil {
		return err
	}
	if len(sts) != 1 {
		return pgerror.Newf(pgerror.InternalError, "the literal cache's statement is %d statements", len(sts))
	}
	np, err := s.prepareUncached(sts[0], nil)
	if err != nil {
		return err
	}
	p.Statement, p.plan, p.schema, p.roles, p.replica, p.path, p.Columns = np.Statement, np.plan, np.schema, np.roles, np.replica, np.path, np.Columns
	p.ParamOIDs, p.paramTypes, p.litPredicate = nil, nil, nil
	return nil
}

// litType is the parameter type of a literal of kind k.
func litType(k litKind) types.Type {
	switch k {
	case litInt4:
		return types.Int4
	case litInt8:
		return types.Int8
	}
	return types.NumericAny
}

// PrepareLiterals prepares a simple-query text that holds one SELECT, INSERT,
// UPDATE or DELETE through the literal cache: its numeric literals become
// parameters of their literals' types, its strings compared with a column
// parameters of unknown type (normalizeLiterals), so that texts
// differing only in them share one parse and one plan, and params holds
// their values. ok is false when the text does not qualify or anything in
// the normalized statement fails (a syntax error, an unknown table, a value
// out of range): the caller then runs the text as it is, which yields exactly
// what PostgreSQL's rules give, errors and their positions included.
// Preparing has no effect on the session.
func (s *Session) PrepareLiterals(sql string) (p *Prepared, params []any, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			p, params, ok = nil, nil, false
		}
	}()
	if len(sql) > parseCacheMaxText {
		return nil, nil, false
	}
	if v, _ := s.setting("standard_conforming_strings"); v == "off" && strings.Contains(sql, `\`) {
		// A '...' literal then reads backslash escapes: Parse rewrites
		// the text first (rewriteNonStandardStrings), the cache does not.
		return nil, nil, false
	}
	q, ok := normalizeLiterals(sql)
	if !ok {
		return nil, nil, false
	}
	sts, err := s.engine.parse(q.text)
	if err != nil || len(sts) != 1 {
		return nil, nil, false
	}
	st := sts[0]
	switch st.node.Node.(type) {
	case *pg_query.Node_SelectStmt, *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt, *pg_query.Node_DeleteStmt:
	default:
		return nil, nil, false
	}
	oids := make([]uint32, len(q.lits))
	for i, l := range q.lits {
		if l.kind != litString {
			oids[i] = uint32(litType(l.kind).Oid)
		}
	}
	cached, err := s.cachedPrepare(planKey{st: st, kinds: q.kinds}, oids)
	if err != nil || len(cached.paramTypes) != len(oids) {
		return nil, nil, false
	}
	ls := &literalStatement{prepared: *cached}
	if len(q.lits) <= len(ls.params) {
		params = ls.params[:len(q.lits):len(q.lits)]
	} else {
		params = make([]any, len(q.lits))
	}
	for i, l := range q.lits {
		t := cached.paramTypes[i]
		if l.kind == litString && (t.IsRecord() || l.assigned && t.Oid == types.OidInterval) {
			// A string literal read as a composite value is valid where it
			// is assigned and fails (0A000) where it is compared; a string
			// assigned to an interval column is read with the column's
			// fields (interval minute), where a parameter is read without:
			// the text itself decides.
			return nil, nil, false
		}
		if l.kind == litString && cached.ParamOIDs[i] != cached.ValueOIDs[i] {
			// A constant of a domain is checked where the statement reads
			// it, a parameter when the statement starts.
			return nil, nil, false
		}
		t.Typmod = -1 // as a Bind message's value: the plan applies the modifier
		if params[i], err = s.ParseText(t, l.text); err != nil {
			return nil, nil, false
		}
		if l.assigned && i < len(cached.paramTargets) && cached.paramTargets[i].Oid != 0 {
			// PostgreSQL converts an assigned constant to its column's type
			// and modifier when it plans the statement: a value too long
			// fails even where no row is written. The text decides those.
			f, err := types.LookupCastEnv(t, cached.paramTargets[i], types.CastAssignment)
			if err != nil {
				return nil, nil, false
			}
			if _, err := f(s.textEnv(), params[i]); err != nil {
				return nil, nil, false
			}
		}
	}
	if cached.litPredicate == nil {
		cached.litPredicate = predicateTemplate(st, q.kinds)
	}
	ls.binding = literalBinding{full: sql, sql: sql[q.origOffset(st.offset):q.origOffset(st.offset+len(st.sql))], lits: q.lits}
	ls.prepared.bound = &ls.binding
	return &ls.prepared, params, true
}

// literalStatement is what PrepareLiterals makes of one statement, in one
// allocation: the cached plan's copy bound to the statement's literals, and
// the values of the few literals most statements have.
type literalStatement struct {
	prepared Prepared
	binding  literalBinding
	params   [4]any
}

// historyStatement is the statement as the history records it. A literal
// statement's predicate is printed only for a store that keeps its history
// (withPredicate): no one else reads it, and it is per-statement work.
func (p *Prepared) historyStatement(withPredicate bool) history.Statement {
	pl := p.plan
	if p.bound == nil {
		return history.Statement{SQL: p.Statement.sql, Table: pl.table, Predicate: pl.predicate}
	}
	pred := ""
	switch {
	case pl.predicate == "" || !withPredicate:
	case p.litPredicate != nil && *p.litPredicate != "":
		pred = p.bound.fill(*p.litPredicate)
	default:
		pred = p.bound.predicate(p.Statement)
	}
	return history.Statement{SQL: p.bound.sql, Table: pl.table, Predicate: pred}
}

// predicateTemplate is st's WHERE clause printed by simpleExprText with its
// parameters as $n when every one of them is an int4 literal, and "" when
// not: the original's clause then prints as the template with the numbers
// in place (simpleExprText prints an int4 constant as a number and fails
// on every other constant). The scanner keeps $ out of names, so every $
// in the template is a parameter.
func predicateTemplate(st *Statement, kinds string) *string {
	out := ""
	if where := whereClause(st); where != nil {
		var b strings.Builder
		if simpleExprText(&b, where) && onlyInt4Params(b.String(), kinds) {
			out = b.String()
		}
	}
	return &out
}

// onlyInt4Params reports whether every $n in tmpl is an int4 literal's.
func onlyInt4Params(tmpl, kinds string) bool {
	for _, n := range templateParams(tmpl) {
		if n.param < 1 || n.param > len(kinds) || litKind(kinds[n.param-1]) != litInt4 {
			return false
		}
	}
	return true
}

// templateParam is a $n of a predicate template: its number and its span.
type templateParam struct{ param, start, end int }

// templateParams lists the $n of a predicate template in order.
func templateParams(tmpl string) []templateParam {
	var out []templateParam
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '$' {
			continue
		}
		j := i + 1
		for j < len(tmpl) && tmpl[j] >= '0' && tmpl[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(tmpl[i+1 : j])
		out = append(out, templateParam{param: n, start: i, end: j})
		i = j - 1
	}
	return out
}

// fill replaces the $n of a predicate template by the literals' numbers.
func (b *literalBinding) fill(tmpl string) string {
	var out strings.Builder
	prev := 0
	for _, p := range templateParams(tmpl) {
		out.WriteString(tmpl[prev:p.start])
		if p.param >= 1 && p.param <= len(b.lits) {
			out.WriteString(strconv.FormatInt(b.lits[p.param-1].int4(), 10))
		} else {
			out.WriteString(tmpl[p.start:p.end])
		}
		prev = p.end
	}
	out.WriteString(tmpl[prev:])
	return out.String()
}

// whereClause is the WHERE clause of a SELECT, UPDATE or DELETE.
func whereClause(st *Statement) *pg_query.Node {
	switch v := st.node.Node.(type) {
	case *pg_query.Node_SelectStmt:
		return v.SelectStmt.WhereClause
	case *pg_query.Node_UpdateStmt:
		return v.UpdateStmt.WhereClause
	case *pg_query.Node_DeleteStmt:
		return v.DeleteStmt.WhereClause
	}
	return nil
}

// predicate is the WHERE clause of st with the literals back in place of
// its parameters, printed as predicateText prints the original's.
func (b *literalBinding) predicate(st *Statement) string {
	where := whereClause(st)
	if where == nil {
		return ""
	}
	where = proto.Clone(where).(*pg_query.Node)
	b.unbind(where.ProtoReflect())
	return predicateText(where)
}

// unbind replaces every parameter under m by its literal, as the parser
// makes the constant: an Ival for int4, an Fval holding the text otherwise.
func (b *literalBinding) unbind(m protoreflect.Message) {
	if n, ok := m.Interface().(*pg_query.Node); ok {
		if pr := n.GetParamRef(); pr != nil && pr.Number >= 1 && int(pr.Number) <= len(b.lits) {
			n.Node = &pg_query.Node_AConst{AConst: b.lits[pr.Number-1].constant(pr.Location)}
			return
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				b.unbind(l.Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			b.unbind(v.Message())
		}
		return true
	})
}

// constant is the parse node of literal l.
func (l literal) constant(loc int32) *pg_query.A_Const {
	if l.kind == litInt4 {
		return &pg_query.A_Const{Val: &pg_query.A_Const_Ival{Ival: &pg_query.Integer{Ival: int32(l.int4())}}, Location: loc}
	}
	if l.kind == litString {
		return &pg_query.A_Const{Val: &pg_query.A_Const_Sval{Sval: &pg_query.String{Sval: l.text}}, Location: loc}
	}
	return &pg_query.A_Const{Val: &pg_query.A_Const_Fval{Fval: &pg_query.Float{Fval: l.text}}, Location: loc}
}

// int4 is the value of an int4 literal (digits with leading zeros, a sign).
func (l literal) int4() int64 {
	var v int64
	for _, c := range []byte(l.text) {
		if c >= '0' && c <= '9' {
			v = v*10 + int64(c-'0')
		}
	}
	if l.text[0] == '-' {
		v = -v
	}
	return v
}
