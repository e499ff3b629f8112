package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// fromItem is one relation of a FROM clause: a table, a subquery, a CTE
// reference, VALUES or a set-returning function. Its columns occupy
// row[off : off+width] of the query level's row.
type fromItem struct {
	name  string
	off   int
	width int
	left  bool // LEFT JOIN: null-extended when nothing matches
	// presence, on a LEFT JOIN's item, is the slot after its columns that
	// holds true in a row the item produced and NULL where the join
	// null-extended it: what tells a missing row from a row of NULLs
	// (whole_row.go).
	presence    int
	hasPresence bool
	table       *tableDesc
	// sub produces the rows of a subquery, CTE or function item; each,
	// when set instead, passes them one at a time (a set-returning
	// function streams its rows).
	sub  func(x *execCtx) ([][]any, error)
	each func(x *execCtx, yield func(row []any) error) error
	// once marks a volatile function item whose call reads no other item of
	// its level: after the first item, it is called once a run (runOnce).
	once bool
	// on are the conditions evaluated when this item's row is joined: the
	// join condition and the WHERE conjuncts placed here. A LEFT item's
	// WHERE conjuncts go to post, evaluated after null extension.
	on   []*conj
	post []*conj
	// access is how a table item is read.
	access access
	// cached items (later items whose reads do not depend on the current
	// rows of earlier items) are read once per execution: local are the
	// conditions checked while reading, join those checked per combination
	// of rows, and hashSlot/hashVal, when hashVal is set, an equality join
	// condition answered by a hash table over the cached rows, keyed in the
	// column's type hashTyp.
	cached   bool
	local    []*conj
	join     []*conj
	hashSlot int
	hashVal  *scalar
	hashTyp  types.Type
	// catalogTypes are the column types of a system table item (itemCatalog),
	// whose rows a join caches as a table's.
	catalogTypes []types.Type
	// catalogRows, set on a system table item whose rows are made, not
	// read from the store, returns them with the indexes over them
	// (catalog_rows_cache.go).
	catalogRows func(x *execCtx) (*systemRowsEntry, error)
	// emptyJoins are the later inner cached items whose hash key is a column
	// of the items before this one: when such an item has no rows for the
	// key, no combination of this item's and the next ones' rows can join,
	// so the nested loop stops here (pruneEmptyJoins).
	emptyJoins []*fromItem
	// lock and wait are the row lock that SELECT ... FOR takes on this
	// item's rows, if any (lockrows.go).
	lock isolation.RowLock
	wait isolation.WaitPolicy
	// pulled marks an item of a flattened subquery or view (from_pullup.go),
	// whose own name (EXPLAIN's) is no name of its reader's FROM clause;
	// pulledAs, set on the first of them, is the name the subquery has
	// there.
	pulled   bool
	pulledAs string
	// kind is what the item reads, for the locking clause's checks.
	kind itemKind
	// nested are the relations of a parenthesized join read as one item
	// (sub joins them).
	nested []*fromItem
	// members are the tables a table item read without ONLY covers, the
	// table itself first, when it has inheritance children (inherit.go).
	members []*inhMember
	// versions says the item's rows have the system columns xmin, xmax and
	// ctid past the table's columns (row_versions.go).
	versions bool
	// cursorPos says the item's rows' keys go to the row marks for the
	// positions of a cursor's rows (current_of.go).
	cursorPos bool
	// oidSlot says the item's rows end with their table's OID, the value
	// of tableoid (tableoid.go).
	oidSlot bool
	// plan, subPlan and source serve EXPLAIN: the item's nodes, the plan
	// of the query it reads, and what a function or CTE item reads.
	plan    itemNodes
	subPlan *planNode
	source  string
	// policyCmds are the commands whose row-level security policies
	// filter a table item's rows (rls_apply.go).
	policyCmds []byte
	// target marks the table an UPDATE, DELETE or MERGE writes: it reads
	// as any table (not as a locking read), its rows' keys are kept in a
	// join's row marks (MERGE locks them, merge.go), and no locking
	// clause's policies apply to it.
	target bool
	// reads marks, for a subquery or view item, the columns its level
	// reads, and readsOf is the plan of the query giving them: outputs
	// nobody reads need not be computed (pruneUnread).
	reads   []bool
	readsOf *selectPlan
	// condReads is reads once the level's join and WHERE conditions are
	// compiled: the columns its conditions read (noteConditionReads).
	condReads []bool
}

// trackReads makes item it of plan p, with columns cols, note which of
// them its level reads.
func trackReads(it *fromItem, cols []scopeCol, p *selectPlan) {
	it.reads, it.readsOf = make([]bool, len(cols)), p
	for i := range cols {
		cols[i].read = &it.reads[i]
	}
}

