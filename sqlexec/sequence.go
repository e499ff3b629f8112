package sqlexec

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// sequence is a sequence generator. As in PostgreSQL, nextval and setval
// take effect at once and are never rolled back, while ALTER SEQUENCE and
// TRUNCATE ... RESTART IDENTITY change a copy of the sequence private to
// their transaction until it commits (replaceSequence).
type sequence struct {
	oid    uint32
	schema string
	name   string
	// role is the OID of the role owning the sequence (pg_class.relowner),
	// which holds its privileges by default; 0 is the bootstrap superuser.
	role uint32
	// unlogged is CREATE UNLOGGED SEQUENCE's or ALTER ... SET UNLOGGED's
	// persistence (pg_class.relpersistence u); a table's serial and
	// identity sequences take the table's. fickle keeps no WAL, so it
	// changes nothing else.
	unlogged bool
	sequenceParams

	// mu guards what changes in a published sequence: the counter
	// (nextval, setval), the owner (ALTER SEQUENCE ... OWNED BY), and the
	// parameters above, which ALTER SEQUENCE changes holding mu (next, set
	// and alter read them under it). A renamed sequence's descriptor
	// shares it with the one it replaces, so that nextval in other
	// sessions after the rename committed advances the same counter; a
	// copy (replaceSequence) has its own.
	mu *sequenceState
}

// sequenceState is what changes in a published sequence.
type sequenceState struct {
	sync.Mutex
	last   int64
	called bool
	// logCnt is PostgreSQL's log_cnt: how many values nextval may still
	// hand out before it would write ahead to the WAL again (seqLogVals
	// at a time), as SELECT ... FROM the sequence shows it.
	logCnt int64
	// ownedBy is the OID of the table whose column owns the sequence
	// (a SERIAL or identity column's, or OWNED BY's): the sequence is
	// dropped with the table or the column. 0 for none.
	ownedBy  uint32
	ownedCol int16 // the owning column's attnum
	// filenode stands for PostgreSQL's relfilenode: a new one for the
	// sequence that ALTER SEQUENCE or TRUNCATE ... RESTART IDENTITY
	// rewrites (replaceSequence), at which every session drops the values
	// its nextval fetched ahead (sessionSeqCache).
	filenode uint64
}

// seqFilenodes numbers the sequences' filenodes.
var seqFilenodes atomic.Uint64

// sessionSeqCache is what a session's nextval fetched ahead of a sequence
// whose CACHE is above 1 (PostgreSQL's SeqTableData): it hands out the
// values after last up to cached, increment apart, before it reads the
// sequence again, as long as the sequence keeps filenode.
type sessionSeqCache struct {
	filenode             uint64
	last, cached, increm int64
}

// owner returns the OID of the table owning the sequence (0 for none) and
// the owning column's attnum.
func (q *sequence) owner() (table uint32, attnum int16) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.mu.ownedBy, q.mu.ownedCol
}

// ownedByTable reports whether table oid owns the sequence.
func (q *sequence) ownedByTable(oid uint32) bool {
	t, _ := q.owner()
	return t != 0 && t == oid
}

// ownedSequences lists the sequences table t owns (its serial and identity
// columns'), in OID order.
func (c *catalog) ownedSequences(t *tableDesc) []*sequence {
	var qs []*sequence
	for _, q := range c.schemas[t.schema].seqs {
		if q.ownedByTable(t.oid) {
			qs = append(qs, q)
		}
	}
	slices.SortFunc(qs, func(a, b *sequence) int { return cmp.Compare(a.oid, b.oid) })
	return qs
}

// identityTable returns the table whose identity column q serves, nil
// when q serves none.
func (c *catalog) identityTable(q *sequence) *tableDesc {
	table, attnum := q.owner()
	t := c.tables[table]
	if t == nil {
		return nil
	}
	for _, col := range t.cols {
		if col.attnum == attnum && col.identity != 0 {
			return t
		}
	}
	return nil
}

// setOwner makes column attnum of table oid own the sequence; 0 for none.
func (q *sequence) setOwner(oid uint32, attnum int16) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.mu.ownedBy, q.mu.ownedCol = oid, attnum
}

