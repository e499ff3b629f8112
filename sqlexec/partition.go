package sqlexec

import (
	"fmt"
	"slices"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Declarative partitioning (PARTITION BY RANGE / LIST / HASH, PARTITION OF). A
// partitioned table is an inheritance parent that holds no rows of its
// own; its partitions are children with a bound. Reads expand the parent
// into its partitions like any inheritance parent (inherit.go); INSERT
// routes each row to the leaf partition whose bound holds its key, and an
// UPDATE that takes a row out of its partition moves it, as PostgreSQL does.
// Hash partitioning is in partition_hash.go.

// partKey is a partitioned table's PARTITION BY: the strategy ('l' list,
// 'r' range, 'h' hash) and, per key column, a column name or ("") an
// expression over the table's row.
type partKey struct {
	strategy byte
	cols     []string
	exprs    []*pg_query.Node
	typs     []types.Type
	// asOid marks the columns ordered as oid (oid_ops over integer),
	// nil when none is (partition_opclass.go).
	asOid []bool
	// opclasses are the OIDs of the users' operator classes the columns
	// name (0 for a built-in one), nil when none does
	// (ddl_opclass_use.go).
	opclasses []uint32
}

// rangeDatum is one value of a range bound: MINVALUE (-1), a value (0) or
// MAXVALUE (1).
type rangeDatum struct {
	inf int
	val any
}

// partBound is a partition's FOR VALUES: DEFAULT, a list of values (nil
// for NULL), a range [lower, upper) or a hash modulus and remainder.
type partBound struct {
	isDefault          bool
	list               []any
	lower, upper       []rangeDatum
	modulus, remainder int
	// text is the bound as pg_get_expr(relpartbound) prints it.
	text string
}

// partitionKey compiles PARTITION BY for t.
func (d *ddl) partitionKey(b *binder, t *tableDesc, ps *pg_query.PartitionSpec) (*partKey, error) {
	k := &partKey{}
	switch ps.Strategy {
	case pg_query.PartitionStrategy_PARTITION_STRATEGY_LIST:
		k.strategy = 'l'
		if len(ps.PartParams) != 1 {
			return nil, pgerror.New(pgerror.InvalidObjectDefinition, "cannot use \"list\" partition strategy with more than one column")
		}
	case pg_query.PartitionStrategy_PARTITION_STRATEGY_RANGE:
		k.strategy = 'r'
	case pg_query.PartitionStrategy_PARTITION_STRATEGY_HASH:
		k.strategy = 'h'
	}
	sc := tableScope(t, t.name)
	sc.noAgg = "partition key expressions"
	for _, pn := range ps.PartParams {
		pe := pn.GetPartitionElem()
		if pe.Name != "" {
			i := t.colIndex(pe.Name)
			if i < 0 && slices.Contains(systemColumnNames, pe.Name) {
				return nil, b.errAt(pgerror.Newf(pgerror.InvalidObjectDefinition, "cannot use system column \"%s\" in partition key", pe.Name), pe.Location)
			}
			if i < 0 {
				return nil, b.errAt(pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" named in partition key does not exist", pe.Name), pe.Location)
			}
			if t.cols[i].generated != nil {
				return nil, generatedPartitionKeyError(b, t.cols[i], pe.Location)
			}
			if err := d.addKeyOpclass(k, pe, t.cols[i].typ); err != nil {
				return nil, err
			}
			if err := k.hashable(t.cols[i].typ); err != nil {
				return nil, err
			}
			k.cols, k.exprs, k.typs = append(k.cols, pe.Name), append(k.exprs, nil), append(k.typs, t.cols[i].typ)
			continue
		}
		if containsSubLink(pe.Expr) {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot use subquery in partition key expression")
		}
		if err := generatedInPartitionKey(b, t, pe.Expr, pe.Location); err != nil {
			return nil, err
		}
		// PostgreSQL analyzes the key without the statement's text: its
		// errors have no position.
		var e *scalar
		if err := b.unplaced(func() (err error) { e, err = b.expr(sc, pe.Expr); return err }); err != nil {
			return nil, err
		}
		if typ := e.typ; typ.Oid == types.OidUnknown || typ.Oid == types.OidRecord {
			return nil, pgerror.Newf(pgerror.InvalidTableDefinition, "partition key column %d has pseudo-type %s", len(k.cols)+1, typ)
		}
		hasCol := false
		walk(pe.Expr, func(n *pg_query.Node) bool {
			hasCol = hasCol || n.GetColumnRef() != nil
			return true
		})
		if !hasCol {
			return nil, pgerror.New(pgerror.InvalidObjectDefinition, "cannot use constant expression as partition key")
		}
		if e.volatile && !b.inlinedImmutable(pe.Expr) {
			return nil, pgerror.New(pgerror.InvalidObjectDefinition, "functions in partition key expression must be marked IMMUTABLE")
		}
		if err := d.addKeyOpclass(k, pe, e.typ); err != nil {
			return nil, err
		}
		if err := k.hashable(e.typ); err != nil {
			return nil, err
		}
		k.cols, k.exprs, k.typs = append(k.cols, ""), append(k.exprs, pe.Expr), append(k.typs, e.typ)
	}
	return k, nil
}

