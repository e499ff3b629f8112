package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Enum types: CREATE TYPE name AS ENUM (...), ALTER TYPE name ADD VALUE,
// ALTER TYPE name RENAME VALUE, and pg_enum. A value is stored as its
// label's text, so RENAME VALUE, which PostgreSQL does by renaming the
// pg_enum row its stored OIDs point to, is refused while values may be
// stored (renameEnumValue) rather than leaving them behind.

// enumType is what an enum type's typeDesc adds: its labels in sort order.
type enumType struct {
	labels []enumLabel
}

// enumLabel is a row of pg_enum.
type enumLabel struct {
	oid   uint32
	label string
	// sortOrder is pg_enum.enumsortorder, a float4 that PostgreSQL may
	// renumber; position orders values (types.EnumLabel.Position) and never
	// changes, since index keys encode it.
	sortOrder float32
	position  float64
}

// maxEnumLabelLen is NAMEDATALEN - 1, the longest label PostgreSQL stores.
const maxEnumLabelLen = 63

// registerEnum tells package types the labels of enum type t.
func registerEnum(t *typeDesc) {
	labels := make([]types.EnumLabel, len(t.enum.labels))
	for i, l := range t.enum.labels {
		labels[i] = types.EnumLabel{Label: l.label, Position: l.position}
	}
	types.RegisterEnum(types.Oid(t.oid), types.Oid(t.array), t.name, labels)
}

func checkEnumLabel(label string) error {
	if len(label) > maxEnumLabelLen || label == "" {
		return pgerror.Newf(pgerror.InvalidParameterValue, "invalid enum label \"%s\"", label).
			WithDetail("Labels must be %d bytes or less.", maxEnumLabelLen)
	}
	return nil
}

// createEnumType runs CREATE TYPE name AS ENUM ('label', ...).
func (d *ddl) createEnumType(cs *pg_query.CreateEnumStmt) error {
	names := strs(cs.TypeName)
	schemaName, name := "", names[len(names)-1]
	if len(names) > 1 {
		schemaName = names[len(names)-2]
	}
	schema, err := d.creationSchema(schemaName)
	if err != nil {
		return err
	}
	if d.relationExists(schema, name) {
		return pgerror.Newf(pgerror.DuplicateObject, "type \"%s\" already exists", name)
	}
	e := &enumType{}
	t := &typeDesc{oid: newCompositeOID(), array: newCompositeOID(), schema: schema, name: name, enum: e, owner: d.s.currentRole()}
	for i, v := range strs(cs.Vals) {
		if err := checkEnumLabel(v); err != nil {
			return err
		}
		if slices.ContainsFunc(e.labels, func(l enumLabel) bool { return l.label == v }) {
			return pgerror.Newf(pgerror.UniqueViolation, "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"").
				WithDetail("Key (enumtypid, enumlabel)=(%d, %s) already exists.", t.oid, v)
		}
		e.labels = append(e.labels, enumLabel{oid: d.cat.newOID(), label: v, sortOrder: float32(i + 1), position: float64(i + 1)})
	}
	registerEnum(t)
	d.cat.schemas[schema].types[t.name] = t
	d.applyTypeDefaultACL(t)
	return nil
}

// alterEnumType runs ALTER TYPE name ADD VALUE [IF NOT EXISTS] 'label'
// [BEFORE | AFTER 'label'].
func (d *ddl) alterEnumType(as *pg_query.AlterEnumStmt) error {
	names := strs(as.TypeName)
	var t *typeDesc
	switch len(names) {
	case 1:
		t = d.s.lookupTypeOrRowType(d.cat, "", names[0])
	case 2:
		t = d.s.lookupTypeOrRowType(d.cat, names[0], names[1])
	}
	if t == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
	}
	if t.enum == nil {
		return pgerror.Newf(pgerror.WrongObjectType, "%s is not an enum", types.QuoteIdent(t.name))
	}
	if err := d.s.requireOwner(t.ownerRole(), "type", t.name); err != nil {
		return err
	}
	if as.OldVal != "" {
		return d.renameEnumValue(t, as.OldVal, as.NewVal)
	}
	if err := checkEnumLabel(as.NewVal); err != nil {
		return err
	}
	at := slices.IndexFunc(t.enum.labels, func(l enumLabel) bool { return l.label == as.NewVal })
	if at >= 0 {
		if as.SkipIfNewValExists {
			d.notice(pgerror.DuplicateObject, "enum label \"%s\" already exists, skipping", as.NewVal)
			return nil
		}
		return pgerror.Newf(pgerror.DuplicateObject, "enum label \"%s\" already exists", as.NewVal)
	}
	labels, err := withEnumLabel(t.enum.labels, as.NewVal, d.cat.newOID(), as.NewValNeighbor, as.NewValIsAfter)
	if err != nil {
		return err
	}
	nt := *t
	nt.enum = &enumType{labels: labels}
	d.cat.schemas[t.schema].types[t.name] = &nt
	// As in PostgreSQL, the new label may not be used until its
	// transaction commits, even in a type that transaction created.
	oid, label := types.Oid(t.oid), as.NewVal
	types.SetEnumLabelPending(oid, label, true)
	d.undo = append(d.undo, func() { types.SetEnumLabelPending(oid, label, false) })
	d.onCommit = append(d.onCommit, func() {
		registerEnum(&nt)
		types.SetEnumLabelPending(oid, label, false)
	})
	return nil
}