func (q *sequence) qualifiedName() string {
	if q.schema == "public" {
		return q.name
	}
	return q.schema + "." + q.name
}

// seqLogVals is PostgreSQL's SEQ_LOG_VALS: how many values nextval logs
// ahead.
const seqLogVals = 32

// next is PostgreSQL's nextval_internal reading the sequence: it returns
// the session's new cache of values fetched ahead, from the value it hands
// out (last) to the sequence's new last_value (cached), CACHE values in
// all unless the bound comes first, and sets log_cnt to what PostgreSQL
// would have logged ahead (seqLogVals values past them when it logs).
func (q *sequence) next() (sessionSeqCache, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	inc := q.increment
	last, next, result := q.mu.last, q.mu.last, q.mu.last
	fetch, log, got := q.cache, q.mu.logCnt, int64(0)
	if !q.mu.called {
		got, fetch = 1, fetch-1
	}
	if log < fetch || !q.mu.called {
		fetch += seqLogVals
		log = fetch
	}
	for fetch > 0 {
		// The bound checks are PostgreSQL's, written so as not to overflow.
		past := (inc > 0 && ((q.max >= 0 && next > q.max-inc) || (q.max < 0 && next+inc > q.max))) ||
			(inc < 0 && ((q.min < 0 && next < q.min-inc) || (q.min >= 0 && next+inc < q.min)))
		if !past {
			next += inc
		} else if got > 0 {
			break // fetch no further ahead than the bound
		} else if !q.cycle {
			bound, which := q.max, "maximum"
			if inc < 0 {
				bound, which = q.min, "minimum"
			}
			return sessionSeqCache{}, pgerror.Newf(pgerror.SequenceGeneratorLimitExceeded, "nextval: reached %s value of sequence \"%s\" (%d)", which, q.name, bound)
		} else if inc > 0 {
			next = q.min
		} else {
			next = q.max
		}
		fetch--
		if got < q.cache {
			log--
			got++
			last = next
			if got == 1 {
				result = next
			}
		}
	}
	q.mu.last, q.mu.called, q.mu.logCnt = last, true, log-fetch
	return sessionSeqCache{filenode: q.mu.filenode, last: result, cached: last, increm: inc}, nil
}

// filenode returns the sequence's current filenode.
func (q *sequence) filenode() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.mu.filenode
}

// set implements setval(seq, v, called).
func (q *sequence) set(v int64, called bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if v < q.min || v > q.max {
		return pgerror.Newf(pgerror.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence \"%s\" (%d..%d)", v, q.name, q.min, q.max)
	}
	q.mu.last, q.mu.called, q.mu.logCnt = v, called, 0
	return nil
}

// reset restarts the sequence at its start value (TRUNCATE ... RESTART
// IDENTITY, ALTER SEQUENCE ... RESTART).
func (q *sequence) reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.mu.last, q.mu.called, q.mu.logCnt = q.start, false, 0
}

// copy returns a sequence with q's definition, owner and counter, and a
// state of its own: a copied database's, or a transaction's private one.
func (q *sequence) copy() *sequence {
	n := &sequence{oid: q.oid, schema: q.schema, name: q.name, role: q.role, unlogged: q.unlogged, sequenceParams: q.sequenceParams, mu: &sequenceState{}}
	n.mu.last, n.mu.called = q.state()
	n.mu.ownedBy, n.mu.ownedCol = q.owner()
	n.mu.filenode = q.mu.filenode
	return n
}

// relationRow is the sequence read as a relation (SELECT * FROM seq):
// last_value, log_cnt and is_called.
func (q *sequence) relationRow() []any {
	q.mu.Lock()
	defer q.mu.Unlock()
	return []any{q.mu.last, q.mu.logCnt, q.mu.called}
}

// state returns the last value and whether it was handed out.
func (q *sequence) state() (int64, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.mu.last, q.mu.called
}

