package sqlexec

import (
	"encoding/base64"
	"strings"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// OpenPGP's ASCII armor (RFC 4880 section 6) as pgcrypto writes it:
// armor() makes it, with optional headers.

const (
	armorHeader = "-----BEGIN PGP MESSAGE-----\n"
	armorFooter = "\n-----END PGP MESSAGE-----\n"
)

// pgArmor is armor(data[, keys, values]).
func pgArmor(_ *execCtx, a []any) (any, error) {
	var keys, values []string
	if len(a) == 3 {
		var err error
		if keys, values, err = armorHeaders(a[1], a[2]); err != nil {
			return nil, err
		}
	}
	data := a[0].([]byte)
	var b strings.Builder
	b.WriteString(armorHeader)
	for i := range keys {
		b.WriteString(keys[i] + ": " + values[i] + "\n")
	}
	b.WriteByte('\n')
	encoded := base64.StdEncoding.EncodeToString(data)
	for len(encoded) > 0 {
		n := min(len(encoded), 76)
		b.WriteString(encoded[:n] + "\n")
		encoded = encoded[n:]
	}
	crc := crc24(data)
	b.WriteByte('=')
	b.WriteString(base64.StdEncoding.EncodeToString([]byte{byte(crc >> 16), byte(crc >> 8), byte(crc)}))
	b.WriteString(armorFooter)
	return b.String(), nil
}

// armorHeaders checks armor()'s header keys and values as pgcrypto does:
// one-dimensional arrays of one length, without NULLs, non-ASCII
// characters or newlines, and keys without ": ".
func armorHeaders(keyArray, valueArray any) ([]string, []string, error) {
	keyElems, keyDims := arrayShape(keyArray)
	valueElems, valueDims := arrayShape(valueArray)
	if keyDims > 1 || keyDims != valueDims {
		return nil, nil, pgerror.New(pgerror.ArraySubscriptError, "wrong number of array subscripts")
	}
	if len(keyElems) != len(valueElems) {
		return nil, nil, pgerror.New(pgerror.ArraySubscriptError, "mismatched array dimensions")
	}
	isASCII := func(s string) bool { return !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }) }
	keys, values := make([]string, len(keyElems)), make([]string, len(keyElems))
	for i := range keyElems {
		k, ok := keyElems[i].(string)
		switch {
		case !ok:
			return nil, nil, pgerror.New(pgerror.NullValueNotAllowed, "null value not allowed for header key")
		case !isASCII(k):
			return nil, nil, pgerror.New(pgerror.InvalidParameterValue, "header key must not contain non-ASCII characters")
		case strings.Contains(k, ": "):
			return nil, nil, pgerror.New(pgerror.InvalidParameterValue, "header key must not contain \": \"")
		case strings.Contains(k, "\n"):
			return nil, nil, pgerror.New(pgerror.InvalidParameterValue, "header key must not contain newlines")
		}
		v, ok := valueElems[i].(string)
		switch {
		case !ok:
			return nil, nil, pgerror.New(pgerror.NullValueNotAllowed, "null value not allowed for header value")
		case !isASCII(v):
			return nil, nil, pgerror.New(pgerror.InvalidParameterValue, "header value must not contain non-ASCII characters")
		case strings.Contains(v, "\n"):
			return nil, nil, pgerror.New(pgerror.InvalidParameterValue, "header value must not contain newlines")
		}
		keys[i], values[i] = k, v
	}
	return keys, values, nil
}

// arrayShape is an array datum's elements and number of dimensions (0
// for an empty array).
func arrayShape(v any) ([]any, int) {
	if a, ok := v.(*pgarray.Array); ok {
		return a.Elems, len(a.Dims)
	}
	elems := v.([]any)
	if len(elems) == 0 {
		return nil, 0
	}
	return elems, 1
}

// crc24 is OpenPGP's CRC-24 of data (RFC 4880 section 6.1).
func crc24(data []byte) uint32 {
	crc := uint32(0xb704ce)
	for _, c := range data {
		crc ^= uint32(c) << 16
		for range 8 {
			crc <<= 1
			if crc&0x1000000 != 0 {
				crc ^= 0x1864cfb
			}
		}
	}
	return crc & 0xffffff
}
