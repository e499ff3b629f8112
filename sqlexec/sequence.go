package sqlexec

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// sequence is a sequence generator. Sequences are not transactional:
// nextval and setval take effect at once and are never rolled back, as in
// PostgreSQL.
type sequence struct {
	oid       uint32
	schema    string
	name      string
	increment int64
	min, max  int64
	start     int64
	cycle     bool

	// mu guards what changes in a published sequence: the counter
	// (nextval, setval), the owner (ALTER SEQUENCE ... OWNED BY), and the
	// increment, bounds, start and cycle fields above, which ALTER
	// SEQUENCE changes holding mu (next, set and alter read them under it).
	mu struct {
		sync.Mutex
		last   int64
		called bool
		// ownedBy is the OID of the table whose column owns the sequence
		// (a SERIAL or identity column's, or OWNED BY's): the sequence is
		// dropped with the table or the column. 0 for none.
		ownedBy  uint32
		ownedCol int16 // the owning column's attnum
	}
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

// next advances the sequence and returns its new value.
func (q *sequence) next() (int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.mu.called {
		q.mu.called = true
		return q.mu.last, nil
	}
	v := q.mu.last + q.increment
	overflow := (q.increment > 0 && v < q.mu.last) || (q.increment < 0 && v > q.mu.last)
	if overflow || v > q.max || v < q.min {
		if !q.cycle {
			bound, which := q.max, "maximum"
			if q.increment < 0 {
				bound, which = q.min, "minimum"
			}
			return 0, pgerror.Newf(pgerror.SequenceGeneratorLimitExceeded, "nextval: reached %s value of sequence \"%s\" (%d)", which, q.name, bound)
		}
		if q.increment > 0 {
			v = q.min
		} else {
			v = q.max
		}
	}
	q.mu.last = v
	return v, nil
}

// set implements setval(seq, v, called).
func (q *sequence) set(v int64, called bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if v < q.min || v > q.max {
		return pgerror.Newf(pgerror.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence \"%s\" (%d..%d)", v, q.name, q.min, q.max)
	}
	q.mu.last, q.mu.called = v, called
	return nil
}

// reset restarts the sequence at its start value (TRUNCATE ... RESTART
// IDENTITY, ALTER SEQUENCE ... RESTART).
func (q *sequence) reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.mu.last, q.mu.called = q.start, false
}

// state returns the last value and whether it was handed out.
func (q *sequence) state() (int64, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.mu.last, q.mu.called
}

// newSequence builds a sequence from CREATE SEQUENCE options. maxFor bounds
// the default maximum by the type (int4 for SERIAL, int8 for BIGSERIAL).
func newSequence(schema, name string, opts []*pg_query.Node, typeMax int64) (*sequence, error) {
	q := &sequence{schema: schema, name: name, increment: 1, cycle: false}
	var minSet, maxSet, startSet bool
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "increment":
			v, err := defInt(d)
			if err != nil {
				return nil, err
			}
			if v == 0 {
				return nil, pgerror.New(pgerror.InvalidParameterValue, "INCREMENT must not be zero")
			}
			q.increment = v
		case "minvalue":
			if d.Arg != nil {
				v, err := defInt(d)
				if err != nil {
					return nil, err
				}
				q.min, minSet = v, true
			}
		case "maxvalue":
			if d.Arg != nil {
				v, err := defInt(d)
				if err != nil {
					return nil, err
				}
				q.max, maxSet = v, true
			}
		case "start":
			v, err := defInt(d)
			if err != nil {
				return nil, err
			}
			q.start, startSet = v, true
		case "cycle":
			q.cycle = d.Arg == nil || constTrue(d.Arg)
		case "as":
			tn := d.Arg.GetTypeName()
			if tn != nil {
				switch lastName(tn.Names) {
				case "int2":
					typeMax = math.MaxInt16
				case "int4":
					typeMax = math.MaxInt32
				case "int8":
					typeMax = math.MaxInt64
				default:
					return nil, pgerror.New(pgerror.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
				}
			}
		case "cache":
			if v, err := defInt(d); err != nil || v < 1 {
				if err != nil {
					return nil, err
				}
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "CACHE (%d) must be greater than zero", v)
			}
		case "owned_by", "restart":
		default:
			return nil, pgerror.Unsupported("sequence option " + d.Defname)
		}
	}
	if !maxSet {
		if q.increment > 0 {
			q.max = typeMax
		} else {
			q.max = -1
		}
	}
	if !minSet {
		if q.increment > 0 {
			q.min = 1
		} else {
			q.min = -typeMax - 1
		}
	}
	if !startSet {
		if q.increment > 0 {
			q.start = q.min
		} else {
			q.start = q.max
		}
	}
	if q.min >= q.max {
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", q.min, q.max)
	}
	if q.start < q.min || q.start > q.max {
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "START value (%d) cannot be outside the sequence range (%d..%d)", q.start, q.min, q.max)
	}
	q.mu.last = q.start
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
	c, _ := x.s.catalog()
	schema, name, ok := relationByOid(c, oid)
	if !ok {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "could not open relation with OID %d", oid)
	}
	if sc := c.schemas[schema]; sc != nil && sc.seqs[name] != nil {
		return sc.seqs[name], nil
	}
	return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a sequence", name)
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