// newSequence builds a sequence from CREATE SEQUENCE's options, as an
// integer sequence of type typ unless an AS option names another.
func newSequence(schema, name string, typ types.Oid, opts []*pg_query.Node, typeOf sequenceTypeResolver) (*sequence, error) {
	q := &sequence{schema: schema, name: name, mu: &sequenceState{filenode: seqFilenodes.Add(1)}}
	p, last, _, err := applySequenceOptions(sequenceParams{typ: typ}, 0, false, opts, true, typeOf)
	if err != nil {
		return nil, err
	}
	q.sequenceParams, q.mu.last = p, last
	return q, nil
}

func defInt(d *pg_query.DefElem) (int64, error) {
	c := d.Arg
	neg := false
	if c.GetAConst() == nil {
		if ae := c.GetAExpr(); ae != nil && ae.Lexpr == nil {
			c, neg = ae.Rexpr, true
		}
	}
	switch v := c.GetAConst().GetVal().(type) {
	case *pg_query.A_Const_Ival:
		n := int64(v.Ival.Ival)
		if neg {
			n = -n
		}
		return n, nil
	case *pg_query.A_Const_Fval:
		n, err := strconv.ParseInt(v.Fval.Fval, 10, 64)
		if err != nil {
			return 0, pgerror.Newf(pgerror.InvalidParameterValue, "%s requires an integer value", d.Defname)
		}
		if neg {
			n = -n
		}
		return n, nil
	}
	if ival := c.GetInteger(); ival != nil {
		return int64(ival.Ival), nil
	}
	if f := c.GetFloat(); f != nil {
		n, err := strconv.ParseInt(f.Fval, 10, 64)
		if err == nil {
			return n, nil
		}
	}
	return 0, pgerror.Newf(pgerror.InvalidParameterValue, "%s requires an integer value", d.Defname)
}

func lastName(names []*pg_query.Node) string {
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1].GetString_().GetSval()
}

// sequenceByOid finds the sequence nextval and its kin are given as a
// regclass.
func sequenceByOid(x *execCtx, oid int64) (*sequence, error) {
	c := x.ddlCatalog
	if c == nil {
		c, _ = x.s.catalog()
	}
	schema, name, ok := relationByOid(c, oid)
	if !ok {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "could not open relation with OID %d", oid)
	}
	if sc := c.schemas[schema]; sc != nil && sc.seqs[name] != nil {
		return sc.seqs[name], nil
	}
	return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a sequence", name)
}

// sequenceWritable refuses to advance or set a sequence in a read-only
// transaction (25006), except a temporary one, as PostgreSQL does.
func (s *Session) sequenceWritable(q *sequence, what string) error {
	if s.txn != nil && s.txn.readOnly && !isTempSchema(q.schema) {
		return pgerror.Newf(pgerror.ReadOnlySqlTransaction, "cannot execute %s in a read-only transaction", what)
	}
	return nil
}

// sequencePrivilege fails with 42501 unless the current role holds one of
// the privileges (ACL letters) on q: USAGE or UPDATE for nextval, SELECT
// or USAGE for currval and lastval, UPDATE for setval, as in PostgreSQL.
func (s *Session) sequencePrivilege(q *sequence, privs string) error {
	if !s.hasPrivilege(s.currentRole(), aclSequence, q.oid, []byte(privs)) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for sequence %s", q.name)
	}
	return nil
}

// findSequence resolves a sequence by its (possibly qualified, possibly
// quoted) name.
func (s *Session) findSequence(c *catalog, text string) (*sequence, error) {
	oid, err := catalogNames{s: s, cat: c}.RelationOid(text)
	if err != nil {
		return nil, err
	}
	schema, name, _ := relationByOid(c, oid)
	if sc := c.schemas[schema]; sc != nil && sc.seqs[name] != nil {
		return sc.seqs[name], nil
	}
	return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a sequence", name)
}

// sequenceColumns are the columns of a sequence's one row.
var sequenceColumns = []struct {
	name string
	typ  types.Type
}{{"last_value", types.Int8}, {"log_cnt", types.Int8}, {"is_called", types.Bool}}

