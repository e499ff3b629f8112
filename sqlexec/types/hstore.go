package types

import (
	"cmp"
	"encoding/binary"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// hstore, the type of PostgreSQL 15's hstore extension (version 1.8). The
// catalog gives the type and its array their OIDs when CREATE EXTENSION
// hstore runs and registers them here (RegisterHstore), as it does citext.
// A datum is an Hstore: its pairs sorted as hstore keeps them (by key
// length, then key bytes), keys unique. Its text I/O is hstore_in and
// hstore_out (hstore_io.c), its order hstore_cmp (hstore_op.c), which
// compares the concatenated keys and values first and the pairs'
// boundaries after: the order is not meant to be useful, only stable.
//
// Its operators and casts are the extension script's, registered into a
// table of the type that resolution consults beside the built-in one; its
// functions are catalog routines of the extension (sqlexec), which call
// the exported operations here.

// HstorePair is one key and its value; Null marks a NULL value.
type HstorePair struct {
	Key, Value string
	Null       bool
}

// Hstore is an hstore datum.
type Hstore []HstorePair

// hstoreType is a registered hstore type.
type hstoreType struct {
	name       string
	oid, array Oid
	once       sync.Once
	funcs      *funcTable
}

var hstores sync.Map // type and array OIDs -> *hstoreType

// RegisterHstore records that oid is the hstore type (named name, as
// format_type prints it) and array the OID of its array type.
func RegisterHstore(oid, array Oid, name string) {
	h := &hstoreType{name: name, oid: oid, array: array}
	hstores.Store(oid, h)
	hstores.Store(array, h)
}

func hstoreOf(oid Oid) (*hstoreType, bool) {
	if oid < firstUserOid {
		return nil, false
	}
	v, ok := hstores.Load(oid)
	if !ok {
		return nil, false
	}
	return v.(*hstoreType), true
}

// IsHstore reports whether t is an hstore type (not an array of one).
func (t Type) IsHstore() bool {
	h, ok := hstoreOf(t.Oid)
	return ok && h.oid == t.Oid
}

// hstoreTypeInfo is the pg_type row of hstore or its array.
func hstoreTypeInfo(oid Oid) (typeInfo, bool) {
	h, ok := hstoreOf(oid)
	if !ok {
		return typeInfo{}, false
	}
	if oid == h.oid {
		return typeInfo{name: h.name, sqlName: QuoteIdent(h.name), size: -1, category: CategoryUser}, true
	}
	return typeInfo{name: "_" + h.name, sqlName: QuoteIdent(h.name) + "[]", size: -1, category: CategoryArray}, true
}

// hstoreElem is the element of hstore[].
func hstoreElem(oid Oid) (Oid, bool) {
	h, ok := hstoreOf(oid)
	if !ok || oid != h.array {
		return 0, false
	}
	return h.oid, true
}

// hstoreArray is the array type over hstore.
func hstoreArray(oid Oid) (Oid, bool) {
	h, ok := hstoreOf(oid)
	if !ok || oid != h.oid {
		return 0, false
	}
	return h.array, true
}

// hstoreMaxLen is HSTORE_MAX_KEY_LEN and HSTORE_MAX_VALUE_LEN.
const hstoreMaxLen = 0x3FFFFFFF

func hstoreCheckKey(k string) error {
	if len(k) > hstoreMaxLen {
		return pgerror.New(pgerror.StringDataRightTruncation, "string too long for hstore key")
	}
	return nil
}

func hstoreCheckValue(v string) error {
	if len(v) > hstoreMaxLen {
		return pgerror.New(pgerror.StringDataRightTruncation, "string too long for hstore value")
	}
	return nil
}

// hstoreInput is a pair as hstore_in and its kin collect it before
// hstoreUniquePairs: fromInput marks pairs whose text was parsed or
// received (Pairs.needfree), which sort after equal keys that were not.
type hstoreInput struct {
	HstorePair
	fromInput bool
}

// hstoreKeyCompare orders keys as hstore does: by length, then bytes.
func hstoreKeyCompare(a, b string) int {
	if len(a) != len(b) {
		if len(a) > len(b) {
			return 1
		}
		return -1
	}
	return strings.Compare(a, b)
}

// hstoreUniquePairs is hstoreUniquePairs: the pairs sorted by PostgreSQL's
// qsort (whose choice among equal keys decides which duplicate stays: the
// first of them in its order), duplicates dropped.
func hstoreUniquePairs(in []hstoreInput) Hstore {
	if len(in) < 2 {
		out := make(Hstore, len(in))
		for i, p := range in {
			out[i] = p.HstorePair
		}
		return out
	}
	PGQsort(in, func(a, b hstoreInput) int {
		if c := hstoreKeyCompare(a.Key, b.Key); c != 0 {
			return c
		}
		switch {
		case a.fromInput == b.fromInput:
			return 0
		case a.fromInput:
			return 1
		}
		return -1
	})
	out := Hstore{in[0].HstorePair}
	for _, p := range in[1:] {
		if p.Key != out[len(out)-1].Key {
			out = append(out, p.HstorePair)
		}
	}
	return out
}

// hstoreSyntaxError is hstore_in's complaint at byte pos of s: PostgreSQL
// 15 raises it with elog, hence XX000.
func hstoreSyntaxError(s string, pos int) error {
	_, n := utf8.DecodeRuneInString(s[pos:])
	if n < 1 {
		n = 1
	}
	return pgerror.Newf(pgerror.InternalError, "Syntax error near \"%s\" at position %d", s[pos:pos+n], pos)
}

func hstoreUnexpectedEnd() error {
	return pgerror.New(pgerror.InternalError, "Unexpected end of string")
}

// hstoreParser is hstore_io.c's HSParser over s, which ends at its first
// NUL as a C string does.
type hstoreParser struct {
	s   string
	pos int
}

func (p *hstoreParser) at() byte {
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

// word is get_val: the next key (inValue false) or value, unquoted; ok is
// false at the end of the input before a word starts; quoted reports a
// word that began with a double quote. It leaves pos on the word's last
// character (the closing quote, or the character before what ended it).
func (p *hstoreParser) word(inValue bool) (w string, quoted, ok bool, err error) {
	const (
		waitVal = iota
		inVal
		inQuoted
		escInVal
		escInQuoted
	)
	var b []byte
	st := waitVal
	for ; ; p.pos++ {
		c := p.at()
		switch st {
		case waitVal:
			switch {
			case c == '"':
				quoted, st = true, inQuoted
			case c == 0:
				return "", false, false, nil
			case c == '=' && !inValue:
				return "", false, false, hstoreSyntaxError(p.s, p.pos)
			case c == '\\':
				st = escInVal
			case !isCSpace(c):
				b = append(b, c)
				st = inVal
			}
		case inVal:
			switch {
			case c == '\\':
				st = escInVal
			case c == '=' && !inValue, c == ',' && inValue, c == 0:
				p.pos--
				return string(b), quoted, true, nil
			case isCSpace(c):
				return string(b), quoted, true, nil
			default:
				b = append(b, c)
			}
		case inQuoted:
			switch c {
			case '\\':
				st = escInQuoted
			case '"':
				return string(b), quoted, true, nil
			case 0:
				return "", false, false, hstoreUnexpectedEnd()
			default:
				b = append(b, c)
			}
		case escInVal, escInQuoted:
			if c == 0 {
				return "", false, false, hstoreUnexpectedEnd()
			}
			b = append(b, c)
			if st == escInVal {
				st = inVal
			} else {
				st = inQuoted
			}
		}
	}
}

// ParseHstore is hstore_in.
func ParseHstore(s string) (Hstore, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	p := &hstoreParser{s: s}
	var pairs []hstoreInput
	const (
		wantKey = iota
		wantEq
		wantGt
		wantVal
		wantDelim
	)
	st := wantKey
	for ; ; p.pos++ {
		c := p.at()
		switch st {
		case wantKey:
			k, _, ok, err := p.word(false)
			if err != nil {
				return nil, err
			}
			if !ok {
				return hstoreUniquePairs(pairs), nil
			}
			if err := hstoreCheckKey(k); err != nil {
				return nil, err
			}
			pairs = append(pairs, hstoreInput{HstorePair: HstorePair{Key: k}, fromInput: true})
			st = wantEq
		case wantEq:
			switch {
			case c == '=':
				st = wantGt
			case c == 0:
				return nil, hstoreUnexpectedEnd()
			case !isCSpace(c):
				return nil, hstoreSyntaxError(s, p.pos)
			}
		case wantGt:
			switch c {
			case '>':
				st = wantVal
			case 0:
				return nil, hstoreUnexpectedEnd()
			default:
				return nil, hstoreSyntaxError(s, p.pos)
			}
		case wantVal:
			v, quoted, ok, err := p.word(true)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, hstoreUnexpectedEnd()
			}
			if err := hstoreCheckValue(v); err != nil {
				return nil, err
			}
			last := &pairs[len(pairs)-1]
			last.Value = v
			last.Null = !quoted && len(v) == 4 && strings.EqualFold(v, "null")
			if last.Null {
				last.Value = ""
			}
			st = wantDelim
		case wantDelim:
			switch {
			case c == ',':
				st = wantKey
			case c == 0:
				return hstoreUniquePairs(pairs), nil
			case !isCSpace(c):
				return nil, hstoreSyntaxError(s, p.pos)
			}
		}
	}
}

// appendHstoreQuoted is hstore_out's cpw between double quotes.
func appendHstoreQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// FormatHstore is hstore_out.
func FormatHstore(h Hstore) string {
	var b []byte
	for i, p := range h {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendHstoreQuoted(b, p.Key)
		b = append(b, "=>"...)
		if p.Null {
			b = append(b, "NULL"...)
		} else {
			b = appendHstoreQuoted(b, p.Value)
		}
	}
	return string(b)
}

// hstoreData is the hstore's string area, its keys and values
// concatenated in order (NULL values add nothing).
func hstoreData(h Hstore) string {
	var b strings.Builder
	for _, p := range h {
		b.WriteString(p.Key)
		b.WriteString(p.Value)
	}
	return b.String()
}

// hstoreEntries are the end positions of the keys and values in the
// string area, and whether each is a NULL value, in entry order.
func hstoreEntries(h Hstore, each func(end int, null bool) bool) {
	end := 0
	for _, p := range h {
		end += len(p.Key)
		if !each(end, false) {
			return
		}
		end += len(p.Value)
		if !each(end, p.Null) {
			return
		}
	}
}

// compareHstore is hstore_cmp.
func compareHstore(a, b Hstore) int {
	if len(a) == 0 || len(b) == 0 {
		return cmp.Compare(len(a), len(b))
	}
	if c := strings.Compare(hstoreData(a), hstoreData(b)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	type entry struct {
		end  int
		null bool
	}
	var ea []entry
	hstoreEntries(a, func(end int, null bool) bool { ea = append(ea, entry{end, null}); return true })
	i, res := 0, 0
	hstoreEntries(b, func(end int, null bool) bool {
		x := ea[i]
		i++
		switch {
		case x.end != end:
			res = cmp.Compare(x.end, end)
		case x.null != null && x.null:
			res = 1
		case x.null != null:
			res = -1
		default:
			return true
		}
		return false
	})
	return res
}

// CompareHstore is hstore_cmp.
func CompareHstore(a, b Hstore) int { return compareHstore(a, b) }

// appendKeyHstore follows compareHstore: empty first, then the string
// area (a prefix sorts first), the count, and each entry's end and NULL
// flag, which decodeKeyHstore reads back into the pairs.
func appendKeyHstore(buf []byte, h Hstore) []byte {
	if len(h) == 0 {
		return append(buf, 0)
	}
	buf = append(buf, 1)
	buf = appendKeyBytes(buf, hstoreData(h))
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(h)))
	hstoreEntries(h, func(end int, null bool) bool {
		buf = binary.BigEndian.AppendUint32(buf, uint32(end))
		flag := byte(0)
		if null {
			flag = 1
		}
		buf = append(buf, flag)
		return true
	})
	return buf
}

