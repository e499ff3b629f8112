package sqlexec

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// BinaryCodec converts single values between datums (DESIGN's datum table)
// and PostgreSQL's binary send/receive representation, by type OID. The
// server supplies wire's codecs, the same ones the extended protocol uses for
// binary parameters and results; sqlexec does not import wire, so COPY
// (FORMAT binary) receives them through CopyRequest.Codec.
type BinaryCodec interface {
	// AppendBinary appends the binary form of the non-NULL datum v.
	AppendBinary(buf []byte, oid uint32, v any) ([]byte, error)
	// DecodeBinary decodes src, failing with 22P03 when it is malformed.
	DecodeBinary(oid uint32, src []byte) (any, error)
}

// binaryCopySignature opens every binary COPY stream (PostgreSQL's
// BinarySignature): "PGCOPY\n\377\r\n\0".
const binaryCopySignature = "PGCOPY\n\xff\r\n\x00"

// binaryCopyOIDsFlag is the header flag of a stream that carries row OIDs
// (COPY ... WITH OIDS, gone since PostgreSQL 12).
const binaryCopyOIDsFlag = 1 << 16

// binaryCopyReader reads the tuples of a COPY FROM STDIN (FORMAT binary)
// stream, as PostgreSQL's ReceiveCopyBinaryHeader and NextCopyFrom do, with
// their 22P04 errors. It never trusts a length before the bytes arrive, so
// a hostile field size cannot make it allocate more than the input holds.
type binaryCopyReader struct {
	r        *bufio.Reader
	relation string
	columns  []string // the COPY's column names, in stream order
	line     int64    // tuples read so far, the trailer included
	tuple    bytes.Buffer
	ends     []int // the end offset of each field in tuple, -1 for NULL
}

func newBinaryCopyReader(r *bufio.Reader, relation string, columns []string) *binaryCopyReader {
	return &binaryCopyReader{r: r, relation: relation, columns: columns}
}

// readHeader checks the signature and flags and skips the header extension.
// PostgreSQL reports these errors without a COPY context line.
func (br *binaryCopyReader) readHeader() error {
	var sig [len(binaryCopySignature)]byte
	if _, err := io.ReadFull(br.r, sig[:]); err != nil || string(sig[:]) != binaryCopySignature {
		return readErr(err, badCopyFormat("COPY file signature not recognized"))
	}
	flags, err := br.int32()
	if err != nil {
		return readErr(err, badCopyFormat("invalid COPY file header (missing flags)"))
	}
	if flags&binaryCopyOIDsFlag != 0 {
		return badCopyFormat("invalid COPY file header (WITH OIDS)")
	}
	if uint32(flags)>>16 != 0 {
		return badCopyFormat("unrecognized critical flags in COPY file header")
	}
	extension, err := br.int32()
	if err != nil || extension < 0 {
		return readErr(err, badCopyFormat("invalid COPY file header (missing length)"))
	}
	if n, err := io.CopyN(io.Discard, br.r, int64(extension)); n != int64(extension) {
		return readErr(err, badCopyFormat("invalid COPY file header (wrong length)"))
	}
	return nil
}

// next reads one tuple and returns its fields, nil for NULL; the slices are
// valid until the next call. It returns io.EOF after the trailer or when the
// data ends where a tuple would begin (PostgreSQL accepts a missing trailer).
func (br *binaryCopyReader) next() ([][]byte, error) {
	br.line++
	var count [2]byte
	if _, err := io.ReadFull(br.r, count[:]); err != nil {
		return nil, readErr(err, io.EOF)
	}
	fields := int16(binary.BigEndian.Uint16(count[:]))
	if fields == -1 {
		if _, err := br.r.ReadByte(); err == nil {
			return nil, br.withContext(badCopyFormat("received copy data after EOF marker"), -1)
		} else if err != io.EOF {
			return nil, err
		}
		return nil, io.EOF
	}
	if int(fields) != len(br.columns) {
		return nil, br.withContext(badCopyFormat(fmt.Sprintf("row field count is %d, expected %d", fields, len(br.columns))), -1)
	}
	br.tuple.Reset()
	br.ends = br.ends[:0]
	for i := range br.columns {
		size, err := br.int32()
		if err != nil {
			return nil, br.withContext(readErr(err, badCopyFormat("unexpected EOF in COPY data")), i)
		}
		if size == -1 {
			br.ends = append(br.ends, -1)
			continue
		}
		if size < 0 {
			return nil, br.withContext(badCopyFormat("invalid field size"), i)
		}
		if n, err := br.tuple.ReadFrom(io.LimitReader(br.r, int64(size))); n != int64(size) {
			return nil, br.withContext(readErr(err, badCopyFormat("unexpected EOF in COPY data")), i)
		}
		br.ends = append(br.ends, br.tuple.Len())
	}
	out := make([][]byte, len(br.ends))
	data, start := br.tuple.Bytes(), 0
	for i, end := range br.ends {
		if end < 0 {
			continue
		}
		if out[i] = data[start:end:end]; out[i] == nil {
			out[i] = []byte{} // an empty value, not NULL
		}
		start = end
	}
	return out, nil
}