// sequenceItem is a sequence in FROM: one row of last_value, log_cnt and
// is_called, read under ACCESS SHARE on the sequence and with SELECT
// privilege on it, as in PostgreSQL.
func (b *binder) sequenceItem(q *sequence, alias string, a *pg_query.Alias) (*fromItem, []scopeCol, error) {
	cols := make([]scopeCol, len(sequenceColumns))
	for i, c := range sequenceColumns {
		cols[i] = scopeCol{rel: alias, name: c.name, typ: c.typ}
	}
	if err := applyColAliases(cols, a); err != nil {
		return nil, nil, err
	}
	oid := int64(q.oid)
	it := &fromItem{name: alias, kind: itemSequence, source: q.name, sub: func(x *execCtx) ([][]any, error) {
		q, err := lockedSequence(x, oid, isolation.TableLockAccessShare)
		if err != nil {
			return nil, err
		}
		if err := x.s.sequencePrivilege(q, "r"); err != nil {
			return nil, err
		}
		return [][]any{q.relationRow()}, nil
	}}
	return it, cols, nil
}

// lockedSequence takes a lock on sequence oid through the statement's
// transaction (ROW EXCLUSIVE for PostgreSQL's sequence functions, ACCESS
// SHARE to read it as a relation) and then finds it: one that waited for a
// transaction's ALTER SEQUENCE or TRUNCATE ... RESTART IDENTITY uses the
// sequence that transaction left.
func lockedSequence(x *execCtx, oid int64, mode isolation.TableLock) (*sequence, error) {
	if x.txn != nil {
		if err := x.txn.LockObject(x.ctx, uint32(oid), mode, isolation.WaitBlock); err != nil {
			return nil, err
		}
	}
	return sequenceByOid(x, oid)
}

