package sqlexec

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// execCtx is the state of one statement execution that compiled
// expressions and plans read.
type execCtx struct {
	ctx    context.Context
	s      *Session
	txn    *isolation.Txn
	params []any
	env    *types.Env
	// operands are the values of the shared operands of the expressions
	// being evaluated, innermost last (onceOperand).
	operands []operandValue
	// row is the current row of the innermost query level: the columns of
	// every FROM item side by side (or, above an aggregation, the group
	// values then the aggregate results).
	row []any
	// outer holds the current rows of the enclosing query levels, innermost
	// last, for correlated subqueries.
	outer [][]any
	// caches are the statement's, made when it starts, so that every level
	// shares them.
	caches *stmtCaches
	// items caches the reads of cached FROM items for one run of a query
	// level.
	items map[*fromItem]*itemRows
	// win holds the window function values of the row being projected.
	win []any
	// srf holds the values of the select list's set-returning calls for
	// the output row being projected.
	srf []any
	// marks and epq serve the lock stage of a SELECT ... FOR (lockrows.go):
	// marks collects what it needs of each joined row, epq fixes the items'
	// rows for a re-check.
	marks *rowMarks
	epq   *epqRows
	// stats collects EXPLAIN ANALYZE's counts; nil otherwise.
	stats planStats
	// recordShape is the column definition list of the call in FROM
	// being run, the shape a function returning record returns its rows
	// in (functions_record.go); nil elsewhere.
	recordShape []types.Field
	// stmtMark is where the current statement's snapshot of the
	// transaction's own writes ends; asOf, when set, hides the own writes
	// made after it from this context's reads (routine_snapshot.go).
	stmtMark, asOf isolation.WriteMark
	// withSnapshot, set while a statement with data-modifying WITH queries
	// runs, holds the tables they modify, which every other part of the
	// statement reads as of its start (with_dml.go).
	withSnapshot *withSnapshot
	// systemCatalog, when set, is the catalog the system tables show
	// instead of the session's current one: CREATE TABLE AS's query reads
	// the catalog from before its table existed, as PostgreSQL's does.
	systemCatalog *catalog
	// ddlCatalog, set while ALTER TABLE computes the new values of a
	// table's rows (ddl.rewriteRows), is the catalog the statement is
	// building, where its expressions find what it created (ADD COLUMN ...
	// serial's sequence).
	ddlCatalog *catalog
	// exprCatalog, set while an index's expressions are evaluated (which
	// happens without a session), is the catalog they were compiled
	// against: where they find a user's text search configuration.
	exprCatalog *catalog
	// identityNextval is set while an identity column's default runs:
	// its nextval needs no privilege on the sequence, as PostgreSQL's
	// NextValueExpr needs none (identityDefault).
	identityNextval bool
	// actionConflicts, set on a rule action's statement, which fickle runs
	// once for each event row, keeps the rows its ON CONFLICT DO UPDATE
	// inserted or updated across those runs: PostgreSQL runs the action as
	// one statement, which may not update a row a second time (21000).
	actionConflicts map[*conflictPlan]map[string]bool
}

// child returns the context a subquery of the current row runs in.
func (x *execCtx) child() *execCtx {
	c := *x
	c.outer = append(x.outer[:len(x.outer):len(x.outer)], x.row)
	c.row = nil
	c.items, c.marks, c.epq = nil, nil, nil
	return &c
}

// Interrupted is checkCancel as the environment's types.Interrupter.
func (x *execCtx) Interrupted() error { return x.checkCancel() }

func (x *execCtx) checkCancel() error {
	if err := x.ctx.Err(); err != nil {
		return cancelError(err)
	}
	return nil
}

// cancelError turns a context error into 57014.
func cancelError(err error) error {
	if err == context.DeadlineExceeded {
		return pgerror.Wrapf(err, pgerror.QueryCanceled, "canceling statement due to statement timeout")
	}
	return pgerror.Wrapf(err, pgerror.QueryCanceled, "canceling statement due to user request")
}

// evalFn computes a value from the execution state.
type evalFn func(x *execCtx) (any, error)