func decodeKeyHstore(buf []byte) (any, []byte, error) {
	if len(buf) < 1 {
		return nil, nil, errBadKey
	}
	if buf[0] == 0 {
		return Hstore{}, buf[1:], nil
	}
	data, rest, err := decodeKeyBytes(buf[1:])
	if err != nil {
		return nil, nil, err
	}
	if len(rest) < 4 {
		return nil, nil, errBadKey
	}
	n := int(binary.BigEndian.Uint32(rest))
	rest = rest[4:]
	if len(rest) < n*10 {
		return nil, nil, errBadKey
	}
	h := make(Hstore, n)
	start := 0
	for i := range h {
		kend, vend := int(binary.BigEndian.Uint32(rest)), int(binary.BigEndian.Uint32(rest[5:]))
		if kend < start || vend < kend || vend > len(data) {
			return nil, nil, errBadKey
		}
		h[i] = HstorePair{Key: data[start:kend], Value: data[kend:vend], Null: rest[9] == 1}
		start, rest = vend, rest[10:]
	}
	return h, rest, nil
}

// find is hstoreFindKey: the index of key, -1 when absent.
func (h Hstore) find(key string) int {
	i, ok := slices.BinarySearchFunc(h, key, func(p HstorePair, k string) int { return hstoreKeyCompare(p.Key, k) })
	if !ok {
		return -1
	}
	return i
}