// The sequence functions. Their sequence is a regclass: a constant name
// resolves when the statement is bound (42P01 at prepare, as in
// PostgreSQL), any other value when the call runs.
func init() {
	rc, i8 := types.Regclass, types.Int8
	addSysFunc("nextval", sysFunc{args: []types.Type{rc}, result: i8, volatile: true, eval: func(x *execCtx, a []any) (any, error) {
		q, err := lockedSequence(x, a[0].(int64), isolation.TableLockRowExclusive)
		if err != nil {
			return nil, err
		}
		if !x.identityNextval {
			if err := x.s.sequencePrivilege(q, "Uw"); err != nil {
				return nil, err
			}
		}
		if err := x.s.sequenceWritable(q, "nextval()"); err != nil {
			return nil, err
		}
		c := x.s.seqCache[q.oid]
		if c.last != c.cached && c.filenode == q.filenode() {
			c.last += c.increm
		} else {
			if c, err = q.next(); err != nil {
				return nil, err
			}
		}
		if x.s.seqCache == nil {
			x.s.seqCache = make(map[uint32]sessionSeqCache)
		}
		x.s.seqCache[q.oid] = c
		x.s.currval[q.oid], x.s.lastval = c.last, q.oid
		return c.last, nil
	}})
	addSysFunc("currval", sysFunc{args: []types.Type{rc}, result: i8, volatile: true, eval: func(x *execCtx, a []any) (any, error) {
		q, err := lockedSequence(x, a[0].(int64), isolation.TableLockRowExclusive)
		if err != nil {
			return nil, err
		}
		if err := x.s.sequencePrivilege(q, "rU"); err != nil {
			return nil, err
		}
		v, ok := x.s.currval[q.oid]
		if !ok {
			return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "currval of sequence \"%s\" is not yet defined in this session", q.name)
		}
		return v, nil
	}})
	setval := func(x *execCtx, a []any) (any, error) {
		q, err := lockedSequence(x, a[0].(int64), isolation.TableLockRowExclusive)
		if err != nil {
			return nil, err
		}
		if err := x.s.sequencePrivilege(q, "w"); err != nil {
			return nil, err
		}
		if err := x.s.sequenceWritable(q, "setval()"); err != nil {
			return nil, err
		}
		isCalled := len(a) < 3 || a[2].(bool)
		if err := q.set(a[1].(int64), isCalled); err != nil {
			return nil, err
		}
		if isCalled {
			x.s.currval[q.oid], x.s.lastval = a[1].(int64), q.oid
		}
		// setval drops the values this session fetched ahead, not other
		// sessions', as in PostgreSQL.
		delete(x.s.seqCache, q.oid)
		return a[1], nil
	}
	addSysFunc("setval", sysFunc{args: []types.Type{rc, i8}, result: i8, volatile: true, eval: setval})
	addSysFunc("setval", sysFunc{args: []types.Type{rc, i8, types.Bool}, result: i8, volatile: true, eval: setval})
	addSysFunc("lastval", sysFunc{result: i8, volatile: true, eval: func(x *execCtx, _ []any) (any, error) {
		// A dropped sequence's value is gone with it, as in PostgreSQL.
		if x.s.lastval == 0 {
			return nil, pgerror.New(pgerror.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
		}
		q, err := lockedSequence(x, int64(x.s.lastval), isolation.TableLockRowExclusive)
		if err != nil {
			return nil, pgerror.New(pgerror.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
		}
		if err := x.s.sequencePrivilege(q, "rU"); err != nil {
			return nil, err
		}
		return x.s.currval[q.oid], nil
	}})
	// pg_get_serial_sequence(table, column): the schema-qualified name of
	// the sequence the column owns (a SERIAL or identity column's, or one
	// given OWNED BY), NULL for none. The table is a name read as SQL
	// reads one (lower-cased unless quoted), the column a name taken
	// literally, as in PostgreSQL.
	addSysFunc("pg_get_serial_sequence", sysFunc{args: []types.Type{types.Text, types.Text}, result: types.Text,
		eval: func(x *execCtx, a []any) (any, error) {
			oid, err := catalogNames{s: x.s}.RelationOid(a[0].(string))
			if err != nil {
				return nil, err
			}
			c, _ := x.s.catalog()
			t := c.tables[uint32(oid)]
			if t == nil {
				return nil, nil
			}
			i := t.colIndex(a[1].(string))
			if i < 0 {
				return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", a[1], t.name)
			}
			return ownedSequenceName(c, t, t.cols[i].attnum), nil
		}})
}

// alterSequenceStmt runs ALTER SEQUENCE. As in PostgreSQL it is
// transactional: under a SHARE ROW EXCLUSIVE lock on the sequence (so that
// nextval elsewhere waits for the transaction to end), the transaction
// changes its own copy of the sequence, counter included, which its commit
// publishes and its rollback drops.
func (d *ddl) alterSequenceStmt(as *pg_query.AlterSeqStmt) error {
	q, err := d.alteredSequence(as.Sequence, as.MissingOk)
	if q == nil {
		return err
	}
	if err := d.s.requireOwner(relationOwner(d.cat, aclSequence, q.oid), "sequence", q.name); err != nil {
		return err
	}
	if err := d.lockSequence(q, isolation.TableLockShareRowExclusive); err != nil {
		return err
	}
	q = d.replaceSequence(q)
	var owned *pg_query.DefElem
	rest := make([]*pg_query.Node, 0, len(as.Options))
	for _, o := range as.Options {
		if de := o.GetDefElem(); de != nil && de.Defname == "owned_by" {
			owned = de
			continue
		}
		rest = append(rest, o)
	}
	var table uint32
	var attnum int16
	if owned != nil {
		if t := d.cat.identityTable(q); t != nil {
			return pgerror.New(pgerror.FeatureNotSupported, "cannot change ownership of identity sequence").
				WithDetail("Sequence \"%s\" is linked to table \"%s\".", q.name, t.name)
		}
		if table, attnum, err = d.sequenceOwner(q, owned); err != nil {
			return err
		}
	}
	if err := q.alter(rest, d.sequenceTypeOf); err != nil {
		return err
	}
	if owned != nil {
		q.setOwner(table, attnum)
	}
	return nil
}

// lockSequence takes a lock on q for a DDL statement through its
// transaction; like lockTable, a wait for a transaction whose DDL
// committed meanwhile starts the statement over on the new catalog.
func (d *ddl) lockSequence(q *sequence, mode isolation.TableLock) error {
	if err := d.x.txn.LockObject(d.x.ctx, q.oid, mode, isolation.WaitBlock); err != nil {
		return err
	}
	if _, v := d.s.catalog(); v != d.viewVersion {
		return errCatalogChanged
	}
	return nil
}

// replaceSequence puts a copy of q, definition and counter, in q's place in
// the DDL's catalog and returns it: PostgreSQL's new relfilenode for a
// sequence that ALTER SEQUENCE or TRUNCATE ... RESTART IDENTITY changes,
// so that every session's nextval drops the values it fetched ahead (this
// one's at once, as ALTER SEQUENCE does, even if the change rolls back).
// Other sessions keep the published descriptor (and wait on the
// sequence's lock to use it) until the commit publishes the copy; a
// rollback, to a savepoint too, drops it with what was done to it.
func (d *ddl) replaceSequence(q *sequence) *sequence {
	n := q.copy()
	n.mu.filenode = seqFilenodes.Add(1)
	delete(d.s.seqCache, q.oid)
	d.cat.schemas[q.schema].seqs[q.name] = n
	return n
}

// sequenceOwner resolves OWNED BY [schema.]table.column or OWNED BY NONE
// (0, 0) for q, with PostgreSQL's errors.
func (d *ddl) sequenceOwner(q *sequence, owned *pg_query.DefElem) (uint32, int16, error) {
	var names []string
	for _, n := range owned.Arg.GetList().GetItems() {
		names = append(names, n.GetString_().GetSval())
	}
	if len(names) == 1 && names[0] == "none" {
		return 0, 0, nil
	}
	if len(names) < 2 || len(names) > 3 {
		return 0, 0, pgerror.New(pgerror.SyntaxError, "invalid OWNED BY option").
			WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
	}
	schema, table, column := "", names[len(names)-2], names[len(names)-1]
	if len(names) == 3 {
		schema = names[0]
	}
	t := d.s.lookupTable(d.cat, schema, table)
	if t == nil {
		return 0, 0, d.notSequenceOwner(q, schema, table)
	}
	i := t.colIndex(column)
	if i < 0 {
		return 0, 0, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, t.name)
	}
	if t.schema != q.schema {
		return 0, 0, pgerror.New(pgerror.ObjectNotInPrerequisiteState, "sequence must be in same schema as table it is linked to")
	}
	return t.oid, t.cols[i].attnum, nil
}