// scalar is a compiled, typed expression.
type scalar struct {
	typ  types.Type
	eval evalFn
	// slot is the row slot of a plain column reference of the current
	// level, -1 otherwise.
	slot int
	// refs is the set of FROM items of the current level the expression
	// reads (bit i for item i; bit 63 stands for "item 63 or later").
	refs uint64
	// param is n for a bare $n whose type is not yet known.
	param int
	// lit holds the text of an untyped string literal, litLoc its place
	// in the statement.
	lit    *string
	litLoc int32
	// null marks an untyped NULL literal.
	null bool
	// volatile marks expressions that must not be computed once.
	volatile bool
	// name is the output column name PostgreSQL would give the expression.
	name string
	// weakName marks a name that comes from a type cast: an enclosing cast
	// replaces it with its own type name (PostgreSQL's FigureColname).
	weakName bool
	// row holds the fields of a row constructor, which compares with
	// another row constructor field by field (row.go).
	row []*scalar
	// domain is the domain a cast gave the value (typ is its base type),
	// or that of the table column it reads; plain says the value is of
	// typ itself, not of a domain (a table column of no domain), where
	// the expression's form does not say so (mayBeOfDomain).
	domain *typeDesc
	plain  bool
	// coll is the collation derived for the expression (collation.go).
	coll collState
	// usingOf is, for the merged column of a JOIN ... USING read as the
	// pair's common type, the column reference it converts (GROUP BY of
	// that column covers it).
	usingOf *scalar
	// outID is the scopeCol.outID of the computed output of a flattened
	// subquery the expression is a reference to, 0 otherwise.
	outID int
}

func itemBit(i int) uint64 {
	if i >= 63 {
		return 1 << 63
	}
	return 1 << uint(i)
}

// scope is the set of columns visible at one query level.
type scope struct {
	cols []scopeCol
	// starOrder, when set, is the order in which * lists cols (a RIGHT JOIN
	// reads its right side first but lists its left side's columns first).
	starOrder []int
	parent    *scope
	// pending collects the items of this level that nested subqueries
	// reference (correlation).
	pending uint64
	// agg, when set, compiles expressions above a GROUP BY or aggregate.
	agg *aggScope
	// noAgg names the clause where aggregates are not allowed ("WHERE").
	noAgg string
	// noSystemCols names the clause where system columns other than
	// tableoid are not allowed ("MERGE WHEN condition").
	noSystemCols string
	// noAggWin names a clause where aggregates and window functions are
	// not allowed but set-returning functions are (GROUP BY).
	noAggWin string
	// win, when set, collects window function calls (select list and ORDER
	// BY of a query without grouping).
	win *winScope
	// srf, when set, collects the set-returning calls of a select list.
	srf *srfScope
	// srfBarred names the expression being compiled that a set-returning
	// call may not be in although the select list takes them ("CASE",
	// "COALESCE": PostgreSQL would evaluate the call for the rows the
	// condition skips), "" outside one.
	srfBarred string
	ctes      map[string]*ctePlan
	// target is the number of leading columns that are an UPDATE's or
	// DELETE's target, which the FROM items of its level may not
	// reference; unreachable holds them in such an item's scope, where a
	// reference to one fails with 42P10, as in PostgreSQL (lateralScope).
	target      int
	unreachable []scopeCol
	// hiddenRels names the relations of the query level that a
	// parenthesized join's conditions may not reference (for the error).
	hiddenRels []string
	// rels names the FROM items of the level (a subquery of no columns
	// brings none to cols).
	rels []string
	// mayAggregate marks the FROM scope of a query level that does not
	// aggregate while its select list, ORDER BY and windows compile: an
	// aggregate met there that belongs to the level makes it aggregate
	// (agg_levels.go). aggLevelClause names the clause of a scope where
	// aggregates of its level are not allowed though its noAgg is unset
	// ("FROM clause of their own query level" for a LATERAL subquery).
	mayAggregate   bool
	aggLevelClause string
	// aggArgsClause is the noAgg of a scope whose noAgg is "aggregate
	// function calls" while an aggregate's inputs compile: the clause the
	// call is in, for the error of a window call among them.
	aggArgsClause string
	// deparsed marks the scope of a query level ruleutils prints, whose
	// subqueries it compiles for their types alone.
	deparsed bool
	// excluded is the row slot offset of ON CONFLICT's EXCLUDED, -1 if none.

	// base is the row slot of the first of cols, and itemBase the index of
	// the level's first item among the level's: zero, but for a flattened
	// subquery's FROM (buildFromAt).
	base, itemBase int
}

