package types

import (
	"math"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The arithmetic under the geometric operators, as PostgreSQL 15's
// geo_ops.c computes it: the fuzzy comparisons of geo_decls.h (FPeq, FPlt,
// ... with EPSILON), the checked float8 arithmetic of float.h (float8_pl,
// float8_mul, ... which fail on overflow, underflow and division by zero),
// and each internal routine with the same formulas in the same order, so
// that results agree to the last bit.

// geoError carries a float8 error out of the geometric routines, which
// panic with it as float.h's ereport does; geoCall turns it back into an
// error at the operator or function boundary.
type geoError struct{ err error }

func geoCall(f func() any) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, ok := r.(geoError)
			if !ok {
				panic(r)
			}
			v, err = nil, g.err
		}
	}()
	return f(), nil
}

func geoOverflow() {
	panic(geoError{pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: overflow")})
}

func geoUnderflow() {
	panic(geoError{pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: underflow")})
}

func fpZero(x float64) bool      { return x >= -geoEpsilon && x <= geoEpsilon }
func fpLt(a, b float64) bool     { return a+geoEpsilon < b }
func fpLe(a, b float64) bool     { return a <= b+geoEpsilon }
func fpGt(a, b float64) bool     { return a > b+geoEpsilon }
func fpGe(a, b float64) bool     { return a+geoEpsilon >= b }
func fpNe(a, b float64) bool     { return a != b && math.Abs(a-b) > geoEpsilon }
func fIsNaN(x float64) bool      { return math.IsNaN(x) }
func fIsInf(x float64) bool      { return math.IsInf(x, 0) }
func f8Eq(a, b float64) bool     { return compareFloat(a, b) == 0 }
func f8Lt(a, b float64) bool     { return !fIsNaN(a) && (fIsNaN(b) || a < b) }
func f8Gt(a, b float64) bool     { return !fIsNaN(b) && (fIsNaN(a) || a > b) }
func f8Min(a, b float64) float64 { return pick(f8Lt(a, b), a, b) }
func f8Max(a, b float64) float64 { return pick(f8Gt(a, b), a, b) }

func pick(c bool, a, b float64) float64 {
	if c {
		return a
	}
	return b
}

func fpl(a, b float64) float64 {
	r := a + b
	if fIsInf(r) && !fIsInf(a) && !fIsInf(b) {
		geoOverflow()
	}
	return r
}

func fmi(a, b float64) float64 {
	r := a - b
	if fIsInf(r) && !fIsInf(a) && !fIsInf(b) {
		geoOverflow()
	}
	return r
}

func fmul(a, b float64) float64 {
	r := a * b
	if fIsInf(r) && !fIsInf(a) && !fIsInf(b) {
		geoOverflow()
	}
	if r == 0 && a != 0 && b != 0 {
		geoUnderflow()
	}
	return r
}

func fdiv(a, b float64) float64 {
	if b == 0 && !fIsNaN(a) {
		panic(geoError{errDivisionByZero})
	}
	r := a / b
	if fIsInf(r) && !fIsInf(a) {
		geoOverflow()
	}
	if r == 0 && a != 0 && !fIsInf(b) {
		geoUnderflow()
	}
	return r
}

// pgHypot is pg_hypot.
func pgHypot(x, y float64) float64 {
	if fIsInf(x) || fIsInf(y) {
		return math.Inf(1)
	}
	if fIsNaN(x) || fIsNaN(y) {
		return floatNaN
	}
	x, y = math.Abs(x), math.Abs(y)
	if x < y {
		x, y = y, x
	}
	if y == 0 {
		return x
	}
	yx := y / x
	r := x * math.Sqrt(1.0+yx*yx)
	if fIsInf(r) {
		geoOverflow()
	}
	if r == 0 {
		geoUnderflow()
	}
	return r
}

// ---- points

func pointAdd(a, b Point) Point { return Point{fpl(a.X, b.X), fpl(a.Y, b.Y)} }
func pointSub(a, b Point) Point { return Point{fmi(a.X, b.X), fmi(a.Y, b.Y)} }

func pointMul(a, b Point) Point {
	return Point{fmi(fmul(a.X, b.X), fmul(a.Y, b.Y)), fpl(fmul(a.X, b.Y), fmul(a.Y, b.X))}
}

func pointDiv(a, b Point) Point {
	div := fpl(fmul(b.X, b.X), fmul(b.Y, b.Y))
	return Point{fdiv(fpl(fmul(a.X, b.X), fmul(a.Y, b.Y)), div), fdiv(fmi(fmul(a.Y, b.X), fmul(a.X, b.Y)), div)}
}

func pointDt(a, b Point) float64 { return pgHypot(fmi(a.X, b.X), fmi(a.Y, b.Y)) }

func pointSl(a, b Point) float64 {
	if fpEq(a.X, b.X) {
		return math.Inf(1)
	}
	if fpEq(a.Y, b.Y) {
		return 0
	}
	return fdiv(fmi(a.Y, b.Y), fmi(a.X, b.X))
}

func pointInvsl(a, b Point) float64 {
	if fpEq(a.X, b.X) {
		return 0
	}
	if fpEq(a.Y, b.Y) {
		return math.Inf(1)
	}
	return fdiv(fmi(a.X, b.X), fmi(b.Y, a.Y))
}

// ---- lines

func lineConstruct(p Point, m float64) Line {
	switch {
	case fIsInf(m):
		return Line{A: -1, B: 0, C: p.X}
	case m == 0:
		return Line{A: 0, B: -1, C: p.Y}
	}
	c := fmi(p.Y, fmul(m, p.X))
	if c == 0 {
		c = 0 // no negative zero
	}
	return Line{A: m, B: -1, C: c}
}

func lineSl(l Line) float64 {
	if fpZero(l.A) {
		return 0
	}
	if fpZero(l.B) {
		return math.Inf(1)
	}
	return fdiv(l.A, -l.B)
}

func lineInvsl(l Line) float64 {
	if fpZero(l.A) {
		return math.Inf(1)
	}
	if fpZero(l.B) {
		return 0
	}
	return fdiv(l.B, l.A)
}

// lineInterptLine is line_interpt_line: the intersection point of two
// lines, false for parallel (or identical) ones.
func lineInterptLine(l1, l2 Line) (Point, bool) {
	var x, y float64
	switch {
	case !fpZero(l1.B):
		if fpEq(l2.A, fmul(l1.A, fdiv(l2.B, l1.B))) {
			return Point{}, false
		}
		x = fdiv(fmi(fmul(l1.B, l2.C), fmul(l2.B, l1.C)), fmi(fmul(l1.A, l2.B), fmul(l2.A, l1.B)))
		y = fdiv(-fpl(fmul(l1.A, x), l1.C), l1.B)
	case !fpZero(l2.B):
		if fpEq(l1.A, fmul(l2.A, fdiv(l1.B, l2.B))) {
			return Point{}, false
		}
		x = fdiv(fmi(fmul(l2.B, l1.C), fmul(l1.B, l2.C)), fmi(fmul(l2.A, l1.B), fmul(l1.A, l2.B)))
		y = fdiv(-fpl(fmul(l2.A, x), l2.C), l2.B)
	default:
		return Point{}, false
	}
	if x == 0 {
		x = 0
	}
	if y == 0 {
		y = 0
	}
	return Point{x, y}, true
}

func lineContainPoint(l Line, p Point) bool {
	return fpZero(fpl(fpl(fmul(l.A, p.X), fmul(l.B, p.Y)), l.C))
}

// lineCloseptPoint is line_closept_point: the foot of the perpendicular
// from p and its distance (NaN, with p, when there is none).
func lineCloseptPoint(l Line, p Point) (Point, float64) {
	tmp := lineConstruct(p, lineInvsl(l))
	c, ok := lineInterptLine(tmp, l)
	if !ok {
		return p, floatNaN
	}
	return c, pointDt(c, p)
}

func lineEq(l1, l2 Line) bool {
	if fIsNaN(l1.A) || fIsNaN(l1.B) || fIsNaN(l1.C) || fIsNaN(l2.A) || fIsNaN(l2.B) || fIsNaN(l2.C) {
		return f8Eq(l1.A, l2.A) && f8Eq(l1.B, l2.B) && f8Eq(l1.C, l2.C)
	}
	var ratio float64
	switch {
	case !fpZero(l2.A):
		ratio = fdiv(l1.A, l2.A)
	case !fpZero(l2.B):
		ratio = fdiv(l1.B, l2.B)
	case !fpZero(l2.C):
		ratio = fdiv(l1.C, l2.C)
	default:
		ratio = 1
	}
	return fpEq(l1.A, fmul(ratio, l2.A)) && fpEq(l1.B, fmul(ratio, l2.B)) && fpEq(l1.C, fmul(ratio, l2.C))
}

func linePerp(l1, l2 Line) bool {
	switch {
	case fpZero(l1.A):
		return fpZero(l2.B)
	case fpZero(l2.A):
		return fpZero(l1.B)
	case fpZero(l1.B):
		return fpZero(l2.A)
	case fpZero(l2.B):
		return fpZero(l1.A)
	}
	return fpEq(fdiv(fmul(l1.A, l2.A), fmul(l1.B, l2.B)), -1.0)
}

func lineDistance(l1, l2 Line) float64 {
	if _, ok := lineInterptLine(l1, l2); ok {
		return 0
	}
	var ratio float64
	switch {
	case !fpZero(l1.A) && !fIsNaN(l1.A) && !fpZero(l2.A) && !fIsNaN(l2.A):
		ratio = fdiv(l1.A, l2.A)
	case !fpZero(l1.B) && !fIsNaN(l1.B) && !fpZero(l2.B) && !fIsNaN(l2.B):
		ratio = fdiv(l1.B, l2.B)
	default:
		ratio = 1
	}
	return fdiv(math.Abs(fmi(l1.C, fmul(ratio, l2.C))), pgHypot(l1.A, l1.B))
}

// ---- line segments

func lsegSl(s Lseg) float64    { return pointSl(s[0], s[1]) }
func lsegInvsl(s Lseg) float64 { return pointInvsl(s[0], s[1]) }

func lsegCenter(s Lseg) Point {
	return Point{fdiv(fpl(s[0].X, s[1].X), 2.0), fdiv(fpl(s[0].Y, s[1].Y), 2.0)}
}

// lsegContainPoint decides colinearity by the triangle inequality.
func lsegContainPoint(s Lseg, p Point) bool {
	return fpEq(pointDt(p, s[0])+pointDt(p, s[1]), pointDt(s[0], s[1]))
}

// lsegInterptLine is lseg_interpt_line.
func lsegInterptLine(s Lseg, l Line) (Point, bool) {
	tmp := lineConstruct(s[0], lsegSl(s))
	ip, ok := lineInterptLine(tmp, l)
	if !ok || !lsegContainPoint(s, ip) {
		return Point{}, false
	}
	switch {
	case pointEq(s[0], ip):
		return s[0], true
	case pointEq(s[1], ip):
		return s[1], true
	}
	return ip, true
}

// lsegInterptLseg is lseg_interpt_lseg.
func lsegInterptLseg(l1, l2 Lseg) (Point, bool) {
	tmp := lineConstruct(l2[0], lsegSl(l2))
	ip, ok := lsegInterptLine(l1, tmp)
	if !ok || !lsegContainPoint(l2, ip) {
		return Point{}, false
	}
	return ip, true
}

// lsegCloseptPoint is lseg_closept_point.
func lsegCloseptPoint(s Lseg, p Point) (Point, float64) {
	tmp := lineConstruct(p, lsegInvsl(s))
	c, _ := lsegCloseptLine(s, tmp)
	return c, pointDt(c, p)
}

// lsegCloseptLine is lseg_closept_line.
func lsegCloseptLine(s Lseg, l Line) (Point, float64) {
	if ip, ok := lsegInterptLine(s, l); ok {
		return ip, 0
	}
	_, d1 := lineCloseptPoint(l, s[0])
	_, d2 := lineCloseptPoint(l, s[1])
	if d1 < d2 {
		return s[0], d1
	}
	return s[1], d2
}

// lsegCloseptLseg is lseg_closept_lseg: the point of on closest to to.
func lsegCloseptLseg(on, to Lseg) (Point, float64) {
	if ip, ok := lsegInterptLseg(on, to); ok {
		return ip, 0
	}
	result, dist := lsegCloseptPoint(on, to[0])
	if pt, d := lsegCloseptPoint(on, to[1]); f8Lt(d, dist) {
		result, dist = pt, d
	}
	if _, d := lsegCloseptPoint(to, on[0]); f8Lt(d, dist) {
		result, dist = on[0], d
	}
	if _, d := lsegCloseptPoint(to, on[1]); f8Lt(d, dist) {
		result, dist = on[1], d
	}
	return result, dist
}

func lsegEq(a, b Lseg) bool { return pointEq(a[0], b[0]) && pointEq(a[1], b[1]) }

// ---- boxes

// boxConstruct is box_construct: the box with corners p1 and p2.
func boxConstruct(p1, p2 Point) Box {
	var b Box
	if f8Gt(p1.X, p2.X) {
		b.High.X, b.Low.X = p1.X, p2.X
	} else {
		b.High.X, b.Low.X = p2.X, p1.X
	}
	if f8Gt(p1.Y, p2.Y) {
		b.High.Y, b.Low.Y = p1.Y, p2.Y
	} else {
		b.High.Y, b.Low.Y = p2.Y, p1.Y
	}
	return b
}

func boxCn(b Box) Point {
	return Point{fdiv(fpl(b.High.X, b.Low.X), 2.0), fdiv(fpl(b.High.Y, b.Low.Y), 2.0)}
}

func boxWd(b Box) float64 { return fmi(b.High.X, b.Low.X) }
func boxHt(b Box) float64 { return fmi(b.High.Y, b.Low.Y) }
func boxAr(b Box) float64 { return fmul(boxWd(b), boxHt(b)) }

func boxOv(a, b Box) bool {
	return fpLe(a.Low.X, b.High.X) && fpLe(b.Low.X, a.High.X) && fpLe(a.Low.Y, b.High.Y) && fpLe(b.Low.Y, a.High.Y)
}

func boxContainBox(a, b Box) bool {
	return fpGe(a.High.X, b.High.X) && fpLe(a.Low.X, b.Low.X) && fpGe(a.High.Y, b.High.Y) && fpLe(a.Low.Y, b.Low.Y)
}

func boxContainPoint(b Box, p Point) bool {
	return b.High.X >= p.X && b.Low.X <= p.X && b.High.Y >= p.Y && b.Low.Y <= p.Y
}

func boxSame(a, b Box) bool { return pointEq(a.High, b.High) && pointEq(a.Low, b.Low) }

// boxSides are the four sides box_closept_point and its kin walk, in
// their order: low to (low.x, high.y), high to it, low to (high.x,
// low.y), high to it.
func boxSides(b Box) [4]Lseg {
	p1 := Point{b.Low.X, b.High.Y}
	p2 := Point{b.High.X, b.Low.Y}
	return [4]Lseg{{b.Low, p1}, {b.High, p1}, {b.Low, p2}, {b.High, p2}}
}

// boxCloseptPoint is box_closept_point.
func boxCloseptPoint(b Box, p Point) (Point, float64) {
	if boxContainPoint(b, p) {
		return p, 0
	}
	sides := boxSides(b)
	result, dist := lsegCloseptPoint(sides[0], p)
	for _, s := range sides[1:] {
		if c, d := lsegCloseptPoint(s, p); f8Lt(d, dist) {
			result, dist = c, d
		}
	}
	return result, dist
}

// boxInterptLseg is box_interpt_lseg; the point is the closest point of
// the segment to the box's center.
func boxInterptLseg(b Box, s Lseg) (Point, bool) {
	lbox := Box{Low: Point{f8Min(s[0].X, s[1].X), f8Min(s[0].Y, s[1].Y)}, High: Point{f8Max(s[0].X, s[1].X), f8Max(s[0].Y, s[1].Y)}}
	if !boxOv(lbox, b) {
		return Point{}, false
	}
	result, _ := lsegCloseptPoint(s, boxCn(b))
	if boxContainPoint(b, s[0]) || boxContainPoint(b, s[1]) {
		return result, true
	}
	for _, side := range boxSides(b) {
		if _, ok := lsegInterptLseg(side, s); ok {
			return result, true
		}
	}
	return Point{}, false
}

// boxCloseptLseg is box_closept_lseg.
func boxCloseptLseg(b Box, s Lseg) (Point, float64) {
	if p, ok := boxInterptLseg(b, s); ok {
		return p, 0
	}
	sides := boxSides(b)
	result, dist := lsegCloseptLseg(sides[0], s)
	for _, side := range sides[1:] {
		if c, d := lsegCloseptLseg(side, s); f8Lt(d, dist) {
			result, dist = c, d
		}
	}
	return result, dist
}

// interLb is inter_lb: whether a line crosses a box's sides.
func interLb(l Line, b Box) bool {
	p1, p2 := b.Low, Point{b.Low.X, b.High.Y}
	if _, ok := lsegInterptLine(Lseg{p1, p2}, l); ok {
		return true
	}
	p1 = b.High
	if _, ok := lsegInterptLine(Lseg{p1, p2}, l); ok {
		return true
	}
	p2 = Point{b.High.X, b.Low.Y}
	if _, ok := lsegInterptLine(Lseg{p1, p2}, l); ok {
		return true
	}
	p1 = b.Low
	_, ok := lsegInterptLine(Lseg{p1, p2}, l)
	return ok
}

// ---- paths

// pathSegments calls f with each segment of a path (its closing one first
// when closed) until f returns false.
func pathSegments(p Path, f func(s Lseg) bool) {
	for i := range p.Points {
		var prev int
		if i > 0 {
			prev = i - 1
		} else {
			if !p.Closed {
				continue
			}
			prev = len(p.Points) - 1
		}
		if !f(Lseg{p.Points[prev], p.Points[i]}) {
			return
		}
	}
}

func pathArea(p Path) any {
	if !p.Closed {
		return nil
	}
	area := 0.0
	n := len(p.Points)
	for i := 0; i < n; i++ {
		j := (i + 1) % n
		area = fpl(area, fmul(p.Points[i].X, p.Points[j].Y))
		area = fmi(area, fmul(p.Points[i].Y, p.Points[j].X))
	}
	return fdiv(math.Abs(area), 2.0)
}

func pathLength(p Path) float64 {
	r := 0.0
	pathSegments(p, func(s Lseg) bool {
		r = fpl(r, pointDt(s[0], s[1]))
		return true
	})
	return r
}

func pointsBoundBox(pts []Point) Box {
	b := Box{High: pts[0], Low: pts[0]}
	for _, p := range pts[1:] {
		b.High.X = f8Max(p.X, b.High.X)
		b.High.Y = f8Max(p.Y, b.High.Y)
		b.Low.X = f8Min(p.X, b.Low.X)
		b.Low.Y = f8Min(p.Y, b.Low.Y)
	}
	return b
}

func pathInter(tk *geoTicker, p1, p2 Path) bool {
	if !boxOv(pointsBoundBox(p1.Points), pointsBoundBox(p2.Points)) {
		return false
	}
	found := false
	pathSegments(p1, func(s1 Lseg) bool {
		pathSegments(p2, func(s2 Lseg) bool {
			tk.tick()
			_, found = lsegInterptLseg(s1, s2)
			return !found
		})
		return !found
	})
	return found
}

func pathDistance(tk *geoTicker, p1, p2 Path) any {
	var min float64
	have := false
	pathSegments(p1, func(s1 Lseg) bool {
		pathSegments(p2, func(s2 Lseg) bool {
			tk.tick()
			_, d := lsegCloseptLseg(s1, s2)
			if !have || f8Lt(d, min) {
				min, have = d, true
			}
			return true
		})
		return true
	})
	if !have {
		return nil
	}
	return min
}

func distPpath(p Point, path Path) float64 {
	var result float64
	have := false
	pathSegments(path, func(s Lseg) bool {
		_, d := lsegCloseptPoint(s, p)
		if !have || f8Lt(d, result) {
			result, have = d, true
		}
		return true
	})
	return result
}

// onPpath is on_ppath: on an open path's segments, or inside a closed one.
func onPpath(p Point, path Path) bool {
	if !path.Closed {
		a := pointDt(p, path.Points[0])
		for i := 0; i < len(path.Points)-1; i++ {
			b := pointDt(p, path.Points[i+1])
			if fpEq(fpl(a, b), pointDt(path.Points[i], path.Points[i+1])) {
				return true
			}
			a = b
		}
		return false
	}
	return pointInside(p, path.Points) != 0
}

func pathMap(p Path, q Point, f func(a, b Point) Point) Path {
	pts := make([]Point, len(p.Points))
	for i, a := range p.Points {
		pts[i] = f(a, q)
	}
	return Path{Closed: p.Closed, Points: pts}
}

// ---- polygons

// polyBoundBox is make_bound_box.
func polyBoundBox(poly Polygon) Box {
	x1, x2 := poly[0].X, poly[0].X
	y1, y2 := poly[0].Y, poly[0].Y
	for _, p := range poly[1:] {
		if f8Lt(p.X, x1) {
			x1 = p.X
		}
		if f8Gt(p.X, x2) {
			x2 = p.X
		}
		if f8Lt(p.Y, y1) {
			y1 = p.Y
		}
		if f8Gt(p.Y, y2) {
			y2 = p.Y
		}
	}
	return Box{High: Point{x2, y2}, Low: Point{x1, y1}}
}

func polySame(tk *geoTicker, a, b Polygon) bool {
	return len(a) == len(b) && plistSame(tk, a, b)
}

func plistSame(tk *geoTicker, p1, p2 []Point) bool {
	n := len(p1)
	for i := 0; i < n; i++ {
		if !pointEq(p2[i], p1[0]) {
			continue
		}
		ii, j := 1, i+1
		for ; ii < n; ii, j = ii+1, j+1 {
			tk.tick()
			if j >= n {
				j = 0
			}
			if !pointEq(p2[j], p1[ii]) {
				break
			}
		}
		if ii == n {
			return true
		}
		ii, j = 1, i-1
		for ; ii < n; ii, j = ii+1, j-1 {
			tk.tick()
			if j < 0 {
				j = n - 1
			}
			if !pointEq(p2[j], p1[ii]) {
				break
			}
		}
		if ii == n {
			return true
		}
	}
	return false
}

func polyOverlap(tk *geoTicker, a, b Polygon) bool {
	if !boxOv(polyBoundBox(a), polyBoundBox(b)) {
		return false
	}
	sa := Lseg{a[len(a)-1]}
	for ia := 0; ia < len(a); ia++ {
		sa[1] = a[ia]
		sb := Lseg{b[len(b)-1]}
		for ib := 0; ib < len(b); ib++ {
			tk.tick()
			sb[1] = b[ib]
			if _, ok := lsegInterptLseg(sa, sb); ok {
				return true
			}
			sb[0] = sb[1]
		}
		sa[0] = sa[1]
	}
	return pointInside(a[0], b) != 0 || pointInside(b[0], a) != 0
}

func touchedLsegInsidePoly(tk *geoTicker, a, b Point, s Lseg, poly Polygon, start int) bool {
	t := Lseg{a, b}
	switch {
	case pointEq(a, s[0]):
		if lsegContainPoint(t, s[1]) {
			return lsegInsidePoly(tk, b, s[1], poly, start)
		}
	case pointEq(a, s[1]):
		if lsegContainPoint(t, s[0]) {
			return lsegInsidePoly(tk, b, s[0], poly, start)
		}
	case lsegContainPoint(t, s[0]):
		return lsegInsidePoly(tk, b, s[0], poly, start)
	case lsegContainPoint(t, s[1]):
		return lsegInsidePoly(tk, b, s[1], poly, start)
	}
	return true
}

// lsegInsidePoly is lseg_inside_poly.
func lsegInsidePoly(tk *geoTicker, a, b Point, poly Polygon, start int) bool {
	t := Lseg{a, b}
	var s Lseg
	if start == 0 {
		s[0] = poly[len(poly)-1]
	} else {
		s[0] = poly[start-1]
	}
	res, intersection := true, false
	for i := start; i < len(poly) && res; i++ {
		tk.tick()
		s[1] = poly[i]
		if lsegContainPoint(s, t[0]) {
			if lsegContainPoint(s, t[1]) {
				return true
			}
			res = touchedLsegInsidePoly(tk, t[0], t[1], s, poly, i+1)
		} else if lsegContainPoint(s, t[1]) {
			res = touchedLsegInsidePoly(tk, t[1], t[0], s, poly, i+1)
		} else if ip, ok := lsegInterptLseg(t, s); ok {
			intersection = true
			res = lsegInsidePoly(tk, t[0], ip, poly, i+1)
			if res {
				res = lsegInsidePoly(tk, t[1], ip, poly, i+1)
			}
		}
		s[0] = s[1]
	}
	if res && !intersection {
		p := Point{fdiv(fpl(t[0].X, t[1].X), 2.0), fdiv(fpl(t[0].Y, t[1].Y), 2.0)}
		res = pointInside(p, poly) != 0
	}
	return res
}

func polyContainPoly(tk *geoTicker, outer, inner Polygon) bool {
	if !boxContainBox(polyBoundBox(outer), polyBoundBox(inner)) {
		return false
	}
	s := Lseg{inner[len(inner)-1]}
	for _, p := range inner {
		s[1] = p
		if !lsegInsidePoly(tk, s[0], s[1], outer, 0) {
			return false
		}
		s[0] = s[1]
	}
	return true
}

func distPpoly(p Point, poly Polygon) float64 {
	if pointInside(p, poly) != 0 {
		return 0
	}
	_, result := lsegCloseptPoint(Lseg{poly[0], poly[len(poly)-1]}, p)
	for i := 0; i < len(poly)-1; i++ {
		if _, d := lsegCloseptPoint(Lseg{poly[i], poly[i+1]}, p); f8Lt(d, result) {
			result = d
		}
	}
	return result
}

func distCpoly(c Circle, poly Polygon) float64 {
	r := fmi(distPpoly(c.Center, poly), c.Radius)
	if r < 0 {
		r = 0
	}
	return r
}

func polyDistance(tk *geoTicker, a, b Polygon) any {
	if polyOverlap(tk, a, b) {
		return 0.0
	}
	return pathDistance(tk, Path{Closed: true, Points: a}, Path{Closed: true, Points: b})
}

// polyToCircle is poly_to_circle.
func polyToCircle(poly Polygon) Circle {
	var c Circle
	for _, p := range poly {
		c.Center = pointAdd(c.Center, p)
	}
	n := float64(len(poly))
	c.Center.X = fdiv(c.Center.X, n)
	c.Center.Y = fdiv(c.Center.Y, n)
	for _, p := range poly {
		c.Radius = fpl(c.Radius, pointDt(p, c.Center))
	}
	c.Radius = fdiv(c.Radius, n)
	return c
}

func boxPoly(b Box) Polygon {
	return Polygon{b.Low, {b.Low.X, b.High.Y}, b.High, {b.High.X, b.Low.Y}}
}

// maxAllocSize is PostgreSQL's MaxAllocSize, the largest value it builds.
const maxAllocSize = 0x3fffffff

// pointOnPolygon is point_inside's answer for a point on the boundary.
const pointOnPolygon = math.MaxInt32

// pointInside is point_inside: 0 outside, 1 inside, 2 on the boundary.
func pointInside(p Point, plist []Point) int {
	x0, y0 := fmi(plist[0].X, p.X), fmi(plist[0].Y, p.Y)
	prevX, prevY := x0, y0
	total := 0
	for i := 1; i < len(plist); i++ {
		x, y := fmi(plist[i].X, p.X), fmi(plist[i].Y, p.Y)
		cross := lsegCrossing(x, y, prevX, prevY)
		if cross == pointOnPolygon {
			return 2
		}
		total += cross
		prevX, prevY = x, y
	}
	cross := lsegCrossing(x0, y0, prevX, prevY)
	if cross == pointOnPolygon {
		return 2
	}
	total += cross
	if total != 0 {
		return 1
	}
	return 0
}

func lsegCrossing(x, y, prevX, prevY float64) int {
	if fpZero(y) {
		switch {
		case fpZero(x):
			return pointOnPolygon
		case fpGt(x, 0):
			if fpZero(prevY) {
				if fpGt(prevX, 0) {
					return 0
				}
				return pointOnPolygon
			}
			if fpLt(prevY, 0) {
				return 1
			}
			return -1
		default:
			if fpZero(prevY) {
				if fpLt(prevX, 0) {
					return 0
				}
				return pointOnPolygon
			}
			return 0
		}
	}
	ySign := -1
	if fpGt(y, 0) {
		ySign = 1
	}
	if fpZero(prevY) {
		if fpLt(prevX, 0) {
			return 0
		}
		return ySign
	}
	if (ySign < 0 && fpLt(prevY, 0)) || (ySign > 0 && fpGt(prevY, 0)) {
		return 0
	}
	if fpGe(x, 0) && fpGt(prevX, 0) {
		return 2 * ySign
	}
	if fpLt(x, 0) && fpLe(prevX, 0) {
		return 0
	}
	z := fmi(fmul(fmi(x, prevX), y), fmul(fmi(y, prevY), x))
	if fpZero(z) {
		return pointOnPolygon
	}
	if (ySign < 0 && fpLt(z, 0)) || (ySign > 0 && fpGt(z, 0)) {
		return 0
	}
	return 2 * ySign
}

// geoTicker lets the routines whose work grows faster than their input
// (pairs of segments, lseg_inside_poly's recursion) or with a requested
// size (circle_poly) stop when the statement is cancelled: they call tick
// at each step, and every interruptEvery steps it fails with the
// statement's cancellation (57014), as PostgreSQL's CHECK_FOR_INTERRUPTS
// in lseg_inside_poly does. A nil ticker never stops.
type geoTicker struct {
	env *Env
	n   int
}

func (t *geoTicker) tick() {
	if t == nil {
		return
	}
	t.n++
	if t.n%interruptEvery != 0 {
		return
	}
	if err := t.env.Interrupt(); err != nil {
		panic(geoError{err})
	}
}

// ---- circles

func circleAr(c Circle) float64 { return fmul(fmul(c.Radius, c.Radius), math.Pi) }

func circleSame(a, b Circle) bool {
	return ((fIsNaN(a.Radius) && fIsNaN(b.Radius)) || fpEq(a.Radius, b.Radius)) && pointEq(a.Center, b.Center)
}

func distPc(p Point, c Circle) float64 {
	r := fmi(pointDt(p, c.Center), c.Radius)
	if r < 0 {
		r = 0
	}
	return r
}

func circleBox(c Circle) Box {
	delta := fdiv(c.Radius, math.Sqrt(2.0))
	return Box{High: Point{fpl(c.Center.X, delta), fpl(c.Center.Y, delta)}, Low: Point{fmi(c.Center.X, delta), fmi(c.Center.Y, delta)}}
}

func boxCircle(b Box) Circle {
	center := Point{fdiv(fpl(b.High.X, b.Low.X), 2.0), fdiv(fpl(b.High.Y, b.Low.Y), 2.0)}
	return Circle{Center: center, Radius: pointDt(center, b.High)}
}

// circlePoly is circle_poly.
func circlePoly(tk *geoTicker, npts int64, c Circle) (Polygon, error) {
	if fpZero(c.Radius) {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot convert circle with radius zero to polygon")
	}
	if npts < 2 {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "must request at least 2 points")
	}
	if npts*16 > math.MaxInt32 {
		return nil, pgerror.New(pgerror.ProgramLimitExceeded, "too many points requested")
	}
	if npts*16+40 > maxAllocSize {
		return nil, pgerror.Unsupported("a polygon of more than 1 GB")
	}
	if !haveLibm {
		return nil, pgerror.Unsupported("converting a circle to a polygon without the C library's sin and cos")
	}
	poly := make(Polygon, npts)
	step := fdiv(2.0*math.Pi, float64(npts))
	for i := range poly {
		tk.tick()
		angle := fmul(step, float64(i))
		poly[i] = Point{fmi(c.Center.X, fmul(c.Radius, libmCos(angle))), fpl(c.Center.Y, fmul(c.Radius, libmSin(angle)))}
	}
	return poly, nil
}