// HstoreFetch is hstore -> text (fetchval): the value, nil when the key
// is absent or its value NULL.
func HstoreFetch(h Hstore, key string) any {
	if i := h.find(key); i >= 0 && !h[i].Null {
		return h[i].Value
	}
	return nil
}

// HstoreExists is exist(hstore, text) and hstore ? text.
func HstoreExists(h Hstore, key string) bool { return h.find(key) >= 0 }

// HstoreDefined is defined(hstore, text).
func HstoreDefined(h Hstore, key string) bool {
	i := h.find(key)
	return i >= 0 && !h[i].Null
}

// hstoreArrayKeys is hstoreArrayToPairs: the non-NULL elements of a text
// array, sorted and unique.
func hstoreArrayKeys(arr any) []string {
	elems, _ := pgarray.Elems(arr)
	in := make([]hstoreInput, 0, len(elems))
	for _, e := range elems {
		if e != nil {
			in = append(in, hstoreInput{HstorePair: HstorePair{Key: e.(string), Null: true}})
		}
	}
	out := hstoreUniquePairs(in)
	keys := make([]string, len(out))
	for i, p := range out {
		keys[i] = p.Key
	}
	return keys
}

// HstoreExistsAny is ?| (exists_any).
func HstoreExistsAny(h Hstore, keys any) bool {
	return slices.ContainsFunc(hstoreArrayKeys(keys), func(k string) bool { return h.find(k) >= 0 })
}

