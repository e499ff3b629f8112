package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// indexKeyElems is CREATE INDEX's key list resolved over a table: per key
// position the column (-1 for an expression), the expression (nil for a
// column), the options and the name PostgreSQL's index naming uses.
type indexKeyElems struct {
	cols  []int
	exprs []*pg_query.Node
	opts  []indexKeyOpts
	names []string
}

// indexKeys resolves the key elements of a CREATE INDEX on t. An
// expression that is a column reference (qualified or not) is that column,
// as in PostgreSQL; other expressions must be immutable.
func (d *ddl) indexKeys(t *tableDesc, params []*pg_query.Node, method string) (indexKeyElems, error) {
	var k indexKeyElems
	hasExpr := false
	for _, p := range params {
		ie := stripIndexCollate(p.GetIndexElem())
		c := -1
		var e *scalar
		if ie.Expr == nil {
			if c = t.colIndex(ie.Name); c < 0 {
				return k, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", ie.Name)
			}
		} else {
			var err error
			if e, err = d.binder("").indexExpr(t, ie.Expr, "index expression"); err != nil {
				return k, err
			}
			c = e.slot // a column reference is the column
		}
		if c >= 0 {
			if name := outerCollateName(ie.Expr); name != "" && len(ie.Collation) == 0 {
				// (column COLLATE name) is the column with that collation.
				named := proto.Clone(ie).(*pg_query.IndexElem)
				named.Collation = []*pg_query.Node{pg_query.MakeStrNode(name)}
				ie = named
			}
			o, err := indexOptions(ie, method, t.cols[c].typ, d.extensionOpclassLookup())
			if err != nil {
				return k, err
			}
			k.cols, k.exprs, k.opts, k.names = append(k.cols, c), append(k.exprs, nil), append(k.opts, o), append(k.names, t.cols[c].name)
			continue
		}
		hasExpr = true
		if e.typ.Oid == types.OidRecord {
			return k, pgerror.Newf(pgerror.InvalidTableDefinition, "column \"%s\" has pseudo-type %s", indexExprColname(e), e.typ)
		}
		o, err := indexOptions(ie, method, e.typ, d.extensionOpclassLookup())
		if err != nil {
			return k, err
		}
		k.cols, k.exprs, k.opts = append(k.cols, -1), append(k.exprs, ie.Expr), append(k.opts, o)
		k.names = append(k.names, indexExprColname(e))
	}
	if !hasExpr {
		k.exprs = nil
	}
	return k, nil
}

// stripIndexCollate is key element ie without the COLLATE clauses at the
// top of its expression, the outermost one becoming the element's
// collation unless it names one: PostgreSQL's ComputeIndexAttrs treats
// "(x COLLATE c)" as "(x) COLLATE c" (and "(a COLLATE c)" as column a).
func stripIndexCollate(ie *pg_query.IndexElem) *pg_query.IndexElem {
	cc := ie.Expr.GetCollateClause()
	if cc == nil {
		return ie
	}
	collation := ie.Collation
	if len(collation) == 0 {
		collation = cc.Collname
	}
	expr := cc.Arg
	for expr.GetCollateClause() != nil {
		expr = expr.GetCollateClause().Arg
	}
	return &pg_query.IndexElem{Name: ie.Name, Expr: expr, Indexcolname: ie.Indexcolname, Collation: collation, Opclass: ie.Opclass,
		Opclassopts: ie.Opclassopts, Ordering: ie.Ordering, NullsOrdering: ie.NullsOrdering}
}

// exprNames are the names of k's expression positions, "" at a column;
// nil when k has no expression.
func (k indexKeyElems) exprNames() []string {
	if k.exprs == nil {
		return nil
	}
	out := make([]string, len(k.cols))
	for i, e := range k.exprs {
		if e != nil {
			out[i] = k.names[i]
		}
	}
	return out
}

// indexExprColname is the name PostgreSQL's FigureIndexColname gives a
// compiled index expression: the name FigureColname gives it (a function
// call's, a cast column's), "expr" where that is "?column?".
func indexExprColname(e *scalar) string {
	if e.name == "" || e.name == "?column?" {
		return "expr"
	}
	return e.name
}

