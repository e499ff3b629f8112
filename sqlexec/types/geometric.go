package types

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The geometric types of PostgreSQL 15 (geo_ops.c). fickle stores and
// prints them; none has a btree operator class, so ORDER BY, DISTINCT and
// GROUP BY refuse them as PostgreSQL does (OrderingOperatorError).
const (
	OidPoint   Oid = 600
	OidLseg    Oid = 601
	OidPath    Oid = 602
	OidBox     Oid = 603
	OidPolygon Oid = 604
	OidLine    Oid = 628
	OidCircle  Oid = 718
)

// CategoryGeometric is pg_type.typcategory of the geometric types.
const CategoryGeometric Category = 'G'

// Point is a point datum.
type Point struct{ X, Y float64 }

// Lseg is a line segment datum: its two end points, as given.
type Lseg [2]Point

// Box is a box datum: its upper right and lower left corners.
type Box struct{ High, Low Point }

// Path is a path datum: open ([...]) or closed ((...)).
type Path struct {
	Closed bool
	Points []Point
}

// Polygon is a polygon datum: its vertices.
type Polygon []Point

// Line is a line datum: Ax + By + C = 0.
type Line struct{ A, B, C float64 }

// Circle is a circle datum.
type Circle struct {
	Center Point
	Radius float64
}

// IsGeometric reports whether oid is one of the geometric types.
func IsGeometric(oid Oid) bool {
	switch oid {
	case OidPoint, OidLseg, OidPath, OidBox, OidPolygon, OidLine, OidCircle:
		return true
	}
	return false
}

// geoEpsilon is geo_decls.h's EPSILON, the tolerance of the fuzzy
// comparisons (FPeq, FPzero) of geometric input and operators.
const geoEpsilon = 1.0e-06

func fpEq(a, b float64) bool { return a == b || math.Abs(a-b) <= geoEpsilon }

// pointEq is point_eq_point: fuzzy equality, and NaN coordinates equal
// NaN ones.
func pointEq(a, b Point) bool {
	if fpEq(a.X, b.X) && fpEq(a.Y, b.Y) {
		return true
	}
	return floatSame(a.X, b.X) && floatSame(a.Y, b.Y)
}

func floatSame(a, b float64) bool { return compareFloat(a, b) == 0 }

// geoScanner reads a geometric value's text as geo_ops.c's path_decode,
// pair_decode and single_decode do; any failure is 22P02 naming the type
// and the whole input.
type geoScanner struct {
	s, typ string
	i      int
}

func (g *geoScanner) fail() error {
	return pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type %s: %q", g.typ, g.s)
}

func (g *geoScanner) peek() byte {
	if g.i < len(g.s) {
		return g.s[g.i]
	}
	return 0
}

func (g *geoScanner) skipSpace() {
	for g.i < len(g.s) && isSpace(g.s[g.i]) {
		g.i++
	}
}