type scopeCol struct {
	rel    string // the FROM item's name or alias
	name   string
	typ    types.Type
	item   int
	slot   int
	hidden bool // not expanded by *
	// merged marks the right-hand column of a JOIN ... USING pair: only a
	// qualified reference reaches it.
	merged bool
	// usingType, set on the left-hand column of a JOIN ... USING pair whose
	// columns' common type is another, is the type an unqualified
	// reference and * read it as: PostgreSQL's merged column.
	usingType types.Type
	// usingInner, set with usingType, says the pair is an inner join's:
	// PostgreSQL's merged column is then the right side's column when
	// that one has the common type (ruleutils names it so).
	usingInner bool
	tableOID   uint32
	attnum     int16
	// knownType says the column is of the domain knownDomain over typ,
	// or of typ itself for 0, where no table column says so (a domain
	// CHECK's VALUE).
	knownType   bool
	knownDomain uint32
	// itemRowType is the composite type of the item's rows when the item
	// is a function in FROM returning one (unnest of a composite array):
	// the type of a whole-row reference to the item.
	itemRowType types.Type
	// scalarItem marks the one column of a function in FROM that returns a
	// scalar type: a whole-row reference to the item is its value.
	scalarItem bool
	// system marks the system column tableoid: hidden from *, NATURAL
	// and USING. relOID, when set, is its value for every row (a table
	// read without inheritance children, tableoid.go).
	system bool
	relOID uint32
	// coll is the column's collation: "" for its type's, a name, or
	// collIndeterminateName (collation.go).
	coll string
	// nullable marks a column of an item on the nullable side of an outer
	// join: its NULLs may stand for a missing row (whole_row.go).
	nullable bool
	// nullMark, with hasNullMark, is the slot of the presence marker of the
	// innermost LEFT JOIN item the column belongs to (fromItem.presence):
	// NULL there when the join null-extended the row. Among the columns a
	// join item's builder returns it counts from the item's first column.
	nullMark    int
	hasNullMark bool
	// read, when set, is marked when the column is read (trackReads).
	read *bool
	// joinAlias marks a column of an aliased join ((a JOIN b) AS j): a
	// qualified reference j.col reads a USING pair's merged column, as an
	// unqualified one does.
	joinAlias bool
	// usingAliases are the aliases of the JOIN ... USING ... AS joins whose
	// merged column this column stands for (from_using_alias.go).
	usingAliases []usingAlias
	// expr, set on an output of a flattened subquery that computes it
	// (from_pullup.go), is its expression over the level's row: what a
	// reference to the column evaluates, there and then. outID tells the
	// outputs apart, as a slot tells columns apart, for GROUP BY.
	expr  *scalar
	outID int
	// refused, when set, makes a reference to the column fail with 0A000
	// naming it (the ctid of a table whose rows fickle cannot size,
	// row_versions.go).
	refused string
}

// markRead notes that c is read, for an item that tracks its reads.
func (c scopeCol) markRead() {
	if c.read != nil {
		*c.read = true
	}
}