// HstoreExistsAll is ?& (exists_all).
func HstoreExistsAll(h Hstore, keys any) bool {
	for _, k := range hstoreArrayKeys(keys) {
		if h.find(k) < 0 {
			return false
		}
	}
	return true
}

// HstoreDelete is delete(hstore, text) and hstore - text.
func HstoreDelete(h Hstore, key string) Hstore {
	return slices.DeleteFunc(slices.Clone(h), func(p HstorePair) bool { return p.Key == key })
}

// HstoreDeleteKeys is delete(hstore, text[]) and hstore - text[].
func HstoreDeleteKeys(h Hstore, keys any) Hstore {
	drop := hstoreArrayKeys(keys)
	return slices.DeleteFunc(slices.Clone(h), func(p HstorePair) bool { return slices.Contains(drop, p.Key) })
}

// HstoreDeletePairs is delete(hstore, hstore) and hstore - hstore: the
// pairs of h that d does not hold with the same value.
func HstoreDeletePairs(h, d Hstore) Hstore {
	return slices.DeleteFunc(slices.Clone(h), func(p HstorePair) bool {
		i := d.find(p.Key)
		return i >= 0 && d[i].Null == p.Null && d[i].Value == p.Value
	})
}

// HstoreConcat is hstore || hstore: b's pairs win.
func HstoreConcat(a, b Hstore) Hstore {
	out := make(Hstore, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var c int
		switch {
		case i >= len(a):
			c = 1
		case j >= len(b):
			c = -1
		default:
			c = hstoreKeyCompare(a[i].Key, b[j].Key)
		}
		if c >= 0 {
			out = append(out, b[j])
			j++
			if c == 0 {
				i++
			}
		} else {
			out = append(out, a[i])
			i++
		}
	}
	return out
}

// HstoreContains is hstore @> hstore.
func HstoreContains(h, tmpl Hstore) bool {
	for _, p := range tmpl {
		i := h.find(p.Key)
		if i < 0 || h[i].Null != p.Null || h[i].Value != p.Value {
			return false
		}
	}
	return true
}

// HstoreSliceArray is hstore -> text[] (slice_array): each key's value,
// NULL for an absent key, in the keys' shape.
func HstoreSliceArray(h Hstore, keys any) any {
	dims, lower, elems, _ := pgarray.Shape(keys)
	out := make([]any, len(elems))
	for i, e := range elems {
		if e != nil {
			out[i] = HstoreFetch(h, e.(string))
		}
	}
	return pgarray.Make(dims, lower, out)
}

