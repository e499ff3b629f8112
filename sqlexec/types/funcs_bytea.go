package types

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The bytea functions of strings.sql: SHA-2 digests, trimming, substrings
// and byte and bit access.
func init() {
	b, i4, i8 := Bytea, Int4, Int8
	for name, sum := range map[string]func([]byte) []byte{
		"sha224": func(p []byte) []byte { s := sha256.Sum224(p); return s[:] },
		"sha256": func(p []byte) []byte { s := sha256.Sum256(p); return s[:] },
		"sha384": func(p []byte) []byte { s := sha512.Sum384(p); return s[:] },
		"sha512": func(p []byte) []byte { s := sha512.Sum512(p); return s[:] },
	} {
		addFunc(name, Immutable, b, func(_ *Env, a []any) (any, error) { return sum(a[0].([]byte)), nil }, b)
	}
	for name, mode := range map[string]int{"btrim": 0, "ltrim": -1, "rtrim": 1} {
		addFunc(name, Immutable, b, func(_ *Env, a []any) (any, error) { return trimBytes(a[0].([]byte), a[1].([]byte), mode), nil }, b, b)
	}
	addFunc("overlay", Immutable, b, func(_ *Env, a []any) (any, error) {
		return overlayBytes(a[0].([]byte), a[1].([]byte), a[2].(int64), a[3].(int64))
	}, b, b, i4, i4)
	addFunc("overlay", Immutable, b, func(_ *Env, a []any) (any, error) {
		return overlayBytes(a[0].([]byte), a[1].([]byte), a[2].(int64), int64(len(a[1].([]byte))))
	}, b, b, i4)
	for _, name := range []string{"substr", "substring"} {
		addFunc(name, Immutable, b, func(_ *Env, a []any) (any, error) {
			return substringBytes(a[0].([]byte), a[1].(int64), 0, false)
		}, b, i4)
		addFunc(name, Immutable, b, func(_ *Env, a []any) (any, error) {
			return substringBytes(a[0].([]byte), a[1].(int64), a[2].(int64), true)
		}, b, i4, i4)
	}
	addFunc("get_byte", Immutable, i4, func(_ *Env, a []any) (any, error) {
		p, n := a[0].([]byte), a[1].(int64)
		if n < 0 || n >= int64(len(p)) {
			return nil, byteIndexError(n, int64(len(p)))
		}
		return int64(p[n]), nil
	}, b, i4)
	addFunc("set_byte", Immutable, b, func(_ *Env, a []any) (any, error) {
		p, n := a[0].([]byte), a[1].(int64)
		if n < 0 || n >= int64(len(p)) {
			return nil, byteIndexError(n, int64(len(p)))
		}
		out := bytes.Clone(p)
		out[n] = byte(a[2].(int64))
		return out, nil
	}, b, i4, i4)
	addFunc("get_bit", Immutable, i4, func(_ *Env, a []any) (any, error) {
		p, n := a[0].([]byte), a[1].(int64)
		if n < 0 || n >= int64(len(p))*8 {
			return nil, byteIndexError(n, int64(len(p))*8)
		}
		return int64(p[n/8]>>(n%8)) & 1, nil
	}, b, i8)
	addFunc("set_bit", Immutable, b, func(_ *Env, a []any) (any, error) {
		p, n, bit := a[0].([]byte), a[1].(int64), a[2].(int64)
		if n < 0 || n >= int64(len(p))*8 {
			return nil, byteIndexError(n, int64(len(p))*8)
		}
		if bit != 0 && bit != 1 {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "new bit must be 0 or 1")
		}
		out := bytes.Clone(p)
		out[n/8] = out[n/8]&^(1<<(n%8)) | byte(bit)<<(n%8)
		return out, nil
	}, b, i8, i4)
}

// byteIndexError is the 2202E of get_byte, set_byte, get_bit and set_bit.
func byteIndexError(n, size int64) error {
	return pgerror.Newf(pgerror.ArraySubscriptError, "index %d out of valid range, 0..%d", n, size-1)
}

// trimBytes is byteatrim, bytealtrim and byteartrim: the bytes of set
// removed from both ends (mode 0), the start (-1) or the end (1).
func trimBytes(p, set []byte, mode int) []byte {
	if mode <= 0 {
		for len(p) > 0 && bytes.IndexByte(set, p[0]) >= 0 {
			p = p[1:]
		}
	}
	if mode >= 0 {
		for len(p) > 0 && bytes.IndexByte(set, p[len(p)-1]) >= 0 {
			p = p[:len(p)-1]
		}
	}
	return bytes.Clone(p)
}

// substringBytes is bytea_substr: count bytes from the 1-based start, the
// part before the first byte counting against count.
// overlayBytes is byteaoverlay: p with count bytes from start replaced by
// r.
func overlayBytes(p, r []byte, start, count int64) (any, error) {
	if start <= 0 {
		return nil, pgerror.New(pgerror.SubstringError, "negative substring length not allowed")
	}
	end := start + count
	if end != int64(int32(end)) {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
	}
	head, err := substringBytes(p, 1, start-1, true)
	if err != nil {
		return nil, err
	}
	tail, _ := substringBytes(p, end, 0, false)
	out := append(append(slices.Clip(head.([]byte)), r...), tail.([]byte)...)
	return out, nil
}

func substringBytes(p []byte, start, count int64, hasCount bool) (any, error) {
	if hasCount && count < 0 {
		return nil, pgerror.New(pgerror.SubstringError, "negative substring length not allowed")
	}
	from, to := max(start-1, 0), int64(len(p))
	if hasCount && start+count-1 < to {
		to = max(start+count-1, 0)
	}
	if from >= to {
		return []byte{}, nil
	}
	return bytes.Clone(p[from:to]), nil
}