// keyScalars compiles the key's expressions over t's row.
func (b *binder) keyScalars(t *tableDesc) ([]*scalar, error) {
	sc := tableScope(t, t.name)
	out := make([]*scalar, len(t.part.cols))
	for i, c := range t.part.cols {
		n := t.part.exprs[i]
		if c != "" {
			n = pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(c)}, -1)
		}
		e, err := b.expr(sc, n)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// partitionBound evaluates FOR VALUES of a new partition of p.
func (d *ddl) partitionBound(b *binder, p *tableDesc, name string, bs *pg_query.PartitionBoundSpec) (*partBound, error) {
	k := p.part
	if bs.IsDefault {
		if k.strategy == 'h' {
			return nil, pgerror.New(pgerror.InvalidTableDefinition, "a hash-partitioned table may not have a default partition")
		}
		return &partBound{isDefault: true, text: "DEFAULT"}, nil
	}
	constant := func(n *pg_query.Node, typ types.Type) (any, error) {
		if containsSubLink(n) {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot use subquery in partition bound")
		}
		if loc, ok := firstColumnRef(n); ok {
			return nil, b.errAt(pgerror.New(pgerror.FeatureNotSupported, "cannot use column reference in partition bound expression"), loc)
		}
		e, err := b.expr(&scope{noAgg: "partition bound", noAggWin: "partition bound"}, n)
		if err != nil {
			return nil, err
		}
		if e, err = b.coerce(e, typ, types.CastAssignment); err != nil {
			return nil, err
		}
		return e.eval(d.x)
	}
	switch {
	case bs.Strategy == "l" && k.strategy == 'l':
		pb := &partBound{}
		var texts []string
		for _, n := range bs.Listdatums {
			v, err := constant(n, k.typs[0])
			if err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(pb.list, func(x any) bool { return sameKey(k.typs[0], x, v) }) {
				pb.list = append(pb.list, v)
				texts = append(texts, boundLiteral(k.typs[0], v))
			}
		}
		pb.text = "FOR VALUES IN (" + strings.Join(texts, ", ") + ")"
		return pb, nil
	case bs.Strategy == "r" && k.strategy == 'r':
		if len(bs.Lowerdatums) != len(k.typs) {
			return nil, pgerror.New(pgerror.InvalidTableDefinition, "FROM must specify exactly one value per partitioning column")
		}
		if len(bs.Upperdatums) != len(k.typs) {
			return nil, pgerror.New(pgerror.InvalidTableDefinition, "TO must specify exactly one value per partitioning column")
		}
		pb := &partBound{}
		side := func(ns []*pg_query.Node) ([]rangeDatum, string, error) {
			var out []rangeDatum
			var texts []string
			for i, n := range ns {
				if rd := n.GetPartitionRangeDatum(); rd != nil {
					switch rd.Kind {
					case pg_query.PartitionRangeDatumKind_PARTITION_RANGE_DATUM_MINVALUE:
						out, texts = append(out, rangeDatum{inf: -1}), append(texts, "MINVALUE")
						continue
					case pg_query.PartitionRangeDatumKind_PARTITION_RANGE_DATUM_MAXVALUE:
						out, texts = append(out, rangeDatum{inf: 1}), append(texts, "MAXVALUE")
						continue
					}
					n = rd.Value
				}
				if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
					switch strings.ToLower(cr.Fields[0].GetString_().GetSval()) {
					case "minvalue":
						out, texts = append(out, rangeDatum{inf: -1}), append(texts, "MINVALUE")
						continue
					case "maxvalue":
						out, texts = append(out, rangeDatum{inf: 1}), append(texts, "MAXVALUE")
						continue
					}
				}
				v, err := constant(n, k.typs[i])
				if err != nil {
					return nil, "", err
				}
				if v == nil {
					return nil, "", pgerror.New(pgerror.InvalidObjectDefinition, "cannot specify NULL in range bound")
				}
				out, texts = append(out, rangeDatum{val: v}), append(texts, boundLiteral(k.typs[i], v))
			}
			for i := 1; i < len(out); i++ {
				if prev := out[i-1].inf; prev != 0 && out[i].inf != prev {
					return nil, "", pgerror.Newf(pgerror.DatatypeMismatch, "every bound following %s must also be %s", texts[i-1], texts[i-1])
				}
			}
			return out, "(" + strings.Join(texts, ", ") + ")", nil
		}
		var lt, ut string
		var err error
		if pb.lower, lt, err = side(bs.Lowerdatums); err != nil {
			return nil, err
		}
		if pb.upper, ut, err = side(bs.Upperdatums); err != nil {
			return nil, err
		}
		if compareBounds(k, pb.lower, pb.upper) >= 0 {
			return nil, pgerror.Newf(pgerror.InvalidObjectDefinition, "empty range bound specified for partition \"%s\"", name).
				WithDetail("Specified lower bound %s is greater than or equal to upper bound %s.", lt, ut)
		}
		pb.text = "FOR VALUES FROM " + lt + " TO " + ut
		return pb, nil
	case bs.Strategy == "h" && k.strategy == 'h':
		return hashBound(bs)
	case k.strategy == 'h':
		return nil, pgerror.New(pgerror.InvalidTableDefinition, "invalid bound specification for a hash partition")
	case k.strategy == 'l':
		return nil, pgerror.New(pgerror.InvalidTableDefinition, "invalid bound specification for a list partition")
	}
	return nil, pgerror.New(pgerror.InvalidTableDefinition, "invalid bound specification for a range partition")
}