// pruneUnread tells the query of a subquery or view item, once its level is
// compiled, which of its outputs no one reads: as PostgreSQL removes unused
// subquery outputs, it does not compute those (nor fail computing them).
func (it *fromItem) pruneUnread() {
	if it.readsOf != nil {
		it.readsOf.skipUnread(it.reads)
	}
}

// noteConditionReads keeps, for a subquery or view item, which of its
// columns the level's conditions read: every read so far.
func (it *fromItem) noteConditionReads() {
	if it.readsOf != nil {
		it.condReads = slices.Clone(it.reads)
	}
}

// deferErrors makes the query of a subquery or view item leave the errors
// of the outputs its level reads past its conditions (in the select list,
// GROUP BY, ORDER BY) in the row, and returns their slots in the level's
// row, which the level checks for errors once a row has passed every
// condition. PostgreSQL flattens such a query into its reader, so that
// the reader's WHERE runs before the subquery's select list is computed:
// SELECT y FROM v WHERE x > 0 does not fail on a row of v whose y fails
// and whose x is not positive.
func (it *fromItem) deferErrors() []int {
	p := it.readsOf
	if p == nil || it.condReads == nil {
		return nil
	}
	var slots []int
	for i, read := range it.reads {
		if !read || it.condReads[i] || i >= len(p.prunable) || !p.prunable[i] {
			continue
		}
		if p.deferErrs == nil {
			p.deferErrs = make([]bool, len(it.reads))
		}
		p.deferErrs[i] = true
		slots = append(slots, it.off+i)
	}
	return slots
}

// failedOutput is an output a query could not compute, left in its row
// for its reader to raise (deferErrors).
type failedOutput struct{ err error }

// deferredError returns the error of the first failed output among the
// slots of row.
func deferredError(row []any, slots []int) error {
	for _, s := range slots {
		if f, ok := row[s].(*failedOutput); ok {
			return f.err
		}
	}
	return nil
}

// itemKind is what a FROM item reads.
type itemKind uint8

const (
	itemTable   itemKind = iota
	itemCatalog          // a pg_catalog or information_schema relation
	itemCTE
	itemSubquery
	itemFunction
	itemJoin // a parenthesized join read as one item (from_nested.go)
	itemView
	itemSequence // a sequence read as a relation (sequence.go)
)

// conj is one conjunct of a condition.
type conj struct {
	e *scalar
	// eqSlot and eqVal describe "column = value" conjuncts usable as keys:
	// eqSlot is the row slot of the column, eqVal an expression of earlier
	// items, parameters and constants.
	eqSlot int
	eqVal  *scalar
	// deferred conjuncts (those holding subqueries) are evaluated after
	// the store's scan returns, not inside its callback.
	deferred bool
	// inSlot and inVals describe "column IN (values)" conjuncts.
	inSlot int
	inVals []*scalar
	// anySlot and anyArr describe "column = ANY (array)" conjuncts: anyArr
	// is the array, whose elements are the values looked up as with IN.
	anySlot int
	anyArr  *scalar
	// src is the conjunct's expression, as EXPLAIN prints it.
	src *pg_query.Node
	// cost is what evaluating it costs a row (exprCost, set by
	// orderConds), policy marks row security's condition: they place it
	// among its item's conditions.
	cost   float64
	policy bool
}

// keyOperand returns v as a value to look a column of type t up with: an
// untyped literal takes the column's type, as the comparison's operator
// resolution gives it ("aid = '42'" is int4 = int4 in PostgreSQL, an
// index lookup, and pgx's simple protocol sends every parameter quoted).
// A literal that does not convert stays as it is: the comparison itself
// reports the error when it runs.
func (b *binder) keyOperand(v *scalar, t types.Type) *scalar {
	if v.typ.Oid != types.OidUnknown || v.lit == nil {
		return v
	}
	if k, err := b.coerce(v, t, types.CastImplicit); err == nil {
		return k
	}
	return v
}

func (c *conj) holds(x *execCtx) (bool, error) {
	v, err := c.e.eval(x)
	if err != nil {
		return false, err
	}
	return v == true, nil
}