// binder resolves names and types for one statement.
type binder struct {
	s   *Session
	cat *catalog
	// costs holds what the binder learned so far of the costs of the
	// expressions it compiled (qual_order.go).
	costs exprCosts
	// groupedKeys lists the tables whose primary key, grouped by, let
	// the statement read other columns of theirs (dependsOnGroupedKey): a
	// view that does depends on the key.
	groupedKeys []uint32
	// literalPos is the position of the string literal whose conversion
	// the domain checks being compiled stand for, 0 for none: array_in
	// checks the elements of an array of a domain as it reads the
	// literal, so their errors point at it (domainArrayCheck).
	literalPos int
	// storedCheck marks the compiling of a column's domain check where a
	// row is written: an array of a domain's NULL elements are then left
	// unchecked, as PostgreSQL checks elements only where a value is
	// converted to the array type, never the NULLs an assignment to a
	// subscript past the end pads the array with (domainArrayCheck).
	storedCheck bool
	// frozen, when set, records what a view keeps of its query as bound
	// when it is made (freezeQuery).
	frozen *frozenParts
	// collCtx collects the collations of the subexpressions of the
	// expression being compiled; nil where they merge into nothing
	// (collation.go).
	collCtx *collState
	// topWith is the WITH clause of the statement being compiled when it
	// holds data-modifying queries, dataModifying those queries, and
	// outerCTEs the WITH queries one of them may read (with_dml.go).
	topWith       *pg_query.WithClause
	dataModifying []*dataModifyingCTE
	outerCTEs     map[string]*ctePlan
	// worktableReads lists, for each FROM item compiled so far that reads
	// a recursive query's rows of the current round, directly or through
	// other queries, those recursive queries (ctePlan.worktables): a
	// subquery or WITH query holding one runs again in every round.
	worktableReads []*ctePlan
	// perms are the privileges the statement needs (privileges_check.go);
	// privRole, when set, is the role they are checked for (a view's owner
	// while its query is compiled).
	perms    []permCheck
	privRole uint32
	// writeAs, when set, is the role the next INSERT, UPDATE or DELETE
	// compiled checks its target relation for: the owner of the view the
	// statement writes through, as PostgreSQL checks a view's base
	// relation (takeWriteAs).
	writeAs uint32
	// expanding are the views whose queries are being compiled, innermost
	// last: a view met again inside its own expansion is a cycle
	// (viewItem).
	expanding []*viewDesc
	// pulledOutIDs counts the computed outputs of flattened subqueries,
	// numbering them (scopeCol.outID); pullUpPlainOnly is set while a
	// parenthesized join's FROM compiles, whose rows are made before the
	// outputs are read, so that none is computed there.
	pulledOutIDs    int
	pullUpPlainOnly bool
	// pullUpOK is set while the FROM clause of a query level that may
	// flatten its simple subqueries and views compiles (from_pullup.go):
	// one without FOR UPDATE or SHARE, which fickle refuses on them, and
	// not a cursor's, whose positions name its tables.
	pullUpOK bool
	// viewVersions says a write is rewritten through a view that names
	// xmin, xmax or ctid (views_update.go, row_versions.go).
	viewVersions bool
	// rlsTarget names the target of the UPDATE or DELETE being compiled
	// and rlsCompiling the tables whose policies are being compiled
	// (rls_apply.go).
	rlsTarget rowSecurityTarget
	// viewChecks are the check options of the views the statement being
	// compiled was rewritten from (views_check.go).
	viewChecks []viewCheck
	// viewDepth counts the views the statement was rewritten through.
	viewDepth    int
	rlsCompiling map[uint32]bool
	// full is the whole query string the statement came from, for error
	// positions.
	full string
	// declaring is the top-level SELECT of the DECLARE CURSOR being
	// compiled, and cursorShape what its compiling found of it
	// (current_of.go).
	declaring   *pg_query.SelectStmt
	cursorShape *cursorShape
	// versionsNamed caches readsRowVersions for versionsText.
	versionsText  string
	versionsNamed bool
	// params holds the type of each $n (index n-1); a zero Oid is not yet
	// known.
	params []types.Type
	// fixedParams is set when params lists every parameter the statement
	// has (a routine body's arguments): a $n beyond them is 42P02.
	fixedParams bool
	// paramDomains holds the domain each $n is of (index n-1; 0 for
	// none), whose base type params holds (param_domains.go).
	paramDomains []uint32
	// paramTargets holds the column type, with its modifier, each $n is
	// assigned to as a whole value ($n or $n::type; index n-1, zero where
	// none).
	paramTargets []types.Type
	// untypedParams are the $n occurrences bound before their parameter
	// had a type, with their places, and typedByUse the parameters an
	// occurrence gave a type (checkParamOccurrences).
	untypedParams []untypedParam
	typedByUse    map[int]bool
	// locks are the tables the statement uses, in the order it names
	// them, with the lock each needs (useTable).
	locks []planLock
	// unknownOutputs tells the next query level compiled what to do with
	// its unknown-typed select-list items (INSERT ... SELECT, set
	// operations); that level resets it.
	unknownOutputs unknownOutputs
	// vars resolves the names a routine body gives its parameters and
	// variables (functions_sql.go, plpgsql*.go) where no column has the
	// name; nil outside routine bodies.
	vars func(b *binder, fields []string, loc int32) (*scalar, bool)
	// varsConflict makes a name that is both a column and a variable an
	// error, as PL/pgSQL's default variable_conflict = error does (a SQL
	// function's columns win over its parameters).
	varsConflict bool
	// subplans are the subqueries of expressions compiled since the
	// enclosing query level began, for its plan (claimSubplans).
	subplans []subPlan
	// constChecks evaluate, when the statement starts, the constant
	// expressions PostgreSQL computes when it plans (case_fold.go).
	constChecks []func(*execCtx) error
	// volatileCalls counts the volatile calls compiled so far (and the
	// calls of functions that are not immutable): a subquery that adds
	// none may be run once instead of once per row (semijoin.go).
	volatileCalls int
	// pgVolatileCalls counts the calls compiled so far of functions that
	// PostgreSQL marks VOLATILE (stable ones not included): a cursor over
	// them computes them when it fetches, not when it is declared
	// (cursor.go).
	pgVolatileCalls int
	// stableSubLinks records, for each subquery expression compiled,
	// whether it calls no volatile function (pgVolatileCalls).
	stableSubLinks map[*pg_query.SubLink]bool
	// mutableCalls counts the calls compiled so far of functions that are
	// not immutable (stable ones included), which index predicates and
	// expressions may not use (index_predicate.go).
	mutableCalls int
	// routineCalls counts the calls of user functions compiled so far,
	// which index expressions cannot evaluate outside a session;
	// mutableOpaqueCalls those of them not immutable and not in LANGUAGE
	// sql, which PostgreSQL cannot inline before it checks volatility.
	routineCalls, mutableOpaqueCalls int
	// extOpsUsed, when set, collects the OIDs of the extensions' operators
	// the expressions compiled apply (extension_operators.go).
	extOpsUsed map[uint32]bool
	// operatorChoices memoizes operator resolution among extensions' and
	// users' operators for the statement (ddl_operator_resolve.go).
	operatorChoices map[operatorChoiceKey]operatorChoice
	// modifying is the target of the UPDATE or DELETE being compiled: its
	// rows are written back, so it gets no tableoid slot (tableoid.go).
	modifying *pg_query.RangeVar
	// rewriting lists the relations and events whose rules the statement
	// being compiled comes from, and plainTarget is the relation whose
	// statement is being compiled without its rules (rules_rewrite.go).
	rewriting   []ruleEvent
	plainTarget uint32
	// aggRefs collect the levels read by the aggregate calls being
	// compiled, innermost last, and outerAggs holds the calls found to
	// belong to an enclosing level (agg_levels.go).
	aggRefs   []*aggRefs
	outerAggs map[*pg_query.FuncCall]bool
	// notationCalls are the aggregate calls that column references in
	// column notation stand for (t.count for count(t), notationAggregate).
	notationCalls map[*pg_query.ColumnRef]*pg_query.Node
	// peeking counts the compiles under way that only peek (aside).
	peeking int
}

