package sqlexec

import (
	"strconv"
	"strings"
	"sync"

	"github.com/cockroachdb/apd/v3"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The store places every row version in a model of PostgreSQL's heap to
// give it its ctid (isolation/tid.go), and a version takes the room of its
// tuple: this file computes a row's tuple size as heap_form_tuple would,
// from the table's columns (their types' typlen, typalign and typstorage)
// and the values' on-disk sizes. Values whose on-disk form fickle does not
// model (a composite, json and jsonb, a range, a geometric path, tsvector,
// an array of them, ...) count their text output's length as a varlena's
// data: a table holding them gets places that may differ from
// PostgreSQL's.

// typeLayout is what a tuple needs of a column's type.
type typeLayout struct {
	len      int  // typlen: > 0 fixed, -1 varlena, -2 cstring
	align    int  // typalign in bytes
	packable bool // a varlena whose storage is not plain: short headers
}

// builtinLayouts holds the layout of pg_type's built-in types.
var builtinLayouts = sync.OnceValue(func() map[types.Oid]typeLayout {
	t := pgdata.Load("pg_type")
	oid, ln, al, st := t.Column("oid"), t.Column("typlen"), t.Column("typalign"), t.Column("typstorage")
	out := make(map[types.Oid]typeLayout, len(t.Rows))
	for _, r := range t.Rows {
		if r[oid] == nil || r[ln] == nil || r[al] == nil || r[st] == nil {
			continue
		}
		o, err1 := strconv.ParseUint(*r[oid], 10, 32)
		n, err2 := strconv.Atoi(*r[ln])
		if err1 != nil || err2 != nil {
			continue
		}
		out[types.Oid(o)] = typeLayout{len: n, align: alignBytes((*r[al])[0]), packable: *r[st] != "p"}
	}
	return out
})

// alignBytes is a typalign's alignment.
func alignBytes(c byte) int {
	switch c {
	case 's':
		return 2
	case 'i':
		return 4
	case 'd':
		return 8
	}
	return 1
}

// layoutOf returns the layout of a column of type t.
func layoutOf(t types.Type) typeLayout {
	if l, ok := builtinLayouts()[t.Oid]; ok {
		return l
	}
	switch {
	case t.IsEnum():
		return typeLayout{len: 4, align: 4}
	case t.IsComposite():
		return typeLayout{len: -1, align: 8, packable: true}
	}
	return typeLayout{len: -1, align: 4, packable: true}
}

// alignUp rounds n up to a multiple of a.
func alignUp(n, a int) int { return (n + a - 1) / a * a }

// tupleSize returns t_len of a heap tuple of t holding row, a row of its
// columns in order; a row of another shape (an ALTER in progress) sizes
// its values by their own kinds.
func tupleSize(t *tableDesc, row []any) int {
	natts := len(row)
	hasNull := false
	if t != nil && len(t.cols) == len(row) {
		natts = int(t.droppedAttnum)
		for _, c := range t.cols {
			natts = max(natts, int(c.attnum))
		}
		hasNull = natts > len(row) // dropped columns are NULL in a new tuple
	}
	for _, v := range row {
		hasNull = hasNull || v == nil
	}
	hoff := 23 // offsetof(HeapTupleHeaderData, t_bits)
	if hasNull {
		hoff += (natts + 7) / 8
	}
	hoff = alignUp(hoff, 8)
	off := 0
	for i, v := range row {
		if v == nil {
			continue
		}
		var typ types.Type
		if t != nil && len(t.cols) == len(row) {
			typ = t.cols[i].typ
		} else {
			typ = valueKind(v)
		}
		off = addDatum(off, layoutOf(typ), typ, v)
	}
	return hoff + off
}

// valueKind guesses a type for a value of a row whose columns are not
// known.
func valueKind(v any) types.Type {
	switch v.(type) {
	case int64, float64:
		return types.Int8
	case bool:
		return types.Bool
	}
	return types.Text
}

// addDatum returns off, a tuple's data length so far, after a value of
// typ laid out as l.
func addDatum(off int, l typeLayout, typ types.Type, v any) int {
	if l.len > 0 {
		return alignUp(off, l.align) + l.len
	}
	if l.len == -2 {
		return off + len(types.FormatText(typ, v, nil)) + 1
	}
	n := varlenaData(typ, v)
	if l.packable && n+1 <= 127 { // VARATT_CAN_MAKE_SHORT: a 1-byte header, unaligned
		return off + n + 1
	}
	return alignUp(off, l.align) + n + 4
}

// varlenaData returns the length of a varlena value's data (VARSIZE less
// its 4-byte header).
func varlenaData(typ types.Type, v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []byte:
		return len(x)
	case *apd.Decimal:
		return numericData(x)
	case types.BitString:
		return 4 + len(x.Data) // the length in bits, then the bytes
	case types.Inet:
		if x.V6 { // family, bits, the address
			return 2 + 16
		}
		return 2 + 4
	case []any:
		if elem, ok := typ.Elem(); ok {
			return arrayData(elem, []int{len(x)}, x)
		}
	case *pgarray.Array:
		if elem, ok := typ.Elem(); ok {
			return arrayData(elem, x.Dims, x.Elems)
		}
	}
	return len(types.FormatText(typ, v, nil))
}

