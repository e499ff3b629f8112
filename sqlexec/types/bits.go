package types

import (
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The bit string types bit(n) and bit varying(n), as PostgreSQL's varbit.c
// defines them: text input in binary ('0101', 'b0101') or hexadecimal
// ('x1F'), output in binary, the length rules of their typmods, bitcmp's
// order and the order-preserving key.

// The OIDs of the bit string types.
const (
	OidBit    Oid = 1560
	OidVarbit Oid = 1562
)

// CategoryBitString is the category of bit and bit varying (varbit is the
// preferred one).
const CategoryBitString Category = 'V'

// maxBitLength is the largest n of bit(n) and bit varying(n): MaxAttrSize in
// bits.
const maxBitLength = 83886080

// BitAny is bit without a length (a bit string constant's type); VarbitAny
// is bit varying without a limit.
var (
	BitAny    = Type{OidBit, -1}
	VarbitAny = Type{OidVarbit, -1}
)

// Bit returns bit(n).
func Bit(n int) Type { return Type{OidBit, int32(n)} }

// Varbit returns bit varying(n).
func Varbit(n int) Type { return Type{OidVarbit, int32(n)} }

// BitString is a bit(n) or bit varying(n) datum: Len bits, the first one in
// the high bit of Data's first byte. Data holds (Len+7)/8 bytes whose bits
// past Len are zero, so == compares values, as biteq does.
type BitString struct {
	Len  int
	Data string
}

// bitBytes is the number of bytes that hold n bits.
func bitBytes(n int) int { return (n + 7) / 8 }

// bitOf returns bit i (0 is the first).
func (b BitString) bitOf(i int) bool { return b.Data[i/8]&(0x80>>(i%8)) != 0 }

// bitStringBuilder accumulates the bits of a BitString.
type bitStringBuilder struct {
	n    int
	data []byte
}

func newBitStringBuilder(capacity int) *bitStringBuilder {
	return &bitStringBuilder{data: make([]byte, 0, bitBytes(capacity))}
}

func (w *bitStringBuilder) add(bit bool) {
	if w.n%8 == 0 {
		w.data = append(w.data, 0)
	}
	if bit {
		w.data[w.n/8] |= 0x80 >> (w.n % 8)
	}
	w.n++
}

// addBits appends bits [from, to) of b.
func (w *bitStringBuilder) addBits(b BitString, from, to int) {
	if w.n%8 == 0 && from%8 == 0 {
		// Whole bytes, then the last partial byte as it is (its bits
		// past b.Len are zero).
		end := bitBytes(to)
		w.data = append(w.data, b.Data[from/8:end]...)
		w.n += to - from
		if r := w.n % 8; r != 0 {
			w.data[len(w.data)-1] &= byte(0xff << (8 - r))
		}
		return
	}
	for i := from; i < to; i++ {
		w.add(b.bitOf(i))
	}
}

func (w *bitStringBuilder) result() BitString { return BitString{Len: w.n, Data: string(w.data)} }

// zeroBits returns n zero bits.
func zeroBits(n int) BitString { return BitString{Len: n, Data: strings.Repeat("\x00", bitBytes(n))} }

// parseBitString is bit_in and varbit_in without a typmod: a leading b or B
// reads the rest as binary digits, a leading x or X as hexadecimal digits
// (four bits each), anything else as binary digits.
func parseBitString(s string) (BitString, error) {
	hex := false
	switch {
	case s != "" && (s[0] == 'b' || s[0] == 'B'):
		s = s[1:]
	case s != "" && (s[0] == 'x' || s[0] == 'X'):
		s, hex = s[1:], true
	}
	if hex {
		w := newBitStringBuilder(4 * len(s))
		for i := 0; i < len(s); i++ {
			d, ok := unhex(s[i])
			if !ok {
				return BitString{}, badBitDigit(s[i:], "hexadecimal")
			}
			for k := 3; k >= 0; k-- {
				w.add(d>>k&1 == 1)
			}
		}
		return w.result(), nil
	}
	w := newBitStringBuilder(len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '0', '1':
			w.add(s[i] == '1')
		default:
			return BitString{}, badBitDigit(s[i:], "binary")
		}
	}
	return w.result(), nil
}

// badBitDigit is bit_in's error for the character s starts with (the whole
// character, as pg_mblen measures it).
func badBitDigit(s, kind string) error {
	_, size := utf8.DecodeRuneInString(s)
	return pgerror.Newf(pgerror.InvalidTextRepresentation, "\"%s\" is not a valid %s digit", s[:size], kind)
}