func (b *binder) pos(loc int32) int {
	if loc < 0 || int(loc) > len(b.full) {
		return 0
	}
	return utf8.RuneCountInString(b.full[:loc]) + 1
}

// errAt attaches the position of loc to a pgerror.
func (b *binder) errAt(err *pgerror.Error, loc int32) *pgerror.Error {
	if p := b.pos(loc); p > 0 {
		c := *err // err may be shared by every statement that fails alike
		c.Position = p
		return &c
	}
	return err
}

// paramType returns the known type of $n.
func (b *binder) paramType(n int) types.Type {
	if n-1 < len(b.params) {
		return b.params[n-1]
	}
	return types.Type{}
}

func (b *binder) setParamType(n int, t types.Type) {
	for len(b.params) < n {
		b.params = append(b.params, types.Type{})
	}
	if t.Oid == types.OidUnknown {
		t = types.Text
	}
	b.params[n-1] = t
	if b.typedByUse == nil {
		b.typedByUse = map[int]bool{}
	}
	b.typedByUse[n] = true
}

// untypedParam is an occurrence of $n bound while n had no type yet.
type untypedParam struct {
	e   *scalar
	loc int32
}

// checkParamOccurrences fails, as PostgreSQL's check_variable_parameters
// does (42P08), when an occurrence of a parameter bound before the
// parameter had a type was never given one although another occurrence
// gave the parameter its type: "$1 IS NULL OR name = $1" leaves the first
// $1 untyped, as IS NULL types nothing.
func (b *binder) checkParamOccurrences() error {
	for _, u := range b.untypedParams {
		if n := u.e.param; n > 0 && b.typedByUse[n] {
			return b.errAt(pgerror.Newf(pgerror.AmbiguousParameter, "could not determine data type of parameter $%d", n), u.loc)
		}
	}
	return nil
}

// unresolved reports whether e is a $n of not yet known type.
func unresolved(e *scalar) bool { return e.param > 0 }

// fix gives an unresolved parameter or untyped literal the type t.
func (b *binder) fix(e *scalar, t types.Type) (*scalar, error) {
	if unresolved(e) {
		b.setParamType(e.param, t)
		e.typ, e.param = b.paramType(e.param), 0
		return e, nil
	}
	if e.lit != nil || e.null {
		return b.coerce(e, t, types.CastImplicit)
	}
	return e, nil
}

// coerce converts e to type to in the given context.
func (b *binder) coerce(e *scalar, to types.Type, ctx types.CastContext) (*scalar, error) {
	if unresolved(e) {
		// The parameter takes the type without its modifier (the wire
		// carries only OIDs); the modifier is applied as a cast.
		base := types.Type{Oid: to.Oid, Typmod: -1}
		if _, err := b.fix(e, base); err != nil || to.Typmod < 0 {
			return e, err
		}
	}
	if e.null {
		return &scalar{typ: to, eval: constEval(nil), slot: -1, name: e.name}, nil
	}
	if e.typ == to || (e.typ.Oid == to.Oid && to.Typmod < 0) {
		return e, nil
	}
	if conv := b.inheritedRowConversion(e, to); conv != nil {
		return conv, nil
	}
	f, err := types.LookupCastEnv(e.typ, to, ctx)
	if err != nil {
		return nil, err
	}
	if e.lit == nil && castIsMutable(e.typ, to) {
		b.mutableCalls++
	}
	out, err := castScalar(e, to, f, b.bindEnv())
	if err != nil || !to.IsComposite() {
		return out, err
	}
	pos := int32(-1)
	if e.lit != nil {
		pos = e.litLoc
	}
	return b.checkingFieldDomains(out, to, pos)
}

// checkingFieldDomains makes e, a value converted to composite type to,
// check the domains to declares its fields with, as PostgreSQL's
// conversion of a row to the type does; a failure of a literal's input
// points at the literal (at loc, -1 for none).
func (b *binder) checkingFieldDomains(e *scalar, to types.Type, loc int32) (*scalar, error) {
	checks, err := compositeFieldChecks(b, to)
	if err != nil || checks == nil {
		return e, err
	}
	pos := b.pos(loc)
	inner := e.eval
	checked := *e
	checked.eval = func(x *execCtx) (any, error) {
		v, err := inner(x)
		if r, ok := v.([]any); ok && err == nil {
			for i, check := range checks {
				if check == nil || i >= len(r) {
					continue
				}
				if err := check(x, r[i]); err != nil {
					if pe, ok := err.(*pgerror.Error); ok && pos > 0 && pe.Position == 0 {
						c := *pe
						c.Position = pos
						return nil, &c
					}
					return nil, err
				}
			}
		}
		return v, err
	}
	return &checked, nil
}