// notSequenceOwner is PostgreSQL's error for OWNED BY a relation that is
// not a user table: 42P01 when nothing has the name, 42809 for an index or
// a sequence, 55000 for a system catalog (in another schema). PostgreSQL
// lets a view own a sequence; fickle refuses it with 0A000.
func (d *ddl) notSequenceOwner(q *sequence, schema, table string) error {
	rel := types.QuoteIdent(table)
	if schema != "" {
		rel = types.QuoteIdent(schema) + "." + rel
	}
	oid, err := catalogNames{s: d.s, cat: d.cat}.RelationOid(rel)
	if err != nil {
		return err
	}
	relSchema, name, _ := relationByOid(d.cat, oid)
	sc := d.cat.schemas[relSchema]
	switch {
	case sc == nil && relSchema != q.schema:
		return pgerror.New(pgerror.ObjectNotInPrerequisiteState, "sequence must be in same schema as table it is linked to")
	case sc != nil && sc.views[name] != nil:
		return pgerror.Unsupported("OWNED BY a view")
	}
	return pgerror.Newf(pgerror.WrongObjectType, "sequence cannot be owned by relation \"%s\"", name)
}

// ownedSequenceName returns the qualified, quoted name of the sequence
// column attnum of t owns, nil when it owns none.
func ownedSequenceName(c *catalog, t *tableDesc, attnum int16) any {
	sc := c.schemas[t.schema]
	names := make([]string, 0, len(sc.seqs))
	for n := range sc.seqs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if owner, col := sc.seqs[n].owner(); owner == t.oid && col == attnum {
			return types.QuoteIdent(t.schema) + "." + types.QuoteIdent(n)
		}
	}
	return nil
}