// The sequence functions. Their sequence is a regclass: a constant name
// resolves when the statement is bound (42P01 at prepare, as in
// PostgreSQL), any other value when the call runs. Sequences are not
// transactional.
func init() {
	rc, i8 := types.Regclass, types.Int8
	addSysFunc("nextval", sysFunc{args: []types.Type{rc}, result: i8, volatile: true, eval: func(x *execCtx, a []any) (any, error) {
		q, err := sequenceByOid(x, a[0].(int64))
		if err != nil {
			return nil, err
		}
		v, err := q.next()
		if err != nil {
			return nil, err
		}
		x.s.currval[q], x.s.lastval = v, q
		return v, nil
	}})
	addSysFunc("currval", sysFunc{args: []types.Type{rc}, result: i8, volatile: true, eval: func(x *execCtx, a []any) (any, error) {
		q, err := sequenceByOid(x, a[0].(int64))
		if err != nil {
			return nil, err
		}
		v, ok := x.s.currval[q]
		if !ok {
			return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "currval of sequence \"%s\" is not yet defined in this session", q.name)
		}
		return v, nil
	}})
	setval := func(x *execCtx, a []any) (any, error) {
		q, err := sequenceByOid(x, a[0].(int64))
		if err != nil {
			return nil, err
		}
		isCalled := len(a) < 3 || a[2].(bool)
		if err := q.set(a[1].(int64), isCalled); err != nil {
			return nil, err
		}
		if isCalled {
			x.s.currval[q], x.s.lastval = a[1].(int64), q
		}
		return a[1], nil
	}
	addSysFunc("setval", sysFunc{args: []types.Type{rc, i8}, result: i8, volatile: true, eval: setval})
	addSysFunc("setval", sysFunc{args: []types.Type{rc, i8, types.Bool}, result: i8, volatile: true, eval: setval})
	addSysFunc("lastval", sysFunc{result: i8, volatile: true, eval: func(x *execCtx, _ []any) (any, error) {
		if x.s.lastval == nil {
			return nil, pgerror.New(pgerror.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
		}
		return x.s.currval[x.s.lastval], nil
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

// alterSequenceStmt runs ALTER SEQUENCE: OWNED BY here, the other options
// through alterSequence.
func (d *ddl) alterSequenceStmt(as *pg_query.AlterSeqStmt) error {
	var owned *pg_query.DefElem
	rest := make([]*pg_query.Node, 0, len(as.Options))
	for _, o := range as.Options {
		if de := o.GetDefElem(); de != nil && de.Defname == "owned_by" {
			owned = de
			continue
		}
		rest = append(rest, o)
	}
	if owned == nil {
		return d.alterSequence(as)
	}
	q := d.s.lookupSequence(d.cat, as.Sequence.Schemaname, as.Sequence.Relname)
	if q == nil {
		if as.MissingOk {
			d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", as.Sequence.Relname)
			return nil
		}
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(as.Sequence))
	}
	table, attnum, err := d.sequenceOwner(q, owned)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		others := proto.Clone(as).(*pg_query.AlterSeqStmt)
		others.Options = rest
		if err := d.alterSequence(others); err != nil {
			return err
		}
	}
	q.setOwner(table, attnum)
	return nil
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
		rel := table
		if schema != "" {
			rel = schema + "." + table
		}
		return 0, 0, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", rel)
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
func (d *ddl) columnSequence(t *tableDesc, col *columnDesc, opts []*pg_query.Node, typeMax int64) error {
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
		name = d.uniqueRelName(schema, t.name+"_"+col.name+"_seq")
	} else {
		if _, ok := d.cat.schemas[schema]; !ok {
			return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", schema)
		}
		if d.relationExists(schema, name) {
			return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", name)
		}
	}
	q, err := newSequence(schema, name, rest, typeMax)
	if err != nil {
		return err
	}
	q.oid = d.cat.newOID()
	q.setOwner(t.oid, col.attnum)
	d.cat.schemas[schema].seqs[name] = q
	col.def = nextvalDefault(q)
	return nil
}

// alter applies ALTER SEQUENCE's INCREMENT, MINVALUE, MAXVALUE, START,
// RESTART, CYCLE and CACHE options at once, checking the new bounds
// against the start value and the counter as PostgreSQL does.
func (q *sequence) alter(opts []*pg_query.Node) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	inc, lo, hi, start, cycle := q.increment, q.min, q.max, q.start, q.cycle
	restart, restartWith := false, (*int64)(nil)
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		if d.Arg == nil && (d.Defname == "minvalue" || d.Defname == "maxvalue") {
			return pgerror.Unsupported("ALTER SEQUENCE ... NO " + strings.ToUpper(d.Defname))
		}
		var v int64
		if d.Arg != nil && d.Defname != "cycle" {
			var err error
			if v, err = defInt(d); err != nil {
				return err
			}
		}
		switch d.Defname {
		case "increment":
			if v == 0 {
				return pgerror.New(pgerror.InvalidParameterValue, "INCREMENT must not be zero")
			}
			inc = v
		case "minvalue":
			lo = v
		case "maxvalue":
			hi = v
		case "start":
			start = v
		case "restart":
			restart = true
			if d.Arg != nil {
				restartWith = &v
			}
		case "cycle":
			cycle = d.Arg == nil || constTrue(d.Arg)
		case "cache":
			if v < 1 {
				return pgerror.Newf(pgerror.InvalidParameterValue, "CACHE (%d) must be greater than zero", v)
			}
		default:
			return pgerror.Unsupported("ALTER SEQUENCE " + d.Defname)
		}
	}
	if lo >= hi {
		return pgerror.Newf(pgerror.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", lo, hi)
	}
	if start < lo {
		return pgerror.Newf(pgerror.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", start, lo)
	}
	if start > hi {
		return pgerror.Newf(pgerror.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", start, hi)
	}
	last, called := q.mu.last, q.mu.called
	if restart {
		last, called = start, false
		if restartWith != nil {
			last = *restartWith
		}
	}
	if last < lo {
		return pgerror.Newf(pgerror.InvalidParameterValue, "RESTART value (%d) cannot be less than MINVALUE (%d)", last, lo)
	}
	if last > hi {
		return pgerror.Newf(pgerror.InvalidParameterValue, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", last, hi)
	}
	q.increment, q.min, q.max, q.start, q.cycle = inc, lo, hi, start, cycle
	q.mu.last, q.mu.called = last, called
	return nil
}