// bindEnv is the environment constants are read in while the statement is
// bound: the session's, with the catalog the statement is bound to.
func (b *binder) bindEnv() *types.Env {
	env := b.s.newEnv()
	env.Catalog = catalogNames{s: b.s, cat: b.cat}
	return env
}

// castScalar is e converted to type to by f: once, while binding, for a
// literal (in bindEnv: a regclass literal resolves against the catalog the
// statement is bound to, as PostgreSQL resolves it when it parses the
// statement), else at every evaluation in the statement's env (its
// TimeZone and DateStyle). A NULL stays NULL.
func castScalar(e *scalar, to types.Type, f types.EnvCastFunc, bindEnv *types.Env) (*scalar, error) {
	if e.lit != nil && !types.ReadsTransactionTime(to, *e.lit) {
		v, err := f(bindEnv, *e.lit)
		if err != nil {
			return nil, err
		}
		return &scalar{typ: to, eval: constEval(v), slot: -1, name: e.name}, nil
	}
	if e.lit != nil {
		// 'now' and 'today' are read when the statement runs, in its
		// transaction, since a cached plan outlives the transaction.
		lit := *e.lit
		return &scalar{typ: to, slot: -1, name: e.name, eval: func(x *execCtx) (any, error) { return f(x.env, lit) }}, nil
	}
	inner := e.eval
	return &scalar{typ: to, slot: -1, refs: e.refs, volatile: e.volatile, name: e.name, eval: func(x *execCtx) (any, error) {
		v, err := inner(x)
		if err != nil || v == nil {
			return nil, err
		}
		return f(x.env, v)
	}}, nil
}

func constEval(v any) evalFn { return func(*execCtx) (any, error) { return v, nil } }

// tableInScope reports whether sc or a parent reads a table (named rel,
// when rel is not ""): one with system columns, which have tableoid.
func tableInScope(sc *scope, rel string) bool {
	for cur := sc; cur != nil; cur = cur.parent {
		for _, c := range cur.cols {
			if c.system && c.name == "tableoid" && (rel == "" || c.rel == rel) {
				return true
			}
		}
	}
	return false
}

// colOfSchema reports whether c may answer to schema.table.column: a
// column of a table must be of a table of that schema, read under its own
// name (a column of another kind of item, a view's say, is taken by its
// item's name alone).
func (b *binder) colOfSchema(c scopeCol, schema string) bool {
	oid := c.tableOID
	if c.system {
		oid = c.relOID
	}
	t := b.cat.tables[oid]
	return t == nil || t.schema == schema && t.name == c.rel
}