// numericData is the length of a numeric's data: its header (2 bytes in
// the short form, 4 in the long) and 2 bytes per base-10000 digit, zero
// digits at either end stripped.
func numericData(d *apd.Decimal) int {
	if d.Form != apd.Finite || d.Coeff.Sign() == 0 {
		return 2
	}
	digits := d.Coeff.String()
	trailing := len(digits) - len(strings.TrimRight(digits, "0"))
	top := int64(len(digits)-1) + int64(d.Exponent) // power of ten of the first digit
	low := int64(trailing) + int64(d.Exponent)      // of the last non-zero one
	weight := floorDiv4(top)
	n := int(weight - floorDiv4(low) + 1)
	hdr := 2
	if scale := max(0, -int64(d.Exponent)); weight < -64 || weight > 63 || scale > 63 {
		hdr = 4
	}
	return hdr + 2*n
}

// floorDiv4 is floor(p / 4): the base-10000 digit holding 10^p.
func floorDiv4(p int64) int64 {
	if p < 0 {
		return -((-p + 3) / 4)
	}
	return p / 4
}

// arrayData is the length of an array's data: its header (flags, element
// type, dimensions and lower bounds, the null bitmap when an element is
// NULL), MAXALIGN'd, then its elements, each aligned as its type says
// (varlena elements keep 4-byte headers).
func arrayData(elem types.Type, dims []int, elems []any) int {
	if len(elems) == 0 {
		return 12
	}
	hdr := 16 + 8*len(dims)
	for _, e := range elems {
		if e == nil {
			hdr += (len(elems) + 7) / 8
			break
		}
	}
	off := alignUp(hdr, 8)
	l := layoutOf(elem)
	for _, e := range elems {
		if e == nil {
			continue
		}
		if l.len > 0 {
			off = alignUp(off+l.len, l.align)
		} else {
			off = alignUp(off+varlenaData(elem, e)+4, l.align)
		}
	}
	return off - 4
}

// fillFactor returns t's fillfactor storage parameter, 0 when it has none.
func fillFactor(t *tableDesc) int {
	for _, o := range t.options {
		if v, ok := strings.CutPrefix(o, "fillfactor="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// columnTypesRewrite reports whether PostgreSQL writes the table anew for
// the ALTER COLUMN ... TYPE commands run, which changed before into after
// (ATColumnChangeRequiresRewrite): it does not when each column's value is
// kept as it is, a binary-coercible change (varchar to text) or a typmod
// its type's support function finds needs no conversion (a longer
// varchar, a wider numeric of the same scale, a finer timestamp).
func columnTypesRewrite(before, after *tableDesc, run []*pg_query.AlterTableCmd) bool {
	for _, cmd := range run {
		i, j := before.colIndex(cmd.Name), after.colIndex(cmd.Name)
		if i < 0 || j < 0 {
			return true
		}
		if using := cmd.GetDef().GetColumnDef().GetRawDefault(); using != nil {
			if cr := using.GetColumnRef(); cr == nil || len(cr.Fields) != 1 || columnRefName(cr) != cmd.Name {
				return true
			}
		}
		from, to := before.cols[i], after.cols[j]
		if to.domain != 0 && to.domain != from.domain || typeChangeRewrites(from.typ, to.typ) {
			return true
		}
	}
	return false
}

// typeChangeRewrites reports whether a value of type from needs converting
// to be one of type to.
func typeChangeRewrites(from, to types.Type) bool {
	if from.Oid != to.Oid {
		switch {
		case from.Oid == types.OidVarchar && to.Oid == types.OidText,
			from.Oid == types.OidText && to.Oid == types.OidVarchar && to.Typmod < 0:
			return false
		}
		return true
	}
	if from.Typmod == to.Typmod || to.Typmod < 0 && from.Oid != types.OidBpchar && from.Oid != types.OidBit {
		return false
	}
	switch from.Oid {
	case types.OidVarchar, types.OidVarbit, types.OidTimestamp, types.OidTimestamptz, types.OidTime, types.OidTimetz:
		return from.Typmod < 0 || to.Typmod < from.Typmod
	case types.OidNumeric:
		// typmod is ((precision << 16) | scale) + 4.
		fp, fs, tp, ts := (from.Typmod-4)>>16, (from.Typmod-4)&0xffff, (to.Typmod-4)>>16, (to.Typmod-4)&0xffff
		return from.Typmod < 0 || fs != ts || tp < fp
	}
	return true
}

// sizeModeled reports whether tupleSize sizes values of type t as
// PostgreSQL stores them: fixed-length types, strings, bytea, numeric, bit
// strings, inet and cidr, and arrays of them.
func sizeModeled(t types.Type) bool {
	if elem, ok := t.Elem(); ok && t.IsArray() {
		return sizeModeled(elem)
	}
	if l := layoutOf(t); l.len > 0 || t.IsEnum() || t.IsCitext() {
		return true
	}
	switch t.Oid {
	case types.OidText, types.OidVarchar, types.OidBpchar, types.OidBytea, types.OidNumeric, types.OidBit, types.OidVarbit,
		types.OidInet, types.OidCidr, types.OidJSON, types.OidXML:
		return true
	}
	return false
}