// keyColumnNames are the names of ix's key positions over table t, as
// PostgreSQL's index naming takes them: a column's name, or for an
// expression the name its index column got (FigureIndexColname).
func (ix *indexDesc) keyColumnNames(t *tableDesc) []string {
	out := make([]string, len(ix.cols))
	for i, c := range ix.cols {
		if ix.isExprKey(i) {
			out[i] = ix.exprNames[i]
		} else {
			out[i] = t.cols[c].name
		}
	}
	return out
}

// isExprKey reports whether key position i of ix is an expression.
func (ix *indexDesc) isExprKey(i int) bool {
	return ix.exprs != nil && ix.exprs[i] != nil
}

// keyText is key position i of ix (table t) as PostgreSQL prints it in a
// 23505's DETAIL and, parenthesized where it is not a function call, in
// pg_get_indexdef: the column's name or the expression as ruleutils prints
// it.
func (ix *indexDesc) keyText(s *Session, c *catalog, t *tableDesc, i int, pretty bool) string {
	if !ix.isExprKey(i) {
		return t.cols[ix.cols[i]].name
	}
	return decompile(s, c, deparseExpr(ix.exprs[i]), t.oid, pretty)
}

// keyElemText is key position i of ix (table t) as pg_get_indexdef prints
// it: the quoted column name, or the expression, parenthesized unless it
// looks like a function call.
func (ix *indexDesc) keyElemText(s *Session, c *catalog, t *tableDesc, i int, pretty bool) string {
	if !ix.isExprKey(i) {
		return types.QuoteIdent(t.cols[ix.cols[i]].name)
	}
	text := ix.keyText(s, c, t, i, pretty)
	if looksLikeFunction(ix.exprs[i]) {
		return text
	}
	return "(" + text + ")"
}

// keyType is the type of ix's key position i (table t): the column's or
// the expression's.
func (ix *indexDesc) keyType(t *tableDesc, i int) types.Type {
	if ix.isExprKey(i) {
		return ix.rows.typs[i]
	}
	return t.cols[ix.cols[i]].typ
}

// keyNamesText is the key of ix (table t) in a unique violation's DETAIL:
// its columns and expressions separated by commas, the expressions as
// pg_get_indexdef_columns prints them.
func (ix *indexDesc) keyNamesText(s *Session, c *catalog, t *tableDesc) string {
	if ix.exprs == nil {
		return colNames(t, ix.cols)
	}
	parts := make([]string, len(ix.cols))
	for i := range ix.cols {
		parts[i] = ix.keyElemText(s, c, t, i, true)
	}
	return strings.Join(parts, ", ")
}

// keyValuesText is row's key in ix (table t) as a unique violation's DETAIL
// shows it.
func (ix *indexDesc) keyValuesText(t *tableDesc, row []any) string {
	if ix.rows == nil || ix.exprs == nil {
		return valuesText(t, ix.cols, row)
	}
	vals, _, err := ix.rows.values(row)
	if err != nil || vals == nil {
		return "" // not reached: the write evaluated the row (checkIndexRows)
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		if v == nil {
			out[i] = "null"
		} else {
			out[i] = types.FormatText(ix.rows.typs[i], v, nil)
		}
	}
	return strings.Join(out, ", ")
}

// exprsText is pg_index.indexprs: the key expressions' SQL text as a
// stored list, which pg_get_expr prints separated by commas; NULL for an
// index on columns only.
func (ix *indexDesc) exprsText() any {
	if ix.exprs == nil {
		return nil
	}
	var parts []string
	for _, e := range ix.exprs {
		if e != nil {
			parts = append(parts, deparseExpr(e))
		}
	}
	return listPrefix + strings.Join(parts, listSeparator)
}

// looksLikeFunction reports whether ruleutils prints index expression n
// without the parentheses it puts around other expressions.
func looksLikeFunction(n *pg_query.Node) bool {
	switch n.Node.(type) {
	case *pg_query.Node_FuncCall, *pg_query.Node_CoalesceExpr, *pg_query.Node_MinMaxExpr,
		*pg_query.Node_SqlvalueFunction, *pg_query.Node_XmlExpr:
		return true
	}
	return false
}