// resolveCol finds a column reference in sc and its parents.
func (b *binder) resolveCol(sc *scope, fields []string, loc int32) (*scalar, error) {
	var schema, rel, name string
	switch len(fields) {
	case 1:
		name = fields[0]
	case 2:
		rel, name = fields[0], fields[1]
	case 3:
		schema, rel, name = b.s.schemaAlias(fields[0]), fields[1], fields[2]
	default:
		return nil, b.errAt(pgerror.Newf(pgerror.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(fields, ".")), loc)
	}
	depth := 0
	for cur := sc; cur != nil; cur, depth = cur.parent, depth+1 {
		found := -1
		relSeen := false
		cols := cur.cols
		if rel != "" && schema == "" {
			if ac := cur.usingAliasCols(rel); ac != nil {
				cols = ac
			}
		}
		for i, c := range cols {
			if rel != "" {
				if c.rel != rel || schema != "" && !b.colOfSchema(c, schema) {
					continue
				}
				relSeen = true
			} else if c.merged {
				continue
			}
			if c.name != name {
				continue
			}
			if found >= 0 {
				if rel != "" && cols[found].item != c.item {
					// Two FROM items of one name, as an ON CONFLICT
					// target called excluded and EXCLUDED itself.
					return nil, b.errAt(pgerror.Newf(pgerror.AmbiguousAlias, "table reference \"%s\" is ambiguous", rel), loc)
				}
				return nil, b.errAt(pgerror.Newf(pgerror.AmbiguousColumn, "column reference \"%s\" is ambiguous", name), loc)
			}
			found = i
		}
		if found < 0 {
			for _, c := range cur.unreachable {
				if c.name == name && (rel == "" || c.rel == rel) {
					return nil, b.errAt(pgerror.Newf(pgerror.InvalidColumnReference, "invalid reference to FROM-clause entry for table \"%s\"", c.rel).
						WithHint("There is an entry for table \"%s\", but it cannot be referenced from this part of the query.", c.rel), loc)
				}
			}
			if relSeen {
				if name != "tableoid" && slices.Contains(systemColumnNames, name) && tableInScope(cur, rel) {
					return nil, b.errAt(pgerror.Unsupported("system column \""+name+"\""), loc)
				}
				return nil, b.errAt(pgerror.Newf(pgerror.UndefinedColumn, "column %s.%s does not exist", rel, name), loc)
			}
			continue
		}
		c := cols[found]
		if c.refused != "" {
			return nil, b.errAt(pgerror.Unsupported(c.refused), loc)
		}
		if c.system && name != "tableoid" && sc.noSystemCols != "" {
			return nil, b.errAt(pgerror.Newf(pgerror.InvalidColumnReference, "cannot use system column \"%s\" in %s", name, sc.noSystemCols), loc)
		}
		c.markRead()
		if len(b.aggRefs) > 0 {
			b.noteColumnLevel(cur, loc)
		}
		if c.expr != nil {
			e, err := b.pulledRef(cur, c, depth, name, loc)
			if err != nil || rel != "" && !c.joinAlias {
				return e, err
			}
			return b.usingMerged(c, e)
		}
		slot := c.slot
		if c.relOID != 0 {
			return &scalar{typ: types.OidType, slot: -1, name: name, eval: constEval(int64(c.relOID))}, nil
		}
		var e *scalar
		if depth == 0 {
			e = &scalar{typ: c.typ, slot: slot, refs: itemBit(c.item), name: name, coll: outputCollation(c.typ, c.coll),
				eval: func(x *execCtx) (any, error) { return x.row[slot], nil }}
		} else if cur.agg != nil {
			// The outer query groups: a subquery above its GROUP BY reads
			// its aggregation row, where a grouped column has its group's
			// place.
			var err error
			if slot, err = b.outerGroupSlot(cur.agg, c, loc); err != nil {
				// Inside an aggregate call that may turn out to belong
				// to that level, where the column is no error.
				if !b.deferUngrouped(err) && !b.deferUngroupedOf(cur.agg, err) {
					return nil, err
				}
				return &scalar{typ: c.typ, slot: -1, name: name, eval: func(*execCtx) (any, error) { return nil, err }}, nil
			}
			cur.pending |= itemBit(c.item)
			d := depth
			e = &scalar{typ: c.typ, slot: -1, name: name, coll: outputCollation(c.typ, c.coll), eval: func(x *execCtx) (any, error) {
				return x.outer[len(x.outer)-d][slot], nil
			}}
		} else {
			cur.pending |= itemBit(c.item)
			d := depth
			e = &scalar{typ: c.typ, slot: -1, name: name, coll: outputCollation(c.typ, c.coll), eval: func(x *execCtx) (any, error) {
				return x.outer[len(x.outer)-d][slot], nil
			}}
		}
		e.domain, e.plain = b.columnDomain(c)
		if rel == "" || c.joinAlias {
			return b.usingMerged(c, e)
		}
		return e, nil
	}
	if name != "tableoid" && slices.Contains(systemColumnNames, name) && tableInScope(sc, rel) {
		return nil, b.errAt(pgerror.Unsupported("system column \""+name+"\""), loc)
	}
	if schema != "" && b.relVisible(sc, rel) {
		// An entry of that name, but not that schema's table under its own name.
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedTable, "invalid reference to FROM-clause entry for table \"%s\"", rel), loc)
	}
	if rel != "" {
		if !b.relVisible(sc, rel) {
			for cur := sc; cur != nil; cur = cur.parent {
				if slices.Contains(cur.hiddenRels, rel) {
					return nil, b.errAt(pgerror.Newf(pgerror.UndefinedTable, "invalid reference to FROM-clause entry for table \"%s\"", rel).
						WithHint("There is an entry for table \"%s\", but it cannot be referenced from this part of the query.", rel), loc)
				}
			}
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedTable, "missing FROM-clause entry for table \"%s\"", rel), loc)
		}
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedColumn, "column %s.%s does not exist", rel, name), loc)
	}
	return nil, b.errAt(pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", name), loc)
}

// usingMerged is e, an unqualified reference to column c, as the merged
// column of a JOIN ... USING reads it: converted to the pair's common type.
func (b *binder) usingMerged(c scopeCol, e *scalar) (*scalar, error) {
	if c.usingType.Oid == 0 {
		return e, nil
	}
	m, err := b.coerce(e, c.usingType, types.CastImplicit)
	if err != nil {
		return nil, err
	}
	m.name, m.usingOf = e.name, e
	return m, nil
}