// HstoreSlice is slice(hstore, text[]).
func HstoreSlice(h Hstore, keys any) Hstore {
	out := Hstore{}
	for _, k := range hstoreArrayKeys(keys) {
		if i := h.find(k); i >= 0 {
			out = append(out, h[i])
		}
	}
	return out
}

// HstoreKeys is akeys.
func HstoreKeys(h Hstore) []any {
	out := make([]any, len(h))
	for i, p := range h {
		out[i] = p.Key
	}
	return out
}

// HstoreValues is avals: NULL for NULL values.
func HstoreValues(h Hstore) []any {
	out := make([]any, len(h))
	for i, p := range h {
		if !p.Null {
			out[i] = p.Value
		}
	}
	return out
}

// HstoreToArray is hstore_to_array and %%: keys and values alternating.
func HstoreToArray(h Hstore) []any {
	out := make([]any, 0, 2*len(h))
	for _, p := range h {
		var v any
		if !p.Null {
			v = p.Value
		}
		out = append(out, p.Key, v)
	}
	return out
}

// HstoreToMatrix is hstore_to_matrix and %#: one {key,value} row a pair.
func HstoreToMatrix(h Hstore) any {
	return pgarray.Make([]int{len(h), 2}, []int{1, 1}, HstoreToArray(h))
}

// hstoreArrayError is the 2202E of the array constructors.
func hstoreArrayError(msg string) error { return pgerror.New(pgerror.ArraySubscriptError, msg) }

func hstoreNullKey() error {
	return pgerror.New(pgerror.NullValueNotAllowed, "null value not allowed for hstore key")
}

// HstoreFromText is hstore(text, text) and tconvert: value nil is NULL.
func HstoreFromText(key string, value any) (Hstore, error) {
	if err := hstoreCheckKey(key); err != nil {
		return nil, err
	}
	if value == nil {
		return Hstore{{Key: key, Null: true}}, nil
	}
	if err := hstoreCheckValue(value.(string)); err != nil {
		return nil, err
	}
	return Hstore{{Key: key, Value: value.(string)}}, nil
}

// HstoreFromArray is hstore(text[]) and the cast text[] -> hstore: a
// one-dimensional array of keys and values alternating, or a
// two-dimensional one of {key,value} rows.
func HstoreFromArray(arr any) (Hstore, error) {
	dims, _, elems, _ := pgarray.Shape(arr)
	switch len(dims) {
	case 0:
		return Hstore{}, nil
	case 1:
		if dims[0]%2 != 0 {
			return nil, hstoreArrayError("array must have even number of elements")
		}
	case 2:
		if dims[1] != 2 {
			return nil, hstoreArrayError("array must have two columns")
		}
	default:
		return nil, hstoreArrayError("wrong number of array subscripts")
	}
	in := make([]hstoreInput, 0, len(elems)/2)
	for i := 0; i+1 < len(elems); i += 2 {
		if elems[i] == nil {
			return nil, hstoreNullKey()
		}
		p, err := HstoreFromText(elems[i].(string), elems[i+1])
		if err != nil {
			return nil, err
		}
		in = append(in, hstoreInput{HstorePair: p[0]})
	}
	return hstoreUniquePairs(in), nil
}

// HstoreFromArrays is hstore(text[], text[]): values nil makes every
// value NULL.
func HstoreFromArrays(keys, values any) (Hstore, error) {
	kd, kl, ke, _ := pgarray.Shape(keys)
	if len(kd) > 1 {
		return nil, hstoreArrayError("wrong number of array subscripts")
	}
	var ve []any
	if values != nil {
		vd, vl, elems, _ := pgarray.Shape(values)
		if len(vd) > 1 {
			return nil, hstoreArrayError("wrong number of array subscripts")
		}
		if (len(kd) > 0 || len(vd) > 0) && (len(kd) != len(vd) || kd[0] != vd[0] || kl[0] != vl[0]) {
			return nil, hstoreArrayError("arrays must have same bounds")
		}
		ve = elems
	}
	in := make([]hstoreInput, 0, len(ke))
	for i, k := range ke {
		if k == nil {
			return nil, hstoreNullKey()
		}
		var v any
		if ve != nil {
			v = ve[i]
		}
		p, err := HstoreFromText(k.(string), v)
		if err != nil {
			return nil, err
		}
		in = append(in, hstoreInput{HstorePair: p[0]})
	}
	return hstoreUniquePairs(in), nil
}