// float is single_decode (float8in_internal with an end pointer): white
// space, a number or NaN/Infinity, white space.
func (g *geoScanner) float() (float64, error) {
	g.skipSpace()
	rest := strings.ToLower(g.s[g.i:])
	for _, w := range []struct {
		word string
		v    float64
	}{{"nan", floatNaN}, {"+nan", floatNaN}, {"-nan", negFloatNaN},
		{"-infinity", math.Inf(-1)}, {"+infinity", math.Inf(1)}, {"infinity", math.Inf(1)},
		{"-inf", math.Inf(-1)}, {"+inf", math.Inf(1)}, {"inf", math.Inf(1)}} {
		if strings.HasPrefix(rest, w.word) {
			g.i += len(w.word)
			g.skipSpace()
			return w.v, nil
		}
	}
	start := g.i
	j := g.i
	if j < len(g.s) && (g.s[j] == '+' || g.s[j] == '-') {
		j++
	}
	digits := 0
	for j < len(g.s) && g.s[j] >= '0' && g.s[j] <= '9' {
		j++
		digits++
	}
	if j < len(g.s) && g.s[j] == '.' {
		j++
		for j < len(g.s) && g.s[j] >= '0' && g.s[j] <= '9' {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, g.fail()
	}
	if j < len(g.s) && (g.s[j] == 'e' || g.s[j] == 'E') {
		k := j + 1
		if k < len(g.s) && (g.s[k] == '+' || g.s[k] == '-') {
			k++
		}
		if k < len(g.s) && g.s[k] >= '0' && g.s[k] <= '9' {
			for k < len(g.s) && g.s[k] >= '0' && g.s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	num := g.s[start:j]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || (f == 0 && hasNonZeroDigit(num)) {
		return 0, pgerror.Newf(pgerror.NumericValueOutOfRange, "%q is out of range for type double precision", num)
	}
	g.i = j
	g.skipSpace()
	return f, nil
}

// pair is pair_decode: an optionally parenthesized "x,y", then white space.
func (g *geoScanner) pair() (Point, error) {
	g.skipSpace()
	delim := g.peek() == '('
	if delim {
		g.i++
	}
	x, err := g.float()
	if err != nil {
		return Point{}, err
	}
	if g.peek() != ',' {
		return Point{}, g.fail()
	}
	g.i++
	y, err := g.float()
	if err != nil {
		return Point{}, err
	}
	if delim {
		g.skipSpace()
		if g.peek() != ')' {
			return Point{}, g.fail()
		}
		g.i++
	}
	g.skipSpace()
	return Point{x, y}, nil
}

// path is path_decode: n points, optionally inside [...] (when open is
// allowed) or (...), separated by commas. It reports whether the points
// were inside brackets.
func (g *geoScanner) path(allowOpen bool, n int) ([]Point, bool, error) {
	depth := 0
	g.skipSpace()
	isOpen := g.peek() == '['
	switch {
	case isOpen:
		if !allowOpen {
			return nil, false, g.fail()
		}
		depth++
		g.i++
	case g.peek() == '(':
		cp := g.i + 1
		for cp < len(g.s) && isSpace(g.s[cp]) {
			cp++
		}
		if cp < len(g.s) && g.s[cp] == '(' || strings.LastIndexByte(g.s[g.i:], '(') == 0 {
			depth++
			g.i = cp
		}
	}
	pts := make([]Point, n)
	for k := range pts {
		p, err := g.pair()
		if err != nil {
			return nil, false, err
		}
		pts[k] = p
		if g.peek() == ',' {
			g.i++
		}
	}
	for depth > 0 {
		if c := g.peek(); c == ')' || c == ']' && isOpen && depth == 1 {
			depth--
			g.i++
			g.skipSpace()
		} else {
			return nil, false, g.fail()
		}
	}
	return pts, isOpen, nil
}

// end fails unless the whole input was read.
func (g *geoScanner) end() error {
	if g.i != len(g.s) {
		return g.fail()
	}
	return nil
}

// pairCount is pair_count: the number of points an odd count of commas
// gives, or -1.
func pairCount(s string) int {
	n := strings.Count(s, ",")
	if n%2 == 0 {
		return -1
	}
	return (n + 1) / 2
}

func parseGeometric(t Type, s string) (any, error) {
	g := &geoScanner{s: s, typ: typeInfoOf(t.Oid).sqlName}
	switch t.Oid {
	case OidPoint:
		p, err := g.pair()
		if err != nil {
			return nil, err
		}
		return p, g.end()
	case OidLseg:
		pts, _, err := g.path(true, 2)
		if err != nil {
			return nil, err
		}
		return Lseg{pts[0], pts[1]}, g.end()
	case OidBox:
		pts, _, err := g.path(false, 2)
		if err != nil {
			return nil, err
		}
		return makeBox(pts[0], pts[1]), g.end()
	case OidPath:
		return parsePath(g)
	case OidPolygon:
		n := pairCount(s)
		if n <= 0 {
			return nil, g.fail()
		}
		pts, _, err := g.path(false, n)
		if err != nil {
			return nil, err
		}
		return Polygon(pts), g.end()
	case OidLine:
		return parseLine(g)
	case OidCircle:
		return parseCircle(g)
	}
	return nil, unsupportedType(t)
}

// makeBox orders two corners into a box's high and low corners as box_in
// and box_recv do: a swaps with b on an axis where it is smaller (NaN
// being larger than any number).
func makeBox(a, b Point) Box {
	if f8Lt(a.X, b.X) {
		a.X, b.X = b.X, a.X
	}
	if f8Lt(a.Y, b.Y) {
		a.Y, b.Y = b.Y, a.Y
	}
	return Box{High: a, Low: b}
}

func parsePath(g *geoScanner) (any, error) {
	n := pairCount(g.s)
	if n <= 0 {
		return nil, g.fail()
	}
	depth := 0
	g.skipSpace()
	if g.peek() == '(' && strings.LastIndexByte(g.s[g.i:], '(') == 0 {
		g.i++
		depth++
	}
	pts, isOpen, err := g.path(true, n)
	if err != nil {
		return nil, err
	}
	if depth >= 1 {
		if g.peek() != ')' {
			return nil, g.fail()
		}
		g.i++
		g.skipSpace()
	}
	return Path{Closed: !isOpen, Points: pts}, g.end()
}

func parseLine(g *geoScanner) (any, error) {
	g.skipSpace()
	if g.peek() != '{' {
		pts, _, err := g.path(true, 2)
		if err != nil {
			return nil, err
		}
		if err := g.end(); err != nil {
			return nil, err
		}
		if pointEq(pts[0], pts[1]) {
			return nil, pgerror.New(pgerror.InvalidTextRepresentation, "invalid line specification: must be two distinct points")
		}
		return geoCall(func() any { return lineConstruct(pts[0], pointSl(pts[0], pts[1])) })
	}
	g.i++
	var abc [3]float64
	for k, closer := range []byte{',', ',', '}'} {
		f, err := g.float()
		if err != nil {
			return nil, err
		}
		if g.peek() != closer {
			return nil, g.fail()
		}
		g.i++
		abc[k] = f
	}
	g.skipSpace()
	if err := g.end(); err != nil {
		return nil, err
	}
	if math.Abs(abc[0]) <= geoEpsilon && math.Abs(abc[1]) <= geoEpsilon {
		return nil, pgerror.New(pgerror.InvalidTextRepresentation, "invalid line specification: A and B cannot both be zero")
	}
	return Line{abc[0], abc[1], abc[2]}, nil
}

func parseCircle(g *geoScanner) (any, error) {
	depth := 0
	g.skipSpace()
	switch g.peek() {
	case '<':
		depth++
		g.i++
	case '(':
		cp := g.i + 1
		for cp < len(g.s) && isSpace(g.s[cp]) {
			cp++
		}
		if cp < len(g.s) && g.s[cp] == '(' {
			depth++
			g.i = cp
		}
	}
	center, err := g.pair()
	if err != nil {
		return nil, err
	}
	if g.peek() == ',' {
		g.i++
	}
	r, err := g.float()
	if err != nil {
		return nil, err
	}
	if r < 0 {
		return nil, g.fail()
	}
	for depth > 0 {
		if c := g.peek(); c == ')' || c == '>' && depth == 1 {
			depth--
			g.i++
			g.skipSpace()
		} else {
			return nil, g.fail()
		}
	}
	return Circle{center, r}, g.end()
}

// geoFloat prints a coordinate as float8out does under the session's
// extra_float_digits.
func geoFloat(env *Env, f float64) string {
	digits := 0
	if env != nil && env.FloatDigits > 0 {
		digits = env.FloatDigits
	}
	return formatFloatDigits(f, 64, digits)
}

func appendPoint(b *strings.Builder, env *Env, p Point) {
	b.WriteByte('(')
	b.WriteString(geoFloat(env, p.X))
	b.WriteByte(',')
	b.WriteString(geoFloat(env, p.Y))
	b.WriteByte(')')
}

// appendPoints is path_encode: the points, comma-separated, between open
// and close (none when both are 0).
func appendPoints(b *strings.Builder, env *Env, open, close byte, pts []Point) {
	if open != 0 {
		b.WriteByte(open)
	}
	for i, p := range pts {
		if i > 0 {
			b.WriteByte(',')
		}
		appendPoint(b, env, p)
	}
	if close != 0 {
		b.WriteByte(close)
	}
}

// formatGeometric is the output function of each geometric type; ok is
// false for any other datum.
func formatGeometric(env *Env, v any) (string, bool) {
	var b strings.Builder
	switch x := v.(type) {
	case Point:
		appendPoint(&b, env, x)
	case Lseg:
		appendPoints(&b, env, '[', ']', x[:])
	case Box:
		appendPoints(&b, env, 0, 0, []Point{x.High, x.Low})
	case Path:
		if x.Closed {
			appendPoints(&b, env, '(', ')', x.Points)
		} else {
			appendPoints(&b, env, '[', ']', x.Points)
		}
	case Polygon:
		appendPoints(&b, env, '(', ')', x)
	case Line:
		b.WriteByte('{')
		b.WriteString(geoFloat(env, x.A))
		b.WriteByte(',')
		b.WriteString(geoFloat(env, x.B))
		b.WriteByte(',')
		b.WriteString(geoFloat(env, x.C))
		b.WriteByte('}')
	case Circle:
		b.WriteByte('<')
		appendPoint(&b, env, x.Center)
		b.WriteByte(',')
		b.WriteString(geoFloat(env, x.Radius))
		b.WriteByte('>')
	default:
		return "", false
	}
	return b.String(), true
}

// appendKeyGeometric encodes a geometric datum's coordinates, so that keys
// tell apart values that differ in any bit; no geometric type has a btree
// order, so the order of these keys means nothing.
func appendKeyGeometric(buf []byte, v any) []byte {
	var fs []float64
	switch x := v.(type) {
	case Point:
		fs = []float64{x.X, x.Y}
	case Lseg:
		fs = []float64{x[0].X, x[0].Y, x[1].X, x[1].Y}
	case Box:
		fs = []float64{x.High.X, x.High.Y, x.Low.X, x.Low.Y}
	case Path:
		fs = append(fs, float64(len(x.Points)))
		if x.Closed {
			fs[0] = -fs[0]
		}
		for _, p := range x.Points {
			fs = append(fs, p.X, p.Y)
		}
	case Polygon:
		fs = append(fs, float64(len(x)))
		for _, p := range x {
			fs = append(fs, p.X, p.Y)
		}
	case Line:
		fs = []float64{x.A, x.B, x.C}
	case Circle:
		fs = []float64{x.Center.X, x.Center.Y, x.Radius}
	}
	for _, f := range fs {
		buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(f))
	}
	return buf
}
