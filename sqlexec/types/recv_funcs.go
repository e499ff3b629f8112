package types

import (
	"encoding/binary"
	"math"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The binary receive functions of the geometric and network types
// (geo_ops.c's point_recv ... circle_recv, network.c's inet_recv and
// cidr_recv), with PostgreSQL's checks and errors. Each reads its value
// from the front of the bytes it is given and returns what it did not
// read: the caller, as PostgreSQL's, refuses leftovers in its own words.

// RecvSupported reports whether Recv reads values of t.
func RecvSupported(t Type) bool {
	switch t.Oid {
	case OidPoint, OidLseg, OidPath, OidBox, OidPolygon, OidLine, OidCircle, OidInet, OidCidr:
		return true
	}
	return false
}

// Recv is the receive function of t (a type RecvSupported accepts): the
// datum read from the front of src, and the bytes after it.
func Recv(t Type, src []byte) (v any, rest []byte, err error) {
	r := &recvBuf{src: src}
	switch t.Oid {
	case OidPoint:
		v, err = r.point()
	case OidLseg:
		v, err = recvLseg(r)
	case OidBox:
		v, err = recvBox(r)
	case OidPath:
		v, err = recvPath(r)
	case OidPolygon:
		v, err = recvPolygon(r)
	case OidLine:
		v, err = recvLine(r)
	case OidCircle:
		v, err = recvCircle(r)
	case OidInet, OidCidr:
		v, err = recvInet(r, t.Oid == OidCidr)
	default:
		panic("types: Recv of a type without a receive function: " + t.String())
	}
	if err != nil {
		return nil, nil, err
	}
	return v, r.src, nil
}

// recvBuf reads a value as pq_getmsgbyte, pq_getmsgint and
// pq_getmsgfloat8 do: past the end is 08P01.
type recvBuf struct{ src []byte }

func errInsufficientData() error {
	return pgerror.New(pgerror.ProtocolViolation, "insufficient data left in message")
}

func (r *recvBuf) take(n int) ([]byte, error) {
	if len(r.src) < n {
		return nil, errInsufficientData()
	}
	b := r.src[:n]
	r.src = r.src[n:]
	return b, nil
}

func (r *recvBuf) getByte() (byte, error) {
	b, err := r.take(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (r *recvBuf) int32() (int32, error) {
	b, err := r.take(4)
	if err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

func (r *recvBuf) float8() (float64, error) {
	b, err := r.take(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
}

func (r *recvBuf) point() (Point, error) {
	x, err := r.float8()
	if err != nil {
		return Point{}, err
	}
	y, err := r.float8()
	return Point{x, y}, err
}

func (r *recvBuf) points(n int) ([]Point, error) {
	pts := make([]Point, 0, min(n, len(r.src)/16))
	for range n {
		p, err := r.point()
		if err != nil {
			return nil, err
		}
		pts = append(pts, p)
	}
	return pts, nil
}

func recvLseg(r *recvBuf) (any, error) {
	pts, err := r.points(2)
	if err != nil {
		return nil, err
	}
	return Lseg{pts[0], pts[1]}, nil
}

// recvBox is box_recv: the corners are swapped into high and low as box_in
// does.
func recvBox(r *recvBuf) (any, error) {
	pts, err := r.points(2)
	if err != nil {
		return nil, err
	}
	return makeBox(pts[0], pts[1]), nil
}

// recvPointCount reads the point count of a path or polygon as path_recv
// and poly_recv check it: at least one, less than what an int32 size can
// hold after the header of header bytes, then allocatable.
func recvPointCount(r *recvBuf, header int, typ string) (int, error) {
	n, err := r.int32()
	if err != nil {
		return 0, err
	}
	if n <= 0 || int64(n) >= (math.MaxInt32-int64(header))/16 {
		return 0, pgerror.Newf(pgerror.InvalidBinaryRepresentation, "invalid number of points in external \"%s\" value", typ)
	}
	if size := int64(header) + 16*int64(n); size > maxAllocSize {
		return 0, pgerror.Newf(pgerror.InternalError, "invalid memory alloc request size %d", size)
	}
	return int(n), nil
}

// recvPath is path_recv: the closed flag (any nonzero byte), the point
// count, the points.
func recvPath(r *recvBuf) (any, error) {
	closed, err := r.getByte()
	if err != nil {
		return nil, err
	}
	n, err := recvPointCount(r, 16, "path")
	if err != nil {
		return nil, err
	}
	pts, err := r.points(n)
	if err != nil {
		return nil, err
	}
	return Path{Closed: closed != 0, Points: pts}, nil
}

// recvPolygon is poly_recv: the point count, the points.
func recvPolygon(r *recvBuf) (any, error) {
	n, err := recvPointCount(r, 40, "polygon")
	if err != nil {
		return nil, err
	}
	pts, err := r.points(n)
	if err != nil {
		return nil, err
	}
	return Polygon(pts), nil
}

// recvLine is line_recv: A, B and C, A and B not both (fuzzily) zero.
func recvLine(r *recvBuf) (any, error) {
	var abc [3]float64
	for i := range abc {
		f, err := r.float8()
		if err != nil {
			return nil, err
		}
		abc[i] = f
	}
	if math.Abs(abc[0]) <= geoEpsilon && math.Abs(abc[1]) <= geoEpsilon {
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "invalid line specification: A and B cannot both be zero")
	}
	return Line{abc[0], abc[1], abc[2]}, nil
}

// recvCircle is circle_recv: the center and the radius, which may be NaN
// but not negative.
func recvCircle(r *recvBuf) (any, error) {
	c, err := r.point()
	if err != nil {
		return nil, err
	}
	radius, err := r.float8()
	if err != nil {
		return nil, err
	}
	if radius < 0 {
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "invalid radius in external \"circle\" value")
	}
	return Circle{Center: c, Radius: radius}, nil
}

// recvInet is network_recv: the family (PGSQL_AF_INET 2, PGSQL_AF_INET6
// 3), the mask bits, the cidr flag (ignored), the address length and the
// address; a cidr may have no bits set right of its mask.
func recvInet(r *recvBuf, cidr bool) (any, error) {
	name := "inet"
	if cidr {
		name = "cidr"
	}
	family, err := r.getByte()
	if err != nil {
		return nil, err
	}
	var a Inet
	switch family {
	case 2:
	case 3:
		a.V6 = true
	default:
		return nil, pgerror.Newf(pgerror.InvalidBinaryRepresentation, "invalid address family in external \"%s\" value", name)
	}
	bits, err := r.getByte()
	if err != nil {
		return nil, err
	}
	if int(bits) > a.maxBits() {
		return nil, pgerror.Newf(pgerror.InvalidBinaryRepresentation, "invalid bits in external \"%s\" value", name)
	}
	a.Bits = bits
	if _, err := r.getByte(); err != nil {
		return nil, err
	}
	n, err := r.getByte()
	if err != nil {
		return nil, err
	}
	if int(n) != a.size() {
		return nil, pgerror.Newf(pgerror.InvalidBinaryRepresentation, "invalid length in external \"%s\" value", name)
	}
	addr, err := r.take(int(n))
	if err != nil {
		return nil, err
	}
	copy(a.Addr[:], addr)
	if cidr && a.hostBitsSet() {
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "invalid external \"cidr\" value").
			WithDetail("Value has bits set to right of mask.")
	}
	return a, nil
}