func allHold(x *execCtx, cs []*conj, deferred bool) (bool, error) {
	for _, c := range cs {
		if c.deferred != deferred {
			continue
		}
		ok, err := c.holds(x)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// conjunct compiles one conjunct, noting "column = value" shapes.
func (b *binder) conjunct(sc *scope, n *pg_query.Node, clause string) (*conj, error) {
	c := &conj{eqSlot: -1, inSlot: -1, anySlot: -1, deferred: containsSubLink(n), src: n}
	if a := n.GetAExpr(); a != nil && a.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ANY && opName(a.Name) == "=" && !c.deferred {
		e, l, arr, err := b.anyAllParts(sc, a)
		if err != nil {
			return nil, err
		}
		if c.e, err = b.requireBool(e, clause, n); err != nil {
			return nil, err
		}
		if elem, ok := arr.typ.Elem(); ok && b.userOperatorChosen("=", l, []*scalar{{typ: elem, slot: -1}}) {
			return c, nil // an extension's or user's =, which key lookups would not apply
		}
		if l.slot >= 0 {
			c.anySlot, c.anyArr = l.slot, arr
		}
		return c, nil
	}
	if a := n.GetAExpr(); a != nil && a.Kind == pg_query.A_Expr_Kind_AEXPR_IN && opName(a.Name) == "=" && !c.deferred {
		e, x, elems, err := b.inListParts(sc, a)
		if err != nil {
			return nil, err
		}
		c.e = e
		if x.slot >= 0 && !b.userOperatorChosen("=", x, elems) {
			c.inSlot, c.inVals = x.slot, make([]*scalar, len(elems))
			for i, v := range elems {
				c.inVals[i] = b.keyOperand(v, x.typ)
			}
		}
		return c, nil
	}
	if a := n.GetAExpr(); a != nil && a.Kind == pg_query.A_Expr_Kind_AEXPR_OP && a.Lexpr != nil && opName(a.Name) == "=" && !c.deferred {
		l, r, err := b.pair(sc, a.Lexpr, a.Rexpr)
		if err != nil {
			return nil, err
		}
		e, err := b.extensionBinary(strs(a.Name), l, r, a.Location)
		userOp := e != nil // an extension's or user's =, which key lookups would not apply
		if e == nil && err == nil {
			e, err = b.builtinBinary("=", l, r, a.Location)
		}
		if err != nil {
			return nil, err
		}
		if e, err = b.requireBool(e, clause, n); err != nil {
			return nil, err
		}
		c.e = e
		switch {
		case userOp:
		case l.slot >= 0 && r.slot < 0:
			c.eqSlot, c.eqVal = l.slot, b.keyOperand(r, l.typ)
		case r.slot >= 0 && l.slot < 0:
			c.eqSlot, c.eqVal = r.slot, b.keyOperand(l, r.typ)
		case l.slot >= 0 && r.slot >= 0:
			// A join condition: the later item's column is the key.
			if l.slot > r.slot {
				c.eqSlot, c.eqVal = l.slot, r
			} else {
				c.eqSlot, c.eqVal = r.slot, l
			}
		}
		return c, nil
	}
	e, err := b.cond(sc, n, clause)
	if err != nil {
		return nil, err
	}
	c.e = e
	return c, nil
}

// buildFrom compiles a FROM list into items and the scope of their
// columns. Join conditions become the items' conditions.
func (b *binder) buildFrom(parent *scope, from []*pg_query.Node, ctes map[string]*ctePlan) ([]*fromItem, *scope, []pendingCond, error) {
	return b.buildFromAt(parent, from, ctes, 0, 0)
}

// buildFromAt is buildFrom for a FROM list whose columns start at slot
// base of the level's row and whose items at index itemBase of its items:
// a flattened subquery's, placed after the items of its reader compiled
// so far (from_pullup.go). The scope's columns then have slots base on.
func (b *binder) buildFromAt(parent *scope, from []*pg_query.Node, ctes map[string]*ctePlan, base, itemBase int) ([]*fromItem, *scope, []pendingCond, error) {
	sc := &scope{parent: parent, ctes: ctes, base: base, itemBase: itemBase}
	var items []*fromItem
	var conds []pendingCond
	var add func(n *pg_query.Node, left bool) error
	addItem := func(it *fromItem, cols []scopeCol, left bool) error {
		it.left = left
		it.off = base + len(sc.cols)
		it.width = len(cols)
		if err := checkFromNames(sc, it, cols); err != nil {
			return err
		}
		if left {
			it.presence, it.hasPresence = it.off+it.width, true
		}
		for i, c := range cols {
			c.item = itemBase + len(items)
			c.slot = it.off + i
			c.nullable = c.nullable || left
			if it.kind != itemJoin {
				c.hasNullMark = false // a marker of another level
			}
			switch {
			case c.hasNullMark:
				// A column of a join's item: its relation's own marker,
				// among the item's columns.
				c.nullMark += it.off
			case left:
				c.nullMark, c.hasNullMark = it.presence, true
			}
			if sc.starOrder != nil {
				sc.starOrder = append(sc.starOrder, len(sc.cols))
			}
			sc.cols = append(sc.cols, c)
		}
		if left {
			// The marker's slot, which no name reaches.
			if sc.starOrder != nil {
				sc.starOrder = append(sc.starOrder, len(sc.cols))
			}
			sc.cols = append(sc.cols, scopeCol{item: itemBase + len(items), slot: it.presence, hidden: true, merged: true, typ: types.Bool})
		}
		items = append(items, it)
		sc.rels = append(sc.rels, it.names()...)
		if it.table != nil && it.policyCmds != nil && it.width > 0 {
			c, err := b.rowSecurityConj(it, sc.cols[it.off-base:it.off-base+it.width])
			if err != nil || c == nil {
				return err
			}
			it.on = append(it.on, c)
		}
		return nil
	}
	// addNested adds a parenthesized join as one item, the join's rows.
	addNested := func(n *pg_query.Node, left bool) error {
		it, cols, err := b.nestedJoinItem(sc, n)
		if err != nil {
			return err
		}
		return addItem(it, cols, left)
	}
	add = func(n *pg_query.Node, left bool) error {
		switch v := n.Node.(type) {
		case *pg_query.Node_JoinExpr:
			j := v.JoinExpr
			using := j.IsNatural || len(j.UsingClause) > 0
			if j.Alias != nil {
				// The same join without its alias, sharing its parts.
				inner := &pg_query.JoinExpr{Jointype: j.Jointype, IsNatural: j.IsNatural, Larg: j.Larg, Rarg: j.Rarg,
					UsingClause: j.UsingClause, JoinUsingAlias: j.JoinUsingAlias, Quals: j.Quals}
				it, cols, err := b.aliasedJoinItem(sc, inner, j.Alias)
				if err != nil {
					return err
				}
				if names, ok := b.frozen.naturalOf(inner); ok {
					b.freezeNatural(j, names)
				}
				return addItem(it, cols, left)
			}
			// addRight adds the right side of an INNER or LEFT join: a
			// parenthesized join is flattened into the list when nothing
			// treats it as one relation, and is one nested item otherwise.
			addRight := func(left bool) error {
				if j.Rarg.GetJoinExpr() != nil && (left || using) {
					return addNested(j.Rarg, left)
				}
				return add(j.Rarg, left)
			}
			switch j.Jointype {
			case pg_query.JoinType_JOIN_INNER:
				start := len(sc.cols)
				if err := add(j.Larg, left); err != nil {
					return err
				}
				mid := len(sc.cols)
				if err := addRight(false); err != nil {
					return err
				}
				if using {
					q, err := b.usingCondition(sc, start, mid, j, false)
					if err != nil {
						return err
					}
					if q != nil {
						conds = append(conds, pendingCond{node: q, clause: "JOIN/USING", minItem: len(items) - 1})
					}
				}
				if j.Quals != nil {
					conds = append(conds, pendingCond{node: j.Quals, clause: "JOIN/ON", minItem: len(items) - 1})
				}
			case pg_query.JoinType_JOIN_LEFT:
				start := len(sc.cols)
				if err := add(j.Larg, left); err != nil {
					return err
				}
				mid := len(sc.cols)
				if err := addRight(true); err != nil {
					return err
				}
				if using {
					q, err := b.usingCondition(sc, start, mid, j, false)
					if err != nil {
						return err
					}
					if q != nil {
						conds = append(conds, pendingCond{node: q, clause: "JOIN/USING", minItem: len(items) - 1, on: items[len(items)-1]})
					}
				}
				if j.Quals != nil {
					conds = append(conds, pendingCond{node: j.Quals, clause: "JOIN/ON", minItem: len(items) - 1, on: items[len(items)-1]})
				}
			case pg_query.JoinType_JOIN_RIGHT:
				// a RIGHT JOIN b reads as b LEFT JOIN a; * still lists a first.
				before := len(sc.cols)
				prev := sc.starOrder
				sc.starOrder = nil
				if err := add(j.Rarg, left); err != nil {
					return err
				}
				mid := len(sc.cols)
				addLeft := add
				if j.Larg.GetJoinExpr() != nil {
					addLeft = addNested
				}
				if err := addLeft(j.Larg, true); err != nil {
					return err
				}
				sc.starOrder = prev
				if sc.starOrder == nil {
					for i := 0; i < before; i++ {
						sc.starOrder = append(sc.starOrder, i)
					}
				}
				for i := mid; i < len(sc.cols); i++ {
					sc.starOrder = append(sc.starOrder, i)
				}
				for i := before; i < mid; i++ {
					sc.starOrder = append(sc.starOrder, i)
				}
				if using {
					q, err := b.usingCondition(sc, before, mid, j, true)
					if err != nil {
						return err
					}
					if q != nil {
						conds = append(conds, pendingCond{node: q, clause: "JOIN/USING", minItem: len(items) - 1, on: items[len(items)-1]})
					}
				}
				if j.Quals != nil {
					conds = append(conds, pendingCond{node: j.Quals, clause: "JOIN/ON", minItem: len(items) - 1, on: items[len(items)-1]})
				}
			case pg_query.JoinType_JOIN_FULL:
				it, cols, err := b.fullJoinItem(sc, j)
				if err != nil {
					return err
				}
				for i := range cols {
					cols[i].nullable = true // either side may be missing
				}
				return addItem(it, cols, left)
			default:
				return pgerror.Unsupported(strings.TrimPrefix(j.Jointype.String(), "JOIN_") + " JOIN")
			}
			return nil
		}
		if b.pullUpOK && b.modifying == nil {
			if ok, err := b.pullUp(sc, &items, &conds, n, left); ok || err != nil {
				return err
			}
		}
		it, cols, err := b.fromLeaf(sc, n)
		if err != nil {
			return err
		}
		if err := addItem(it, cols, left); err != nil {
			return err
		}
		if rv := n.GetRangeVar(); rv != nil && rv == b.modifying {
			sc.target = len(sc.cols) // the UPDATE's or DELETE's target, first in FROM
		}
		return nil
	}
	for _, n := range from {
		if err := add(n, false); err != nil {
			return nil, nil, nil, err
		}
	}
	return items, sc, conds, nil
}

// pendingCond is a join condition waiting for the scope to be complete.
type pendingCond struct {
	node    *pg_query.Node
	clause  string
	minItem int
	on      *fromItem // set for a LEFT JOIN's ON condition
	// compiled is a condition compiled already, in a flattened subquery's
	// scope (from_pullup.go): placed as it is, in its turn.
	compiled *conj
}

// fromLeaf compiles one FROM item that is not a join.
func (b *binder) fromLeaf(sc *scope, n *pg_query.Node) (*fromItem, []scopeCol, error) {
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		rv := v.RangeVar
		alias := rv.Relname
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		if rv.Schemaname == "" {
			for cur := sc; cur != nil; cur = cur.parent {
				if cte := cur.ctes[rv.Relname]; cte != nil {
					if cte.noReturning {
						return nil, nil, b.errAt(pgerror.Newf(pgerror.FeatureNotSupported, "WITH query \"%s\" does not have a RETURNING clause", rv.Relname), rv.Location)
					}
					it, cols, err := withKind(itemCTE)(b.cteItem(sc, cte, alias, rv.Alias))
					if err == nil {
						cte.noteReference(it, cols)
					}
					return it, cols, err
				}
			}
			if tt := b.s.transitionTable(rv.Relname); tt != nil {
				return withKind(itemCTE)(b.transitionItem(tt, alias, rv.Alias))
			}
		}
		if vt := virtualTableFor(rv.Schemaname, rv.Relname, b.s.searchPath()); vt != nil {
			it, cols, err := withKind(itemCatalog)(b.virtualItem(vt, alias, rv.Alias))
			if it != nil {
				it.source = rv.Relname
			}
			return it, cols, err
		}
		t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname)
		if t == nil {
			if v := b.s.lookupView(b.cat, rv.Schemaname, rv.Relname); v != nil {
				use := &columnUse{attnums: trackedColumns(nil, len(v.cols)).attnums}
				b.requireColumnsAs(b.privRole, v.oid, v.name, "view", 'r', use)
				it, cols, err := withKind(itemView)(b.viewItem(v, alias, rv.Alias))
				if it != nil {
					// The view's item marks the outputs its level reads.
					use.used = it.reads
				}
				return it, cols, err
			}
			if q := b.s.lookupSequence(b.cat, rv.Schemaname, rv.Relname); q != nil {
				return b.sequenceItem(q, alias, rv.Alias)
			}
			if err := unservedSystemRelation(rv); err != nil {
				return nil, nil, b.errAt(err, rv.Location)
			}
			return nil, nil, b.errAt(pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv)), rv.Location)
		}
		b.useTable(t, isolation.TableLockAccessShare)
		use := trackedColumns(t, len(t.cols))
		b.requireColumnsAs(b.privRole, t.oid, t.name, "table", 'r', use)
		if t.matview != nil && !t.matview.populated {
			b.perms = append(b.perms, permCheck{oid: t.oid, name: t.name, unpopulated: true})
		}
		if err := b.cat.foreignReadError(t); err != nil {
			b.perms = append(b.perms, permCheck{planErr: err})
		}
		it := &fromItem{name: alias, table: t, policyCmds: b.policyCommands(rv), target: rv == b.modifying}
		if rv.Inh {
			it.members = b.cat.inhMembers(t)
			var members []*tableDesc
			for _, m := range it.members[min(1, len(it.members)):] {
				b.useTable(m.t, isolation.TableLockAccessShare)
				members = append(members, m.t)
			}
			if err := foreignMemberError(members); err != nil {
				b.perms = append(b.perms, permCheck{planErr: err})
			}
		}
		cols := make([]scopeCol, len(t.cols))
		for i, c := range t.cols {
			cols[i] = scopeCol{rel: alias, name: c.name, typ: c.typ, tableOID: t.oid, attnum: c.attnum, coll: c.collation}
		}
		if err := applyColAliases(cols, rv.Alias); err != nil {
			return nil, nil, err
		}
		if b.readsRowVersions() || b.declaring != nil { // a cursor's rows keep their versions (current_of.go)
			it.versions = true
			cols = append(cols, rowVersionCols(t, alias)...)
		}
		if c, ok := b.tableoidCol(it, rv, alias); ok {
			cols = append(cols, c)
		}
		use.track(cols)
		return it, cols, nil
	case *pg_query.Node_RangeSubselect:
		rs := v.RangeSubselect
		if rs.Alias == nil {
			return nil, nil, pgerror.New(pgerror.SyntaxError, "subquery in FROM must have an alias")
		}
		if rs.Lateral {
			return withKind(itemSubquery)(b.lateralSubquery(sc, rs))
		}
		var sub *selectPlan
		reads := len(b.worktableReads)
		outer, err := b.notingOuterRefs(sc.parent, func() error {
			var err error
			sub, err = b.selectNode(sc.parent, rs.Subquery, sc.ctes)
			return err
		})
		if err != nil {
			return nil, nil, err
		}
		if outer || len(b.worktableReads) > reads {
			sub.correlated = true
		}
		it, cols, err := withKind(itemSubquery)(b.cteItem(sc, &ctePlan{plan: sub, outerRefs: outer, parent: sc.parent}, rs.Alias.Aliasname, rs.Alias))
		if err == nil {
			trackReads(it, cols, sub)
		}
		return it, cols, err
	case *pg_query.Node_RangeFunction:
		it, cols, err := withKind(itemFunction)(b.functionItem(sc, v.RangeFunction))
		if it != nil {
			it.source = rangeFunctionName(v.RangeFunction)
		}
		return it, cols, err
	case *pg_query.Node_RangeTableSample:
		return nil, nil, pgerror.Unsupported("TABLESAMPLE")
	}
	return nil, nil, pgerror.Unsupported("FROM item " + nodeKind(n))
}