// boundLiteral prints a bound value as PostgreSQL's partition bound text
// does: numbers bare, other values quoted.
func boundLiteral(t types.Type, v any) string {
	if v == nil {
		return "NULL"
	}
	s := types.FormatText(t, v, time.UTC)
	switch t.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidNumeric, types.OidFloat4, types.OidFloat8:
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func sameKey(t types.Type, a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return types.Compare(t, a, b) == 0
}

// compareBounds orders two range bounds datum by datum; an infinite
// datum decides the comparison, as in PostgreSQL.
func compareBounds(k *partKey, a, b []rangeDatum) int {
	for i := range a {
		if a[i].inf != 0 || b[i].inf != 0 {
			if a[i].inf != b[i].inf {
				return a[i].inf - b[i].inf
			}
			return 0
		}
		if c := k.compare(i, a[i].val, b[i].val); c != 0 {
			return c
		}
	}
	return 0
}

// compareKey compares a row's key with a range bound.
func compareKey(k *partKey, key []any, b []rangeDatum) int {
	for i := range key {
		if b[i].inf != 0 {
			return -b[i].inf
		}
		if c := k.compare(i, key[i], b[i].val); c != 0 {
			return c
		}
	}
	return 0
}

// holds reports whether the key falls in the bound (not DEFAULT); a hash
// key's hash may call a user's function (x nil for a list or range key).
// Checking a key against several bounds, keyMatcher hashes it once.
func (pb *partBound) holds(x *execCtx, k *partKey, key []any) (bool, error) {
	switch k.strategy {
	case 'h':
		h, err := k.rowHash(x, key)
		return h%uint64(pb.modulus) == uint64(pb.remainder), err
	case 'l':
		return slices.ContainsFunc(pb.list, func(v any) bool { return sameKey(k.typs[0], v, key[0]) }), nil
	}
	if slices.Contains(key, nil) {
		return false, nil
	}
	return compareKey(k, key, pb.lower) >= 0 && compareKey(k, key, pb.upper) < 0, nil
}

// keyMatcher returns holds for one key against many bounds: a hash key is
// hashed once, as PostgreSQL calls a hash function once per row.
func (k *partKey) keyMatcher(x *execCtx, key []any) (func(pb *partBound) bool, error) {
	if k.strategy != 'h' {
		return func(pb *partBound) bool {
			ok, _ := pb.holds(nil, k, key)
			return ok
		}, nil
	}
	h, err := k.rowHash(x, key)
	if err != nil {
		return nil, err
	}
	return func(pb *partBound) bool { return h%uint64(pb.modulus) == uint64(pb.remainder) }, nil
}

// overlaps reports whether two non-default bounds share a key.
func (pb *partBound) overlaps(k *partKey, o *partBound) bool {
	if k.strategy == 'l' {
		return slices.ContainsFunc(pb.list, func(v any) bool {
			ok, _ := o.holds(nil, k, []any{v})
			return ok
		})
	}
	return compareBounds(k, pb.lower, o.upper) < 0 && compareBounds(k, o.lower, pb.upper) < 0
}

// checkNewPartition refuses a bound that overlaps a sibling's or a second
// DEFAULT, and a bound that rows of the DEFAULT partition fall in.
func (d *ddl) checkNewPartition(b *binder, p *tableDesc, name string, pb *partBound) error {
	if p.part.strategy == 'h' {
		return checkHashPartition(name, pb, d.cat.children(p.oid))
	}
	var def *tableDesc
	for _, sib := range d.cat.children(p.oid) {
		if sib.bound == nil {
			continue
		}
		if sib.bound.isDefault {
			def = sib
			if pb.isDefault {
				return pgerror.Newf(pgerror.InvalidObjectDefinition, "partition \"%s\" conflicts with existing default partition \"%s\"", name, sib.name)
			}
			continue
		}
		if !pb.isDefault && pb.overlaps(p.part, sib.bound) {
			return pgerror.Newf(pgerror.InvalidObjectDefinition, "partition \"%s\" would overlap partition \"%s\"", name, sib.name)
		}
	}
	if def == nil || pb.isDefault {
		return nil
	}
	keys, err := b.keyScalars(p)
	if err != nil {
		return err
	}
	leaves := []*tableDesc{def}
	if def.part != nil {
		leaves = d.cat.descendants(def)
	}
	for _, leaf := range leaves {
		err := d.scanRows(leaf, func(row []any) error {
			prow := make([]any, len(p.cols))
			for i, c := range p.cols {
				prow[i] = row[leaf.colIndex(c.name)]
			}
			key, err := evalKey(d.x, keys, prow)
			if err != nil {
				return err
			}
			if ok, err := pb.holds(d.x, p.part, key); err != nil || ok {
				if err != nil {
					return err
				}
				return pgerror.Newf(pgerror.CheckViolation, "updated partition constraint for default partition \"%s\" would be violated by some row", def.name)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// evalKey evaluates the key scalars over row.
func evalKey(x *execCtx, keys []*scalar, row []any) ([]any, error) {
	saved := x.row
	defer func() { x.row = saved }()
	x.row = row
	out := make([]any, len(keys))
	for i, k := range keys {
		v, err := k.eval(x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// keyText prints a key for the 23514 detail: "(a, b) = (1, 2)".
func keyText(t *tableDesc, key []any) string {
	names := make([]string, len(key))
	vals := make([]string, len(key))
	for i, c := range t.part.cols {
		if c != "" {
			names[i] = c
		} else {
			names[i] = deparseExpr(t.part.exprs[i])
		}
		if key[i] == nil {
			vals[i] = "null"
		} else {
			vals[i] = types.FormatText(t.part.typs[i], key[i], time.UTC)
		}
	}
	return fmt.Sprintf("(%s) = (%s)", strings.Join(names, ", "), strings.Join(vals, ", "))
}

// partitioning applies CREATE TABLE's PARTITION BY and PARTITION OF to t,
// whose columns are known.
func (d *ddl) partitioning(b *binder, t *tableDesc, cs *pg_query.CreateStmt) error {
	if cs.Partspec != nil {
		if len(cs.InhRelations) > 0 && cs.Partbound == nil {
			return pgerror.New(pgerror.InvalidTableDefinition, "cannot create partitioned table as inheritance child")
		}
		k, err := d.partitionKey(b, t, cs.Partspec)
		if err != nil {
			return err
		}
		t.part = k
	}
	if cs.Partbound == nil {
		for _, oid := range t.parents {
			if p := d.cat.tables[oid]; p.part != nil {
				return pgerror.Newf(pgerror.WrongObjectType, "cannot inherit from partitioned table \"%s\"", p.name)
			} else if p.bound != nil {
				return pgerror.Newf(pgerror.WrongObjectType, "cannot inherit from partition \"%s\"", p.name)
			}
		}
		return nil
	}
	p := d.cat.tables[t.parents[0]]
	if p.part == nil {
		return pgerror.Newf(pgerror.InvalidObjectDefinition, "\"%s\" is not partitioned", p.name)
	}
	pb, err := d.partitionBound(b, p, t.name, cs.Partbound)
	if err != nil {
		return err
	}
	if err := d.checkNewPartition(b, p, t.name, pb); err != nil {
		return err
	}
	t.bound = pb
	return nil
}

// partitions returns t's partitions in bound order: list partitions by
// their least value (a partition of NULL alone after them), range ones by
// lower bound, hash ones by modulus and remainder, DEFAULT last.
func (c *catalog) partitions(t *tableDesc) []*tableDesc {
	ps := c.children(t.oid)
	k := t.part
	rank := func(p *tableDesc) int {
		switch {
		case p.bound.isDefault:
			return 2
		case k.strategy == 'l' && len(p.bound.nonNull(k)) == 0:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(ps, func(a, b *tableDesc) int {
		if ra, rb := rank(a), rank(b); ra != rb || ra != 0 {
			return ra - rb
		}
		switch k.strategy {
		case 'h':
			return compareHashBounds(a.bound, b.bound)
		case 'r':
			return compareBounds(k, a.bound.lower, b.bound.lower)
		}
		return k.compare(0, a.bound.nonNull(k)[0], b.bound.nonNull(k)[0])
	})
	return ps
}

// nonNull returns a list bound's values without NULL, least first.
func (pb *partBound) nonNull(k *partKey) []any {
	var out []any
	for _, v := range pb.list {
		if v != nil {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b any) int { return k.compare(0, a, b) })
	return out
}

// keyColumn reports whether the partition key of t reads the column name.
func (k *partKey) keyColumn(name string) bool {
	if k == nil {
		return false
	}
	found := slices.Contains(k.cols, name)
	for _, e := range k.exprs {
		walk(e, func(n *pg_query.Node) bool {
			if cr := n.GetColumnRef(); cr != nil {
				if s := cr.Fields[len(cr.Fields)-1].GetString_(); s != nil && s.Sval == name {
					found = true
				}
			}
			return true
		})
	}
	return found
}

// keyColumnChange refuses dropping, retyping or renaming a column of t's
// partition key; verb is "drop", "alter" or "rename".
func keyColumnChange(t *tableDesc, name, verb string) error {
	if !t.part.keyColumn(name) {
		return nil
	}
	if verb == "rename" {
		return pgerror.Unsupported("renaming a partition key column")
	}
	return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot %s column \"%s\" because it is part of the partition key of relation \"%s\"", verb, name, t.name)
}

// partitionPersistence refuses a partition whose persistence differs from
// its parent's; verb is "create" or "attach".
func partitionPersistence(t, p *tableDesc, verb string) error {
	tt, pt := isTempSchema(t.schema), isTempSchema(p.schema)
	switch {
	case tt && !pt:
		if verb == "create" {
			return pgerror.Newf(pgerror.WrongObjectType, "cannot create a temporary relation as partition of permanent relation \"%s\"", p.name)
		}
		return pgerror.Newf(pgerror.WrongObjectType, "cannot attach a temporary relation as partition of permanent relation \"%s\"", p.name)
	case !tt && pt:
		if verb == "create" {
			return pgerror.Newf(pgerror.WrongObjectType, "cannot create a permanent relation as partition of temporary relation \"%s\"", p.name)
		}
		return pgerror.Newf(pgerror.WrongObjectType, "cannot attach a permanent relation as partition of temporary relation \"%s\"", p.name)
	}
	return nil
}

// keyColumnAlter refuses ALTER TABLE DROP COLUMN and ALTER COLUMN TYPE of a
// partition key column.
func keyColumnAlter(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	switch cmd.Subtype {
	case pg_query.AlterTableType_AT_DropColumn:
		return keyColumnChange(t, cmd.Name, "drop")
	case pg_query.AlterTableType_AT_AlterColumnType:
		return keyColumnChange(t, cmd.Name, "alter")
	}
	return nil
}
