package types

import (
	"strconv"
	"strings"
	"sync"
)

// Records. A record datum is []any holding its field datums (nil for a
// NULL field). Its type is the pseudo-type record with a typmod that names
// the record's shape (its fields' names and types) in a registry, as
// PostgreSQL's assign_record_type_typmod names the shapes of anonymous
// records: the shape then travels with the Type through plans and
// subqueries. Record(...) with typmod -1 is a record of unknown shape.

// OidRecord is the OID of the pseudo-type record.
const OidRecord Oid = 2249

// OidRecordArray is record[], an array of anonymous records. Like the
// element's, its typmod names the records' shape.
const OidRecordArray Oid = 2287

// recordShapeHidden marks the typmod of a record taken out of a record[]
// (a subscript, unnest, ANY): fickle knows its shape, but PostgreSQL's
// parser does not, as its ArrayExpr has no row descriptor until run time,
// so field selection and star expansion fail there as in PostgreSQL while
// comparison and output work.
const recordShapeHidden = 1 << 30

// ShapeHidden reports whether t is a record whose shape PostgreSQL's
// parser would not know: an element of a record[].
func (t Type) ShapeHidden() bool {
	return t.Oid == OidRecord && t.Typmod >= 0 && t.Typmod&recordShapeHidden != 0
}

// CategoryPseudo is the category of pseudo-types (record).
const CategoryPseudo Category = 'P'

// Field is one field of a record type.
type Field struct {
	Name string
	Type Type
	// Domain is the domain a composite type's field was declared with
	// (Type is its base type), 0 for none: record_send names it.
	Domain Oid
}

// records is the registry of record shapes: a shape's typmod is its index.
var records struct {
	mu     sync.Mutex
	shapes [][]Field
	byKey  map[string]int32
}

// RecordType returns the record type with the given fields, the same Type
// for the same fields every time.
func RecordType(fields []Field) Type {
	var key strings.Builder
	for _, f := range fields {
		key.WriteString(f.Name)
		key.WriteByte(0)
		key.WriteString(formatInt32(int32(f.Type.Oid)))
		key.WriteByte('/')
		key.WriteString(formatInt32(f.Type.Typmod))
		key.WriteByte(0)
	}
	records.mu.Lock()
	defer records.mu.Unlock()
	if records.byKey == nil {
		records.byKey = map[string]int32{}
	}
	if mod, ok := records.byKey[key.String()]; ok {
		return Type{OidRecord, mod}
	}
	mod := int32(len(records.shapes))
	records.shapes = append(records.shapes, append([]Field(nil), fields...))
	records.byKey[key.String()] = mod
	return Type{OidRecord, mod}
}

// Fields returns the fields of a record or composite type; ok is false for
// other types and for records of unknown shape.
func (t Type) Fields() ([]Field, bool) {
	if c, ok := compositeOf(t.Oid); ok {
		return c.fields, true
	}
	if t.Oid != OidRecord || t.Typmod < 0 {
		return nil, false
	}
	t.Typmod &^= recordShapeHidden
	records.mu.Lock()
	defer records.mu.Unlock()
	if int(t.Typmod) >= len(records.shapes) {
		return nil, false
	}
	return records.shapes[t.Typmod], true
}

// formatRecord is record_out: the fields' text between parentheses,
// separated by commas, a NULL field as nothing, and a field double-quoted
// (quotes and backslashes doubled) when it is empty or holds a parenthesis,
// comma, quote, backslash or white space.
func formatRecord(env *Env, t Type, vals []any) string {
	fields, _ := t.Fields()
	var b strings.Builder
	b.WriteByte('(')
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(',')
		}
		if v == nil {
			continue
		}
		ft := Text
		if i < len(fields) {
			ft = fields[i].Type
		}
		s := formatText(env, ft, v)
		quote := s == ""
		for k := 0; k < len(s) && !quote; k++ {
			c := s[k]
			quote = c == '(' || c == ')' || c == ',' || c == '"' || c == '\\' || arrayIsSpace(c)
		}
		if !quote {
			b.WriteString(s)
			continue
		}
		b.WriteByte('"')
		for k := 0; k < len(s); k++ {
			if s[k] == '"' || s[k] == '\\' {
				b.WriteByte(s[k])
			}
			b.WriteByte(s[k])
		}
		b.WriteByte('"')
	}
	b.WriteByte(')')
	return b.String()
}

func formatInt32(n int32) string { return strconv.FormatInt(int64(n), 10) }
