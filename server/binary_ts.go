package server

import (
	"encoding/binary"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// tsvector and tsquery in binary, as tsvectorsend / tsvectorrecv and
// tsquerysend / tsqueryrecv write and read them.

func isTextSearch(oid uint32) bool {
	return oid == uint32(types.OidTSVector) || oid == uint32(types.OidTSQuery)
}

// appendTSVector is tsvectorsend: the count, then each lexeme
// NUL-terminated with its positions.
func appendTSVector(buf []byte, v types.TSVector) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(v)))
	for _, e := range v {
		buf = append(append(buf, e.Word...), 0)
		buf = binary.BigEndian.AppendUint16(buf, uint16(len(e.Pos)))
		for _, p := range e.Pos {
			buf = binary.BigEndian.AppendUint16(buf, p)
		}
	}
	return buf
}

// appendTSQuery is tsquerysend: the count, then the items in polish order.
func appendTSQuery(buf []byte, q types.TSQuery) []byte {
	items := q.Items()
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(items)))
	for _, it := range items {
		if it.Operator == 0 {
			buf = append(buf, 1, it.Weight, 0)
			if it.Prefix {
				buf[len(buf)-1] = 1
			}
			buf = append(append(buf, it.Operand...), 0)
			continue
		}
		buf = append(buf, 2, it.Operator)
		if it.Operator == 4 {
			buf = binary.BigEndian.AppendUint16(buf, uint16(it.Distance))
		}
	}
	return buf
}

// tsReader reads a binary tsvector or tsquery.
type tsReader struct {
	src []byte
	bad bool
}

func (r *tsReader) take(n int) []byte {
	if r.bad || len(r.src) < n {
		r.bad = true
		return make([]byte, n)
	}
	b := r.src[:n]
	r.src = r.src[n:]
	return b
}

func (r *tsReader) uint32() uint32 { return binary.BigEndian.Uint32(r.take(4)) }
func (r *tsReader) uint16() uint16 { return binary.BigEndian.Uint16(r.take(2)) }
func (r *tsReader) byte() byte     { return r.take(1)[0] }

// cstring is pq_getmsgstring: a NUL-terminated string, which must be
// valid UTF-8.
func (r *tsReader) cstring() string {
	i := slices.Index(r.src, 0)
	if r.bad || i < 0 || !utf8.Valid(r.src[:i]) {
		r.bad = true
		return ""
	}
	s := string(r.src[:i])
	r.src = r.src[i+1:]
	return s
}

func badTextSearch(oid uint32) error {
	return pgerror.Newf(pgerror.InvalidBinaryRepresentation, "invalid external \"%s\" value", types.Type{Oid: types.Oid(oid), Typmod: -1})
}

// decodeTSVector is tsvectorrecv. Lexemes arriving out of order are
// sorted; a repeated one, which PostgreSQL keeps twice, is refused.
func decodeTSVector(src []byte) (any, error) {
	r := &tsReader{src: src}
	n := r.uint32()
	if r.bad || int64(n) > int64(len(src)) {
		return nil, pgerror.New(pgerror.InternalError, "invalid size of tsvector")
	}
	v := make(types.TSVector, 0, n)
	for range n {
		w := r.cstring()
		np := int(r.uint16())
		if r.bad {
			return nil, badTextSearch(uint32(types.OidTSVector))
		}
		if len(w) > 2048 { // MAXSTRLEN
			return nil, pgerror.New(pgerror.InternalError, "invalid tsvector: lexeme too long")
		}
		if np > 256 {
			return nil, pgerror.New(pgerror.InternalError, "unexpected number of tsvector positions")
		}
		e := types.TSLexeme{Word: w}
		for j := range np {
			p := r.uint16()
			if j > 0 && p&0x3fff <= e.Pos[j-1]&0x3fff {
				return nil, pgerror.New(pgerror.InternalError, "position information is misordered")
			}
			e.Pos = append(e.Pos, p)
		}
		if r.bad {
			return nil, badTextSearch(uint32(types.OidTSVector))
		}
		v = append(v, e)
	}
	if len(r.src) > 0 {
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "incorrect binary data format")
	}
	slices.SortStableFunc(v, func(a, b types.TSLexeme) int { return strings.Compare(a.Word, b.Word) })
	for i := 1; i < len(v); i++ {
		if v[i].Word == v[i-1].Word {
			return nil, pgerror.Unsupported("a binary tsvector with a repeated lexeme")
		}
	}
	return v, nil
}

// decodeTSQuery is tsqueryrecv.
func decodeTSQuery(src []byte) (any, error) {
	r := &tsReader{src: src}
	n := r.uint32()
	if r.bad || int64(n) > int64(len(src)) {
		return nil, pgerror.New(pgerror.InternalError, "invalid size of tsquery")
	}
	items := make([]types.TSQueryItem, 0, n)
	for range n {
		var it types.TSQueryItem
		switch r.byte() {
		case 1:
			it.Weight = r.byte()
			it.Prefix = r.byte() != 0
			it.Operand = r.cstring()
		case 2:
			it.Operator = r.byte()
			if it.Operator == 0 {
				return nil, pgerror.New(pgerror.InternalError, "invalid tsquery: unrecognized operator type 0")
			}
			if it.Operator == 4 {
				it.Distance = int16(r.uint16())
			}
		default:
			if r.bad {
				return nil, badTextSearch(uint32(types.OidTSQuery))
			}
			return nil, pgerror.New(pgerror.InternalError, "unrecognized tsquery node type")
		}
		if r.bad {
			return nil, badTextSearch(uint32(types.OidTSQuery))
		}
		items = append(items, it)
	}
	if len(r.src) > 0 {
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "incorrect binary data format")
	}
	return types.TSQueryFromItems(items)
}