func (br *binaryCopyReader) int32() (int32, error) {
	var b [4]byte
	if _, err := io.ReadFull(br.r, b[:]); err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b[:])), nil
}

// withContext gives err the line (and column) of the binary COPY it arose
// at, PostgreSQL's CONTEXT.
func (br *binaryCopyReader) withContext(err error, column int) error {
	var pe *pgerror.Error
	if !errors.As(err, &pe) {
		return err
	}
	where := fmt.Sprintf("COPY %s, line %d", br.relation, br.line)
	if column >= 0 {
		where += ", column " + br.columns[column]
	}
	return withWhere(pe, where)
}

// readErr returns formatErr when the data simply ended (EOF, or EOF in the
// middle of a value) and the read error itself otherwise: a CopyFail or a
// broken connection must reach the client as what it is.
func readErr(err error, formatErr error) error {
	if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
		return formatErr
	}
	return err
}

func badCopyFormat(msg string) *pgerror.Error {
	return pgerror.New(pgerror.BadCopyFileFormat, msg)
}

// decodeCopyField is the column type's receive function: the codec decodes
// the value by the type's OID, then receivedDatum applies the checks that
// PostgreSQL's receive functions make beyond the bytes. Malformed input is
// 22P03 "incorrect binary data format", or 08P01 "insufficient data left in
// message" when a fixed-width value is too short, as PostgreSQL reports them.
func decodeCopyField(env *types.Env, codec BinaryCodec, t types.Type, src []byte) (any, error) {
	v, err := codec.DecodeBinary(uint32(t.Oid), src)
	if err != nil {
		if pgerror.GetCode(err) != pgerror.InvalidBinaryRepresentation {
			return nil, err
		}
		if size := t.Size(); size > 0 && len(src) < size {
			// The fixed-width receive functions read past the value's end.
			return nil, pgerror.Wrapf(err, pgerror.ProtocolViolation, "insufficient data left in message")
		}
		return nil, pgerror.Wrapf(err, pgerror.InvalidBinaryRepresentation, "incorrect binary data format")
	}
	return receivedDatum(env, t, v)
}

// receivedDatum applies to a decoded datum of type t what t's receive
// function checks: the type modifier (varchar(n) and char(n) lengths,
// numeric(p,s)), UTF-8 and NUL in text, json syntax and jsonb
// normalisation, and for an array the same for each element, as array_recv
// calls the element's receive function with the array's typmod.
func receivedDatum(env *types.Env, t types.Type, v any) (any, error) {
	if elem, ok := t.Elem(); ok {
		if dims, lower, a, isArray := pgarray.Shape(v); isArray {
			out := make([]any, len(a))
			for i, e := range a {
				if e == nil {
					continue
				}
				var err error
				if out[i], err = receivedDatum(env, elem, e); err != nil {
					return nil, err
				}
			}
			return pgarray.Make(dims, lower, out), nil
		}
	}
	if s, ok := v.(string); ok && t.Oid != types.OidChar { // "char" is a byte, not text
		return types.ParseTextEnv(env, t, s)
	}
	if t.Typmod == -1 {
		return v, nil
	}
	cast, err := types.LookupCastEnv(types.Type{Oid: t.Oid, Typmod: -1}, t, types.CastAssignment)
	if err != nil {
		return nil, err
	}
	return cast(env, v)
}

// appendBinaryCopyHeader appends the header PostgreSQL's COPY TO writes: the
// signature, no flags and an empty header extension.
func appendBinaryCopyHeader(buf []byte) []byte {
	buf = append(buf, binaryCopySignature...)
	buf = binary.BigEndian.AppendUint32(buf, 0)
	return binary.BigEndian.AppendUint32(buf, 0)
}

// appendBinaryCopyTuple appends one tuple: the field count, then each field
// as a 32-bit length (-1 for NULL) and the codec's bytes for its column's
// type OID.
func appendBinaryCopyTuple(buf []byte, codec BinaryCodec, oids []uint32, row []any) ([]byte, error) {
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(row)))
	for i, v := range row {
		if v == nil {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = codec.AppendBinary(buf, oids[i], v); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// appendBinaryCopyTrailer appends the end-of-data marker, a field count of -1.
func appendBinaryCopyTrailer(buf []byte) []byte {
	return binary.BigEndian.AppendUint16(buf, math.MaxUint16)
}