func (b *binder) relVisible(sc *scope, rel string) bool {
	for cur := sc; cur != nil; cur = cur.parent {
		for _, c := range cur.cols {
			if c.rel == rel || slices.ContainsFunc(c.usingAliases, func(a usingAlias) bool { return a.name == rel }) {
				return true
			}
		}
	}
	return false
}

// strs returns the String values of a list of nodes.
func strs(ns []*pg_query.Node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.GetString_().GetSval())
	}
	return out
}

// typeName resolves a TypeName node.
func (b *binder) typeName(tn *pg_query.TypeName) (types.Type, error) {
	if tn.PctType || tn.Setof {
		return types.Type{}, b.errAt(pgerror.Unsupported("%TYPE and SETOF"), tn.Location)
	}
	// PostgreSQL looks the type up before it reads the modifiers
	// (typenameTypeMod), so a missing type is reported before modifiers
	// that are not integer constants.
	var mods []int32
	var badMods error
	for _, m := range tn.Typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			badMods = b.errAt(pgerror.New(pgerror.SyntaxError, "type modifiers must be simple constants or identifiers"), tn.Location)
			mods = nil
			break
		}
		mods = append(mods, c.GetIval().Ival)
	}
	names := strs(tn.Names)
	switch names[len(names)-1] {
	case "serial", "bigserial", "smallserial", "serial4", "serial8", "serial2":
		return types.Type{}, b.errAt(pgerror.Newf(pgerror.UndefinedObject, "type \"%s\" does not exist", names[len(names)-1]), tn.Location)
	}
	t, err := types.TypeByName(names, mods)
	if ut, ok := b.userType(names); ok && (err != nil || len(names) == 2) {
		if len(mods) > 0 || badMods != nil {
			return types.Type{}, b.errAt(pgerror.Newf(pgerror.SyntaxError, "type modifier is not allowed for type \"%s\"", ut), tn.Location)
		}
		t, err = ut, nil
		if len(tn.ArrayBounds) > 0 && b.domainNamed(tn) != nil {
			return types.Type{}, b.errAt(pgerror.Unsupported("arrays of domains"), tn.Location)
		}
	}
	if err != nil {
		if lackedBuiltinType(names, err) {
			return types.Type{}, b.errAt(pgerror.Unsupported("type "+names[len(names)-1]), tn.Location)
		}
		if pgerror.GetCode(err) == pgerror.UndefinedObject && len(names) <= 2 && b.viewNamed(names) {
			return types.Type{}, b.errAt(pgerror.Unsupported("the row type of a view"), tn.Location)
		}
		if pe, ok := err.(*pgerror.Error); ok {
			return types.Type{}, b.errAt(pe, tn.Location)
		}
		return types.Type{}, err
	}
	if badMods != nil {
		return types.Type{}, badMods
	}
	if len(tn.ArrayBounds) > 0 {
		return b.arrayTypeOf(t, tn.Location)
	}
	return t, nil
}

// viewNamed reports whether a possibly qualified type name names a view:
// in PostgreSQL its row type, which fickle does not have.
func (b *binder) viewNamed(names []string) bool {
	schema := ""
	if len(names) == 2 {
		schema = names[0]
	}
	return b.s.lookupView(b.cat, schema, names[len(names)-1]) != nil
}

// lackedBuiltinType reports whether err, fickle's 42704 for the type
// names, is for one of PostgreSQL 15's built-in types (anyelement,
// polygon, ...): fickle refuses it with 0A000 rather than say PostgreSQL
// has no such type.
func lackedBuiltinType(names []string, err error) bool {
	if pgerror.GetCode(err) != pgerror.UndefinedObject || len(names) > 2 || len(names) == 2 && names[0] != "pg_catalog" {
		return false
	}
	for _, bt := range builtinIndex().typesByName[names[len(names)-1]] {
		if bt.namespace == oidPgCatalog {
			return true
		}
	}
	return false
}

// stmtCaches are a statement's caches: the results of its uncorrelated
// subqueries, and memo, what compiled expressions derive from them. Their
// maps are made on first use, as most statements need neither; copies of
// the execution context share them through its pointer.
type stmtCaches struct {
	subqueries map[*selectPlan][][]any
	lazy       map[*selectPlan]*lazyRows
	memo       map[any]any
}

// memoGet returns what the statement's memo keeps under k.
func (x *execCtx) memoGet(k any) (any, bool) {
	if x.caches == nil {
		return nil, false
	}
	v, ok := x.caches.memo[k]
	return v, ok
}

// memoSet keeps v under k in the statement's memo; a context without
// caches keeps nothing.
func (x *execCtx) memoSet(k, v any) {
	if x.caches == nil {
		return
	}
	if x.caches.memo == nil {
		x.caches.memo = map[any]any{}
	}
	x.caches.memo[k] = v
}

// memoDelete forgets what the statement's memo keeps under k.
func (x *execCtx) memoDelete(k any) {
	if x.caches != nil {
		delete(x.caches.memo, k)
	}
}