// renameEnumValue runs ALTER TYPE name RENAME VALUE 'old' TO 'new' with
// PostgreSQL's checks (RenameEnumLabel's). A value is stored as its
// label's text, which PostgreSQL does not store (its values are pg_enum
// OIDs): so the rename is made only while no table column can hold a
// value of the type (directly, in an array, domain, composite or range
// type) and no stored expression spells the old label, and refused
// (0A000) otherwise rather than leave values behind under the old label.
func (d *ddl) renameEnumValue(t *typeDesc, oldVal, newVal string) error {
	if err := checkEnumLabel(newVal); err != nil {
		return err
	}
	at := slices.IndexFunc(t.enum.labels, func(l enumLabel) bool { return l.label == oldVal })
	if at < 0 {
		return pgerror.Newf(pgerror.InvalidParameterValue, "\"%s\" is not an existing enum label", oldVal)
	}
	if slices.ContainsFunc(t.enum.labels, func(l enumLabel) bool { return l.label == newVal }) {
		return pgerror.Newf(pgerror.DuplicateObject, "enum label \"%s\" already exists", newVal)
	}
	if table, column := d.cat.enumUser(t); table != "" {
		return pgerror.Unsupported("ALTER TYPE ... RENAME VALUE while column \"" + table + "." + column + "\" can hold values of the type (fickle stores enum values by their label)")
	}
	if d.storedExprsName(oldVal) {
		return pgerror.Unsupported("ALTER TYPE ... RENAME VALUE while a stored expression spells the label")
	}
	if _, pending := types.EnumLabelPending(types.Oid(t.oid)); pending {
		return pgerror.Unsupported("ALTER TYPE ... RENAME VALUE of a type a value was added to in the same transaction")
	}
	nt := *t
	labels := slices.Clone(t.enum.labels)
	labels[at].label = newVal
	nt.enum = &enumType{labels: labels}
	d.cat.schemas[t.schema].types[t.name] = &nt
	d.reregisterType(t, &nt)
	return nil
}

// enumUser names the first table column whose values can hold values of
// enum type t: of t, an array, a domain or composite type over it, or a
// range type over any of these; "" when none can.
func (c *catalog) enumUser(t *typeDesc) (table, column string) {
	holding := c.rowTypeHolders(t.oid)
	for grew := true; grew; {
		grew = false
		for _, sc := range c.schemas {
			for _, r := range sc.types {
				if r.rng == nil || holding[r.oid] {
					continue
				}
				if r.rng.multi {
					if holding[r.rng.pair] {
						holding[r.oid], grew = true, true
					}
					continue
				}
				if c.typeHolds(r.rng.sub, 0, holding) {
					holding[r.oid], grew = true, true
				}
			}
		}
		if grew {
			for oid := range holding {
				for k := range c.rowTypeHolders(oid) {
					holding[k] = true
				}
			}
		}
	}
	for _, tab := range sortedTables(c) {
		for _, col := range tab.cols {
			if c.typeHolds(col.typ, col.domain, holding) {
				return tab.name, col.name
			}
		}
	}
	return "", ""
}

// withEnumLabel returns labels with a new one added at the end or beside
// neighbor, its sort order chosen as PostgreSQL's AddEnumLabel chooses it:
// one past the end, or the float4 midpoint between the neighbors, every
// label renumbered 1, 2, ... when the midpoint is not between them.
func withEnumLabel(labels []enumLabel, label string, oid uint32, neighbor string, after bool) ([]enumLabel, error) {
	out := slices.Clone(labels)
	if neighbor == "" {
		l := enumLabel{oid: oid, label: label, sortOrder: 1, position: 1}
		if n := len(out); n > 0 {
			l.sortOrder, l.position = out[n-1].sortOrder+1, out[n-1].position+1
		}
		return append(out, l), nil
	}
	at := slices.IndexFunc(out, func(l enumLabel) bool { return l.label == neighbor })
	if at < 0 {
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "\"%s\" is not an existing enum label", neighbor)
	}
	other, insert := at-1, at
	if after {
		other, insert = at+1, at+1
	}
	l := enumLabel{oid: oid, label: label}
	if other < 0 || other >= len(out) {
		step := float32(-1)
		if after {
			step = 1
		}
		l.sortOrder, l.position = out[at].sortOrder+step, out[at].position+float64(step)
		return slices.Insert(out, insert, l), nil
	}
	l.position = (out[at].position + out[other].position) / 2
	if l.position == out[at].position || l.position == out[other].position {
		return nil, pgerror.Unsupported("adding a value between two enum labels that so many values were added between")
	}
	mid := (out[at].sortOrder + out[other].sortOrder) / 2
	if mid == out[at].sortOrder || mid == out[other].sortOrder {
		for i := range out {
			out[i].sortOrder = float32(i + 1)
		}
		mid = (out[at].sortOrder + out[other].sortOrder) / 2
	}
	l.sortOrder = mid
	return slices.Insert(out, insert, l), nil
}

// enumRows are pg_enum's rows: every enum type's labels.
func enumRows(c *catalog) [][]any {
	var out [][]any
	for _, sc := range c.schemas {
		for _, t := range sc.types {
			if t.enum == nil {
				continue
			}
			for _, l := range t.enum.labels {
				out = append(out, []any{int64(l.oid), int64(t.oid), float64(l.sortOrder), l.label})
			}
		}
	}
	return out
}

// The functions enum types read and write with, as PostgreSQL gives them.
const oidEnumIn, oidEnumOut, oidEnumRecv, oidEnumSend = 3506, 3507, 3532, 3533

func init() {
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_enum",
		cols: []vcol{{"oid", types.OidType}, {"enumtypid", types.OidType}, {"enumsortorder", types.Float4}, {"enumlabel", types.Name}},
		rows: func(_ *Session, c *catalog) [][]any { return enumRows(c) }})
}