// withKind sets the kind of the item a fromLeaf case built.
func withKind(k itemKind) func(*fromItem, []scopeCol, error) (*fromItem, []scopeCol, error) {
	return func(it *fromItem, cols []scopeCol, err error) (*fromItem, []scopeCol, error) {
		if it != nil {
			it.kind = k
		}
		return it, cols, err
	}
}

func qualName(rv *pg_query.RangeVar) string {
	if rv.Schemaname != "" {
		return rv.Schemaname + "." + rv.Relname
	}
	return rv.Relname
}

func applyColAliases(cols []scopeCol, a *pg_query.Alias) error {
	if a == nil {
		return nil
	}
	names := strs(a.Colnames)
	if len(names) > len(cols) {
		return pgerror.Newf(pgerror.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", a.Aliasname, len(cols), len(names))
	}
	for i, n := range names {
		cols[i].name = n
	}
	return nil
}

// ctePlan is a WITH query or a subquery in FROM: run once per execution.
type ctePlan struct {
	name string
	plan *selectPlan
	// outerRefs marks a query naming columns of an enclosing query: it
	// runs again whenever it is read (its plan is correlated), in the
	// context of the level that reads it, which must be one whose
	// enclosing query is parent, the scope it was compiled in.
	outerRefs bool
	parent    *scope
	// noReturning marks a data-modifying query without RETURNING, which
	// no FROM item may read.
	noReturning bool
	// inlinable marks a WITH query PostgreSQL folds into the query that
	// reads it when only one FROM item reads it (a SELECT, neither
	// MATERIALIZED nor recursive, calling no volatile function): the
	// item's unread outputs are not computed and its reader's conditions
	// run before its outputs, as for a subquery in FROM. refs counts the
	// items reading it so far, the first of them in first.
	inlinable bool
	refs      int
	first     *fromItem
	// worktables are the recursive queries whose rows of the current
	// round the query reads: itself for a recursive query's reference to
	// itself in its recursive term, those its FROM items read for a
	// subquery or WITH query there.
	worktables []*ctePlan
}

// noteReference counts item it, with columns cols, as a reader of the WITH
// query: the only reader of an inlinable one tracks what it reads
// (trackReads); a second reader makes PostgreSQL compute the query once,
// whole, for both, so the first reader's pruning is undone.
func (cte *ctePlan) noteReference(it *fromItem, cols []scopeCol) {
	if !cte.inlinable {
		return
	}
	cte.refs++
	switch cte.refs {
	case 1:
		trackReads(it, cols, cte.plan)
		cte.first = it
	case 2:
		cte.first.readsOf = nil
		cte.plan.skip, cte.plan.deferErrs = nil, nil
	}
}

// cteItem makes a FROM item of sc that reads a WITH query or a subquery.
func (b *binder) cteItem(sc *scope, cte *ctePlan, alias string, a *pg_query.Alias) (*fromItem, []scopeCol, error) {
	p := cte.plan
	b.worktableReads = append(b.worktableReads, cte.worktables...)
	hops := 0
	if cte.outerRefs {
		// Read in a nested subquery, the query runs on the outer rows of
		// the level it was written at: the reader's context less the rows
		// of the levels in between.
		s := sc.parent
		for s != nil && s != cte.parent {
			s, hops = s.parent, hops+1
		}
		if s != cte.parent {
			return nil, nil, pgerror.Unsupported("a WITH query that references columns of an outer query, read outside the query it belongs to")
		}
	}
	at := func(x *execCtx) *execCtx {
		if hops == 0 {
			return x
		}
		c := *x
		c.outer = x.outer[: len(x.outer)-hops : len(x.outer)-hops]
		return &c
	}
	cols := make([]scopeCol, len(p.cols))
	for i, c := range p.cols {
		cols[i] = scopeCol{rel: alias, name: c.Name, typ: c.typ, coll: storedCollation(c.coll)}
	}
	if err := applyColAliases(cols, a); err != nil {
		return nil, nil, err
	}
	it := &fromItem{name: alias, sub: func(x *execCtx) ([][]any, error) { return p.rowsCached(at(x)) }, subPlan: p.node, source: cte.name}
	if p.lazy != nil {
		it.each = func(x *execCtx, yield func(row []any) error) error { return p.lazyCached(at(x)).each(at(x), yield) }
	}
	return it, cols, nil
}

// functionItem compiles a function in FROM: unnest, fickle_check() and
// the set-returning functions of setFuncs.
func (b *binder) functionItem(sc *scope, rf *pg_query.RangeFunction) (*fromItem, []scopeCol, error) {
	if it, cols, isUnnest, err := b.unnestItem(sc, rf); isUnnest {
		return it, cols, err
	}
	// LATERAL before a function is a noise word: a function in FROM reads
	// the items before it in any case.
	if rf.IsRowsfrom {
		return b.rowsFromItem(sc, rf)
	}
	if len(rf.Functions) != 1 {
		return nil, nil, pgerror.Unsupported("this form of function in FROM")
	}
	fl := rf.Functions[0].GetList()
	if fl == nil || len(fl.Items) == 0 {
		return nil, nil, pgerror.Unsupported("this form of function in FROM")
	}
	fc := fl.Items[0].GetFuncCall()
	if fc == nil {
		return nil, nil, pgerror.Unsupported("this form of function in FROM")
	}
	name := strings.ToLower(lastName(fc.Funcname))
	if name == "fickle_check" {
		return b.fickleCheckItem(rf, fc)
	}
	fn := b.lookupSetFunc(strs(fc.Funcname))
	if len(rf.Coldeflist) > 0 && fn != nil && !fn.record {
		return nil, nil, b.columnDefinitionsNotAllowed(rf)
	}
	if fn != nil {
		return b.setFunctionItem(sc, rf, fn, fc)
	}
	if it, cols, ok, err := b.userFunctionItem(sc, rf, fc); ok {
		return it, cols, err
	}
	if it, cols, ok, err := b.scalarFunctionItem(sc, rf, fc); ok {
		if err == nil && len(rf.Coldeflist) > 0 {
			return nil, nil, b.columnDefinitionsNotAllowed(rf)
		}
		return it, cols, err
	}
	return nil, nil, b.errAt(pgerror.Unsupported("function "+name+" in FROM"), fc.Location)
}

// usingCondition turns JOIN ... USING (cols) or NATURAL JOIN into the
// equality of the named columns of the kept side (the columns from start to
// mid) and the other item (those from mid on), and merges the pair: the
// other item's column is left
// out of * and of unqualified references, as PostgreSQL shows the column
// once, and * lists the merged columns first. The kept side is the join's
// left one, or its right one for a RIGHT JOIN (swapped), whose merged
// column is the right side's.
func (b *binder) usingCondition(sc *scope, start, mid int, j *pg_query.JoinExpr, swapped bool) (*pg_query.Node, error) {
	kept, rest := sc.cols[start:mid], sc.cols[mid:]
	left, right := kept, rest
	if swapped {
		left, right = rest, kept
	}
	names := b.usingNames(j, left, right)
	if a := j.JoinUsingAlias; a != nil && fromNameTaken(sc, a.Aliasname) {
		return nil, duplicateFromName(a.Aliasname)
	}
	var args []*pg_query.Node
	var merged []int
	for _, name := range names {
		l, err := usingColumn(name, left, "left")
		if err != nil {
			return nil, err
		}
		r, err := usingColumn(name, right, "right")
		if err != nil {
			return nil, err
		}
		k, o := start+l, mid+r
		if swapped {
			k, o = start+r, mid+l
		}
		if kt, ot := sc.cols[k].typ, sc.cols[o].typ; kt.Oid != ot.Oid {
			lt, rt := kt, ot
			if swapped {
				lt, rt = ot, kt
			}
			common, err := types.CommonType("JOIN/USING", lt, rt)
			if err != nil {
				return nil, err
			}
			if common.Oid != kt.Oid {
				sc.cols[k].usingType = common
				sc.cols[k].usingInner = j.Jointype == pg_query.JoinType_JOIN_INNER
			}
		}
		sc.cols[o].hidden, sc.cols[o].merged = true, true
		if a := j.JoinUsingAlias; a != nil {
			sc.cols[k] = withUsingAlias(sc.cols[k], a.Aliasname, len(merged))
		}
		merged = append(merged, k)
		ref := func(rel string) *pg_query.Node {
			return pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(rel), pg_query.MakeStrNode(name)}, -1)
		}
		args = append(args, pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("=")},
			ref(sc.cols[k].rel), ref(sc.cols[o].rel), -1))
	}
	usingStarOrder(sc, start, len(sc.cols), merged)
	switch len(args) {
	case 0:
		return nil, nil
	case 1:
		return args[0], nil
	}
	return pg_query.MakeBoolExprNode(pg_query.BoolExprType_AND_EXPR, args, -1), nil
}