// hstoreJSONNumber is what IsValidJsonNumber accepts.
var hstoreJSONNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// HstoreToJSON is hstore_to_json (loose false) and hstore_to_json_loose,
// which writes "t" and "f" as booleans and what JSON reads as a number as
// one.
func HstoreToJSON(h Hstore, loose bool) string {
	if len(h) == 0 {
		return "{}"
	}
	b := []byte{'{'}
	for i, p := range h {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendJSONString(b, p.Key)
		b = append(b, ": "...)
		switch {
		case p.Null:
			b = append(b, "null"...)
		case loose && p.Value == "t":
			b = append(b, "true"...)
		case loose && p.Value == "f":
			b = append(b, "false"...)
		case loose && hstoreJSONNumber.MatchString(p.Value):
			b = append(b, p.Value...)
		default:
			b = appendJSONString(b, p.Value)
		}
	}
	return string(append(b, '}'))
}

// HstoreToJSONB is hstore_to_jsonb and hstore_to_jsonb_loose: the json
// object read as jsonb.
func HstoreToJSONB(h Hstore, loose bool) (string, error) {
	v, err := parseJSONB(HstoreToJSON(h, loose))
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// table returns hstore's operators and casts, built the first time they
// are needed.
func (h *hstoreType) table() *funcTable {
	h.once.Do(func() {
		ft := newFuncTable()
		ht := Type{h.oid, -1}
		textArray := Type{arrayTypes[OidText], -1}
		hs := func(v any) Hstore { return v.(Hstore) }
		for op, test := range map[string]func(int) bool{
			"=": func(c int) bool { return c == 0 }, "<>": func(c int) bool { return c != 0 },
			"#<#": func(c int) bool { return c < 0 }, "#<=#": func(c int) bool { return c <= 0 },
			"#>#": func(c int) bool { return c > 0 }, "#>=#": func(c int) bool { return c >= 0 },
		} {
			ft.addBinary(op, ht, ht, Bool, func(_ *Env, a, b any) (any, error) {
				return test(compareHstore(hs(a), hs(b))), nil
			})
		}
		ft.addBinary("->", ht, Text, Text, func(_ *Env, a, b any) (any, error) { return HstoreFetch(hs(a), b.(string)), nil })
		ft.addBinary("->", ht, textArray, textArray, func(_ *Env, a, b any) (any, error) { return HstoreSliceArray(hs(a), b), nil })
		ft.addBinary("?", ht, Text, Bool, func(_ *Env, a, b any) (any, error) { return HstoreExists(hs(a), b.(string)), nil })
		ft.addBinary("?|", ht, textArray, Bool, func(_ *Env, a, b any) (any, error) { return HstoreExistsAny(hs(a), b), nil })
		ft.addBinary("?&", ht, textArray, Bool, func(_ *Env, a, b any) (any, error) { return HstoreExistsAll(hs(a), b), nil })
		ft.addBinary("@>", ht, ht, Bool, func(_ *Env, a, b any) (any, error) { return HstoreContains(hs(a), hs(b)), nil })
		ft.addBinary("<@", ht, ht, Bool, func(_ *Env, a, b any) (any, error) { return HstoreContains(hs(b), hs(a)), nil })
		ft.addBinary("||", ht, ht, ht, func(_ *Env, a, b any) (any, error) { return HstoreConcat(hs(a), hs(b)), nil })
		ft.addBinary("-", ht, Text, ht, func(_ *Env, a, b any) (any, error) { return HstoreDelete(hs(a), b.(string)), nil })
		ft.addBinary("-", ht, textArray, ht, func(_ *Env, a, b any) (any, error) { return HstoreDeleteKeys(hs(a), b), nil })
		ft.addBinary("-", ht, ht, ht, func(_ *Env, a, b any) (any, error) { return HstoreDeletePairs(hs(a), hs(b)), nil })
		ft.addCast(h.oid, OidJSON, CastExplicit, func(_ *Env, v any) (any, error) { return HstoreToJSON(hs(v), false), nil })
		ft.addCast(h.oid, OidJSONB, CastExplicit, func(_ *Env, v any) (any, error) { return HstoreToJSONB(hs(v), false) })
		ft.addCast(arrayTypes[OidText], h.oid, CastExplicit, func(_ *Env, v any) (any, error) { return HstoreFromArray(v) })
		h.funcs = ft
	})
	return h.funcs
}

// hstoreTables are the tables of the hstore types among ts.
func hstoreTables(ts []Type) []*funcTable {
	var out []*funcTable
	for _, t := range ts {
		if h, ok := hstoreOf(t.Oid); ok && t.Oid == h.oid && !slices.Contains(out, h.table()) {
			out = append(out, h.table())
		}
	}
	return out
}

// hstoreCast is a cast to or from hstore, or nil.
func hstoreCast(from, to Oid) (castEntry, bool) {
	h, ok := hstoreOf(from)
	if !ok || from != h.oid {
		if h, ok = hstoreOf(to); !ok || to != h.oid {
			return castEntry{}, false
		}
	}
	e, ok := h.table().casts[castKey{from, to}]
	return e, ok
}

// hstoreUnary are the prefix operators %% (hstore_to_array) and %#
// (hstore_to_matrix) over t when it is hstore.
func hstoreUnary(op string, t Type) []unaryOperator {
	if !t.IsHstore() || op != "%%" && op != "%#" {
		return nil
	}
	textArray := Type{arrayTypes[OidText], -1}
	eval := func(_ *Env, v any) (any, error) { return HstoreToArray(v.(Hstore)), nil }
	if op == "%#" {
		eval = func(_ *Env, v any) (any, error) { return HstoreToMatrix(v.(Hstore)), nil }
	}
	return []unaryOperator{{candidate: candidate{args: []Type{t}, result: textArray}, eval: eval}}
}

// hstorePopulateOp refuses anyelement #= hstore (populate_record's
// operator), as sqlexec refuses the function: it needs the record type of
// its left operand.
func hstorePopulateOp(op string, r Type) error {
	if op == "#=" && r.IsHstore() {
		return pgerror.Unsupported("the hstore operator #= (populate_record)")
	}
	return nil
}

// HstoreFromPairs is hstore_recv's making of an hstore from the pairs it
// read: lengths checked, sorted, the first of equal keys kept as
// hstore_in keeps it.
func HstoreFromPairs(pairs []HstorePair) (Hstore, error) {
	in := make([]hstoreInput, len(pairs))
	for i, p := range pairs {
		if err := hstoreCheckKey(p.Key); err != nil {
			return nil, err
		}
		if err := hstoreCheckValue(p.Value); err != nil {
			return nil, err
		}
		in[i] = hstoreInput{HstorePair: p, fromInput: true}
	}
	return hstoreUniquePairs(in), nil
}

// HstoreLookup is key's value in h (nil for a NULL value) and whether h
// has the key.
func HstoreLookup(h Hstore, key string) (any, bool) {
	i := h.find(key)
	if i < 0 {
		return nil, false
	}
	return HstoreFetch(h, key), true
}

// HstoreImage is the hstore as PostgreSQL stores it, without the varlena
// header (what hstore_hash hashes): the count with HS_FLAG_NEWVERSION,
// each key's and value's end in the string area (HENTRY_ISFIRST on the
// first, HENTRY_ISNULL on a NULL value), little-endian, then the area.
func HstoreImage(h Hstore) []byte {
	buf := binary.LittleEndian.AppendUint32(nil, uint32(len(h))|0x80000000)
	first := uint32(0x80000000)
	hstoreEntries(h, func(end int, null bool) bool {
		e := uint32(end) | first
		if null {
			e |= 0x40000000
		}
		first = 0
		buf = binary.LittleEndian.AppendUint32(buf, e)
		return true
	})
	return append(buf, hstoreData(h)...)
}

// IsHstoreOperator reports whether op over (l, r) is one of hstore's
// operators (not a built-in one that takes an hstore).
func IsHstoreOperator(op string, l, r Type) bool {
	for _, t := range []Type{l, r} {
		if h, ok := hstoreOf(t.Oid); ok && t.Oid == h.oid {
			for _, o := range h.table().binaryOperators[op] {
				if o.args[0].Oid == l.Oid && o.args[1].Oid == r.Oid {
					return true
				}
			}
		}
	}
	return false
}