// columnSequence creates the sequence of a SERIAL or identity column col
// of t (a descriptor being built), named by a SEQUENCE NAME option or
// after the table and column, owned by the column, and makes its nextval
// the column's default.
func (d *ddl) columnSequence(t *tableDesc, col *columnDesc, opts []*pg_query.Node) error {
	if err := d.checkTablespace("", isTempSchema(t.schema), false); err != nil {
		return err
	}
	schema, name := t.schema, ""
	rest := make([]*pg_query.Node, 0, len(opts))
	for _, o := range opts {
		de := o.GetDefElem()
		if de == nil || de.Defname != "sequence_name" {
			rest = append(rest, o)
			continue
		}
		parts := strs(de.Arg.GetList().GetItems())
		switch len(parts) {
		case 1:
			name = parts[0]
		case 2:
			schema, name = parts[0], parts[1]
		default:
			return pgerror.Newf(pgerror.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(parts, "."))
		}
	}
	if name == "" {
		name = d.uniqueRelName(schema, t.name, col.name, "seq")
	} else if _, ok := d.cat.schemas[schema]; !ok {
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", schema)
	}
	// CREATE SEQUENCE's checks: CREATE on the schema (ALTER TABLE ... ADD
	// COLUMN may come from a role without it), then the name.
	if err := d.requireSchemaCreate(schema); err != nil {
		return err
	}
	if d.relationExists(schema, name) {
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", name)
	}
	q, err := newSequence(schema, name, col.typ.Oid, rest, d.sequenceTypeOf)
	if err != nil {
		return err
	}
	q.oid, q.role, q.unlogged = d.cat.newOID(), t.owner, t.unlogged
	q.setOwner(t.oid, col.attnum)
	d.cat.schemas[schema].seqs[name] = q
	d.applyDefaultACL(aclSequence, q.oid, q.role, d.cat.schemas[schema].oid)
	col.def = nextvalDefault(q)
	return nil
}

// alterSequencePersistence runs ALTER SEQUENCE ... SET LOGGED / UNLOGGED,
// and ALTER TABLE naming a sequence with only those subcommands, as
// PostgreSQL takes it; done is false for any other ALTER TABLE.
func (d *ddl) alterSequencePersistence(at *pg_query.AlterTableStmt) (done bool, err error) {
	if len(at.Cmds) == 0 || at.Objtype != pg_query.ObjectType_OBJECT_SEQUENCE && at.Objtype != pg_query.ObjectType_OBJECT_TABLE {
		return false, nil
	}
	unlogged := false
	for _, c := range at.Cmds {
		switch c.GetAlterTableCmd().GetSubtype() {
		case pg_query.AlterTableType_AT_SetLogged:
			unlogged = false
		case pg_query.AlterTableType_AT_SetUnLogged:
			unlogged = true
		default:
			return false, nil
		}
	}
	if at.Objtype == pg_query.ObjectType_OBJECT_TABLE && d.s.lookupSequence(d.cat, at.Relation.Schemaname, at.Relation.Relname) == nil {
		return false, nil
	}
	q, err := d.alteredSequence(at.Relation, at.MissingOk)
	if q == nil {
		return true, err
	}
	if err := d.s.requireOwner(relationOwner(d.cat, aclSequence, q.oid), "sequence", q.name); err != nil {
		return true, err
	}
	if isTempSchema(q.schema) {
		return true, pgerror.Newf(pgerror.InvalidTableDefinition, "cannot change logged status of table \"%s\" because it is temporary", q.name)
	}
	if err := d.lockSequence(q, isolation.TableLockAccessExclusive); err != nil {
		return true, err
	}
	if q.unlogged != unlogged {
		d.replaceSequence(q).unlogged = unlogged
	}
	return true, nil
}

// alter applies ALTER SEQUENCE's options (sequenceOptions) at once.
func (q *sequence) alter(opts []*pg_query.Node, typeOf sequenceTypeResolver) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	p, last, called, err := applySequenceOptions(q.sequenceParams, q.mu.last, q.mu.called, opts, false, typeOf)
	if err != nil {
		return err
	}
	q.sequenceParams, q.mu.last, q.mu.called, q.mu.logCnt = p, last, called, 0
	return nil
}