// parseBitText is the input function of t: the value read, then held to
// t's length as bit_in and varbit_in do with a typmod.
func parseBitText(t Type, s string) (any, error) {
	b, err := parseBitString(s)
	if err != nil {
		return nil, err
	}
	return coerceBitLength(t, b, false)
}

// FormatBitString is bit_out and varbit_out: one digit a bit.
func FormatBitString(b BitString) string {
	var sb strings.Builder
	sb.Grow(b.Len)
	for i := 0; i < b.Len; i++ {
		if b.bitOf(i) {
			sb.WriteByte('1')
		} else {
			sb.WriteByte('0')
		}
	}
	return sb.String()
}

// coerceBitLength is the length coercion of bit(n) (bit()) and bit varying(n)
// (varbit()): explicit casts pad with zeros or truncate on the right where
// other contexts fail.
func coerceBitLength(t Type, b BitString, explicit bool) (BitString, error) {
	n := int(t.Typmod)
	switch {
	case n <= 0:
		return b, nil
	case t.Oid == OidBit && b.Len != n:
		if !explicit {
			return BitString{}, pgerror.Newf(pgerror.StringDataLengthMismatch, "bit string length %d does not match type bit(%d)", b.Len, n)
		}
		w := newBitStringBuilder(n)
		w.addBits(b, 0, min(n, b.Len))
		for w.n < n {
			w.add(false)
		}
		return w.result(), nil
	case t.Oid == OidVarbit && b.Len > n:
		if !explicit {
			return BitString{}, pgerror.Newf(pgerror.StringDataRightTruncation, "bit string too long for type bit varying(%d)", n)
		}
		w := newBitStringBuilder(n)
		w.addBits(b, 0, n)
		return w.result(), nil
	}
	return b, nil
}

// bitTypmod is bittypmodin and varbittypmodin.
func bitTypmod(t Type, mods []int32) (Type, error) {
	name := typeInfoOf(t.Oid).name
	if len(mods) != 1 {
		return Type{}, pgerror.New(pgerror.InvalidParameterValue, "invalid type modifier")
	}
	switch n := mods[0]; {
	case n < 1:
		return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "length for type %s must be at least 1", name)
	case n > maxBitLength:
		return Type{}, pgerror.Newf(pgerror.InvalidParameterValue, "length for type %s cannot exceed %d", name, maxBitLength)
	default:
		return Type{t.Oid, n}, nil
	}
}

// formatBitType is format_type's name of bit(n) and bit varying(n).
func formatBitType(t Type) string {
	name := "bit"
	if t.Oid == OidVarbit {
		name = "bit varying"
	}
	if t.Typmod > 0 {
		return name + "(" + strconv.Itoa(int(t.Typmod)) + ")"
	}
	return name
}

// compareBitStrings is the order of bitcmp: the bytes, then the lengths.
func compareBitStrings(a, b BitString) int {
	return cmp3(bitcmp(a, b), 0)
}

// bitcmp is bitcmp() as PostgreSQL computes it: memcmp of the bytes both
// have, which on the platforms PostgreSQL 15 is built for answers the
// difference of the first bytes that differ, then -1 or 1 for the lengths.
func bitcmp(a, b BitString) int {
	n := min(len(a.Data), len(b.Data))
	for i := 0; i < n; i++ {
		if a.Data[i] != b.Data[i] {
			return int(a.Data[i]) - int(b.Data[i])
		}
	}
	return cmp3(int64(a.Len), int64(b.Len))
}

// appendKeyBitString orders as bitcmp does: the bytes as a string key (a
// prefix sorts first), then the length.
func appendKeyBitString(buf []byte, b BitString) []byte {
	buf = appendKeyBytes(buf, b.Data)
	return binary.BigEndian.AppendUint32(buf, uint32(b.Len))
}

func decodeKeyBitString(buf []byte) (any, []byte, error) {
	data, rest, err := decodeKeyBytes(buf)
	if err != nil || len(rest) < 4 {
		return nil, nil, errBadKey
	}
	n := int(binary.BigEndian.Uint32(rest))
	if bitBytes(n) != len(data) {
		return nil, nil, errBadKey
	}
	return BitString{Len: n, Data: data}, rest[4:], nil
}

// BitStringFromBytes is bit_recv's value: n bits from data, which must hold
// exactly the bytes they take; the bits past n are cleared, as VARBIT_PAD
// does. ok is false when the sizes disagree or n is negative.
func BitStringFromBytes(n int, data []byte) (BitString, bool) {
	if n < 0 || bitBytes(n) != len(data) {
		return BitString{}, false
	}
	d := []byte(string(data))
	if r := n % 8; r != 0 {
		d[len(d)-1] &= byte(0xff << (8 - r))
	}
	return BitString{Len: n, Data: string(d)}, true
}