// usingNames are the columns a join USING merges: its list, or for
// NATURAL the columns both sides have, in the left side's order as
// PostgreSQL lists them (recorded for a view's stored query).
func (b *binder) usingNames(j *pg_query.JoinExpr, left, right []scopeCol) []string {
	if !j.IsNatural {
		return strs(j.UsingClause)
	}
	var names []string
	for _, lc := range left {
		if !lc.merged && !lc.system && slices.ContainsFunc(right, func(rc scopeCol) bool { return lc.name == rc.name && !rc.merged && !rc.system }) {
			names = append(names, lc.name)
		}
	}
	b.freezeNatural(j, names)
	return names
}

// usingColumn finds the column of one side of a join (cols) that USING
// names, with PostgreSQL's errors for none and for two.
func usingColumn(name string, cols []scopeCol, side string) (int, error) {
	at := -1
	for i, c := range cols {
		if c.name == name && !c.merged && !c.system {
			if at >= 0 {
				return 0, pgerror.Newf(pgerror.AmbiguousColumn, "common column name \"%s\" appears more than once in %s table", name, side)
			}
			at = i
		}
	}
	if at < 0 {
		return 0, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" specified in USING clause does not exist in %s table", name, side)
	}
	return at, nil
}

// freezeNatural records a NATURAL join's common columns for a view's
// stored query.
func (b *binder) freezeNatural(j *pg_query.JoinExpr, names []string) {
	if b.frozen != nil {
		b.frozen.natural[j] = names
	}
}

// naturalOf returns the common columns recorded for NATURAL join j.
func (p *frozenParts) naturalOf(j *pg_query.JoinExpr) ([]string, bool) {
	if p == nil {
		return nil, false
	}
	names, ok := p.natural[j]
	return names, ok
}

// usingStarOrder makes * list the join's columns (cols[start:end]) as
// PostgreSQL does after USING or NATURAL: the merged columns first, in the
// USING list's order, then the others in their order.
func usingStarOrder(sc *scope, start, end int, merged []int) {
	if len(merged) == 0 {
		return
	}
	order := sc.starOrder
	if order == nil {
		for i := range sc.cols {
			order = append(order, i)
		}
	}
	out := make([]int, 0, len(order))
	placed := false
	for _, i := range order {
		switch {
		case i < start || i >= end:
			out = append(out, i)
		case !placed:
			placed = true
			out = append(out, merged...)
			fallthrough
		default:
			if !slices.Contains(merged, i) {
				out = append(out, i)
			}
		}
	}
	sc.starOrder = out
}
