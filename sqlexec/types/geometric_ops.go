package types

import "github.com/fickle-db/fickle/internal/pgerror"

// The operators, functions and casts of the geometric types, as
// PostgreSQL 15's pg_operator, pg_proc and pg_cast define them over
// geo_ops.c's routines (geometric_math.go).

var (
	tPoint   = Type{OidPoint, -1}
	tLseg    = Type{OidLseg, -1}
	tPath    = Type{OidPath, -1}
	tBox     = Type{OidBox, -1}
	tPolygon = Type{OidPolygon, -1}
	tLine    = Type{OidLine, -1}
	tCircle  = Type{OidCircle, -1}
)

// geoOperator is a registered geometric operator, for the function of
// pg_operator.oprcode that computes it (geoOperatorFunctions).
type geoOperator struct {
	result Type
	eval   opFunc
}

// geoOperators are the geometric operators by name and operand types (a
// prefix operator's left type is the zero Type).
var geoOperators = map[geoOperatorKey]geoOperator{}

type geoOperatorKey struct {
	op   string
	l, r Type
}

// geoBinaryErr registers a binary geometric operator.
func geoBinaryErr(op string, l, r, result Type, eval opFunc) {
	addBinary(op, l, r, result, eval)
	geoOperators[geoOperatorKey{op, l, r}] = geoOperator{result, eval}
}

// geoBinary registers a binary operator whose evaluation may fail with a
// float8 error.
func geoBinary(op string, l, r, result Type, f func(a, b any) any) {
	geoBinaryErr(op, l, r, result, func(_ *Env, a, b any) (any, error) {
		return geoCall(func() any { return f(a, b) })
	})
}

// geoBinaryTicking registers a binary operator whose routine may run long
// (geoTicker).
func geoBinaryTicking(op string, l, r, result Type, f func(tk *geoTicker, a, b any) any) {
	geoBinaryErr(op, l, r, result, func(env *Env, a, b any) (any, error) {
		return geoCall(func() any { return f(&geoTicker{env: env}, a, b) })
	})
}

func geoUnary(op string, arg, result Type, f func(a any) any) {
	eval := func(_ *Env, a any) (any, error) {
		return geoCall(func() any { return f(a) })
	}
	addUnary(op, arg, result, eval)
	geoOperators[geoOperatorKey{op, Type{}, arg}] = geoOperator{result, func(env *Env, _, a any) (any, error) { return eval(env, a) }}
}

func geoFunc(name string, result Type, f func(args []any) any, args ...Type) {
	addFunc(name, Immutable, result, func(_ *Env, a []any) (any, error) {
		return geoCall(func() any { return f(a) })
	}, args...)
}

func geoFunc1(name string, arg, result Type, f func(a any) any) {
	geoFunc(name, result, func(a []any) any { return f(a[0]) }, arg)
}

func geoCast(from, to Oid, ctx CastContext, f func(a any) any) {
	addCast(from, to, ctx, func(_ *Env, v any) (any, error) {
		return geoCall(func() any { return f(v) })
	})
}

// nullablePoint is a routine's optional point result: nil is SQL NULL.
func nullablePoint(p Point, ok bool) any {
	if !ok {
		return nil
	}
	return p
}

// closePoint is a close_* result: NULL when the distance is NaN.
func closePoint(p Point, d float64) any {
	if fIsNaN(d) {
		return nil
	}
	return p
}

func init() {
	registerPointOps()
	registerBoxOps()
	registerCircleOps()
	registerLineOps()
	registerPathPolygonOps()
	registerGeoCasts()
	for _, f := range geoOperatorFunctions {
		o, ok := geoOperators[geoOperatorKey{f.op, f.l, f.r}]
		if !ok {
			panic("geometric operator " + f.op + " of " + f.fn + " is not registered")
		}
		eval := o.eval
		if f.l == (Type{}) {
			addFunc(f.fn, Immutable, o.result, func(env *Env, a []any) (any, error) { return eval(env, nil, a[0]) }, f.r)
			continue
		}
		addFunc(f.fn, Immutable, o.result, func(env *Env, a []any) (any, error) { return eval(env, a[0], a[1]) }, f.l, f.r)
	}
}

func registerPointOps() {
	pp := func(op string, result Type, f func(a, b Point) any) {
		geoBinary(op, tPoint, tPoint, result, func(a, b any) any { return f(a.(Point), b.(Point)) })
	}
	pp("+", tPoint, func(a, b Point) any { return pointAdd(a, b) })
	pp("-", tPoint, func(a, b Point) any { return pointSub(a, b) })
	pp("*", tPoint, func(a, b Point) any { return pointMul(a, b) })
	pp("/", tPoint, func(a, b Point) any { return pointDiv(a, b) })
	pp("<->", Float8, func(a, b Point) any { return pointDt(a, b) })
	pp("<<", Bool, func(a, b Point) any { return fpLt(a.X, b.X) })
	pp(">>", Bool, func(a, b Point) any { return fpGt(a.X, b.X) })
	pp("|>>", Bool, func(a, b Point) any { return fpGt(a.Y, b.Y) })
	pp(">^", Bool, func(a, b Point) any { return fpGt(a.Y, b.Y) })
	pp("<<|", Bool, func(a, b Point) any { return fpLt(a.Y, b.Y) })
	pp("<^", Bool, func(a, b Point) any { return fpLt(a.Y, b.Y) })
	pp("?|", Bool, func(a, b Point) any { return fpEq(a.X, b.X) })
	pp("?-", Bool, func(a, b Point) any { return fpEq(a.Y, b.Y) })
	pp("~=", Bool, func(a, b Point) any { return pointEq(a, b) })
	pp("<>", Bool, func(a, b Point) any { return !pointEq(a, b) })
	for name, f := range map[string]func(a, b Point) any{
		"slope":        func(a, b Point) any { return pointSl(a, b) },
		"isvertical":   func(a, b Point) any { return fpEq(a.X, b.X) },
		"ishorizontal": func(a, b Point) any { return fpEq(a.Y, b.Y) },
		"lseg":         func(a, b Point) any { return Lseg{a, b} },
		"box":          func(a, b Point) any { return boxConstruct(a, b) },
		"line": func(a, b Point) any {
			if pointEq(a, b) {
				panic(geoError{pgerror.New(pgerror.InvalidParameterValue, "invalid line specification: must be two distinct points")})
			}
			return lineConstruct(a, pointSl(a, b))
		},
	} {
		f := f
		result := map[string]Type{"slope": Float8, "isvertical": Bool, "ishorizontal": Bool, "lseg": tLseg, "box": tBox, "line": tLine}[name]
		geoFunc(name, result, func(a []any) any { return f(a[0].(Point), a[1].(Point)) }, tPoint, tPoint)
	}
	geoFunc("point", tPoint, func(a []any) any { return Point{a[0].(float64), a[1].(float64)} }, Float8, Float8)

	// Containment of a point in the other types, both ways.
	containers := []struct {
		t      Type
		inside func(p Point, c any) bool
	}{
		{tBox, func(p Point, c any) bool { return boxContainPoint(c.(Box), p) }},
		{tPolygon, func(p Point, c any) bool { return pointInside(p, c.(Polygon)) != 0 }},
		{tCircle, func(p Point, c any) bool { x := c.(Circle); return pointDt(x.Center, p) <= x.Radius }},
		{tPath, func(p Point, c any) bool { return onPpath(p, c.(Path)) }},
	}
	for _, c := range containers {
		inside := c.inside
		geoBinary("<@", tPoint, c.t, Bool, func(a, b any) any { return inside(a.(Point), b) })
		geoBinary("@>", c.t, tPoint, Bool, func(a, b any) any { return inside(b.(Point), a) })
	}
	geoBinary("<@", tPoint, tLseg, Bool, func(a, b any) any { return lsegContainPoint(b.(Lseg), a.(Point)) })
	geoBinary("<@", tPoint, tLine, Bool, func(a, b any) any { return lineContainPoint(b.(Line), a.(Point)) })

	// Distances from a point, both ways.
	dists := []struct {
		t Type
		d func(p Point, o any) float64
	}{
		{tLine, func(p Point, o any) float64 { _, d := lineCloseptPoint(o.(Line), p); return d }},
		{tLseg, func(p Point, o any) float64 { _, d := lsegCloseptPoint(o.(Lseg), p); return d }},
		{tBox, func(p Point, o any) float64 { _, d := boxCloseptPoint(o.(Box), p); return d }},
		{tPath, func(p Point, o any) float64 { return distPpath(p, o.(Path)) }},
		{tPolygon, func(p Point, o any) float64 { return distPpoly(p, o.(Polygon)) }},
		{tCircle, func(p Point, o any) float64 { return distPc(p, o.(Circle)) }},
	}
	for _, d := range dists {
		dist := d.d
		geoBinary("<->", tPoint, d.t, Float8, func(a, b any) any { return dist(a.(Point), b) })
		geoBinary("<->", d.t, tPoint, Float8, func(a, b any) any { return dist(b.(Point), a) })
	}

	// Closest points.
	geoBinary("##", tPoint, tLine, tPoint, func(a, b any) any { return closePoint(lineCloseptPoint(b.(Line), a.(Point))) })
	geoBinary("##", tPoint, tLseg, tPoint, func(a, b any) any { return closePoint(lsegCloseptPoint(b.(Lseg), a.(Point))) })
	geoBinary("##", tPoint, tBox, tPoint, func(a, b any) any { return closePoint(boxCloseptPoint(b.(Box), a.(Point))) })

	// Translation, rotation and scaling of the other types by a point.
	arith := map[string]func(a, b Point) Point{"+": pointAdd, "-": pointSub, "*": pointMul, "/": pointDiv}
	for op, f := range arith {
		f, scale := f, op == "*" || op == "/"
		geoBinary(op, tBox, tPoint, tBox, func(a, b any) any {
			x, p := a.(Box), b.(Point)
			if scale {
				return boxConstruct(f(x.High, p), f(x.Low, p))
			}
			return Box{High: f(x.High, p), Low: f(x.Low, p)}
		})
		geoBinary(op, tPath, tPoint, tPath, func(a, b any) any { return pathMap(a.(Path), b.(Point), f) })
		geoBinary(op, tCircle, tPoint, tCircle, func(a, b any) any {
			c, p := a.(Circle), b.(Point)
			r := c.Radius
			switch op {
			case "*":
				r = fmul(r, pgHypot(p.X, p.Y))
			case "/":
				r = fdiv(r, pgHypot(p.X, p.Y))
			}
			return Circle{Center: f(c.Center, p), Radius: r}
		})
	}
}

func registerBoxOps() {
	bb := func(op string, result Type, f func(a, b Box) any) {
		geoBinary(op, tBox, tBox, result, func(a, b any) any { return f(a.(Box), b.(Box)) })
	}
	bb("~=", Bool, func(a, b Box) any { return boxSame(a, b) })
	bb("&&", Bool, func(a, b Box) any { return boxOv(a, b) })
	bb("?#", Bool, func(a, b Box) any { return boxOv(a, b) })
	bb("<<", Bool, func(a, b Box) any { return fpLt(a.High.X, b.Low.X) })
	bb("&<", Bool, func(a, b Box) any { return fpLe(a.High.X, b.High.X) })
	bb(">>", Bool, func(a, b Box) any { return fpGt(a.Low.X, b.High.X) })
	bb("&>", Bool, func(a, b Box) any { return fpGe(a.Low.X, b.Low.X) })
	bb("<<|", Bool, func(a, b Box) any { return fpLt(a.High.Y, b.Low.Y) })
	bb("&<|", Bool, func(a, b Box) any { return fpLe(a.High.Y, b.High.Y) })
	bb("|>>", Bool, func(a, b Box) any { return fpGt(a.Low.Y, b.High.Y) })
	bb("|&>", Bool, func(a, b Box) any { return fpGe(a.Low.Y, b.Low.Y) })
	bb("<@", Bool, func(a, b Box) any { return boxContainBox(b, a) })
	bb("@>", Bool, func(a, b Box) any { return boxContainBox(a, b) })
	bb("<^", Bool, func(a, b Box) any { return fpLe(a.High.Y, b.Low.Y) })
	bb(">^", Bool, func(a, b Box) any { return fpGe(a.Low.Y, b.High.Y) })
	bb("<", Bool, func(a, b Box) any { return fpLt(boxAr(a), boxAr(b)) })
	bb(">", Bool, func(a, b Box) any { return fpGt(boxAr(a), boxAr(b)) })
	bb("=", Bool, func(a, b Box) any { return fpEq(boxAr(a), boxAr(b)) })
	bb("<=", Bool, func(a, b Box) any { return fpLe(boxAr(a), boxAr(b)) })
	bb(">=", Bool, func(a, b Box) any { return fpGe(boxAr(a), boxAr(b)) })
	bb("<->", Float8, func(a, b Box) any { return pointDt(boxCn(a), boxCn(b)) })
	bb("#", tBox, func(a, b Box) any {
		if !boxOv(a, b) {
			return nil
		}
		return Box{High: Point{f8Min(a.High.X, b.High.X), f8Min(a.High.Y, b.High.Y)}, Low: Point{f8Max(a.Low.X, b.Low.X), f8Max(a.Low.Y, b.Low.Y)}}
	})
	geoFunc("bound_box", tBox, func(a []any) any {
		x, y := a[0].(Box), a[1].(Box)
		return Box{High: Point{f8Max(x.High.X, y.High.X), f8Max(x.High.Y, y.High.Y)}, Low: Point{f8Min(x.Low.X, y.Low.X), f8Min(x.Low.Y, y.Low.Y)}}
	}, tBox, tBox)
	geoUnary("@@", tBox, tPoint, func(a any) any { return boxCn(a.(Box)) })
	for name, f := range map[string]func(b Box) any{
		"area":   func(b Box) any { return boxAr(b) },
		"width":  func(b Box) any { return boxWd(b) },
		"height": func(b Box) any { return boxHt(b) },
		"center": func(b Box) any { return boxCn(b) },
		"point":  func(b Box) any { return boxCn(b) },
		"diagonal": func(b Box) any {
			return Lseg{b.High, b.Low}
		},
		"lseg":    func(b Box) any { return Lseg{b.High, b.Low} },
		"circle":  func(b Box) any { return boxCircle(b) },
		"polygon": func(b Box) any { return boxPoly(b) },
	} {
		f := f
		result := map[string]Type{"area": Float8, "width": Float8, "height": Float8, "center": tPoint, "point": tPoint, "diagonal": tLseg, "lseg": tLseg, "circle": tCircle, "polygon": tPolygon}[name]
		geoFunc1(name, tBox, result, func(a any) any { return f(a.(Box)) })
	}
	geoFunc1("box", tPoint, tBox, func(a any) any { p := a.(Point); return Box{High: p, Low: p} })
}

func registerCircleOps() {
	cc := func(op string, result Type, f func(a, b Circle) any) {
		geoBinary(op, tCircle, tCircle, result, func(a, b any) any { return f(a.(Circle), b.(Circle)) })
	}
	cc("~=", Bool, func(a, b Circle) any { return circleSame(a, b) })
	cc("&&", Bool, func(a, b Circle) any { return fpLe(pointDt(a.Center, b.Center), fpl(a.Radius, b.Radius)) })
	cc("&<", Bool, func(a, b Circle) any { return fpLe(fpl(a.Center.X, a.Radius), fpl(b.Center.X, b.Radius)) })
	cc("<<", Bool, func(a, b Circle) any { return fpLt(fpl(a.Center.X, a.Radius), fmi(b.Center.X, b.Radius)) })
	cc(">>", Bool, func(a, b Circle) any { return fpGt(fmi(a.Center.X, a.Radius), fpl(b.Center.X, b.Radius)) })
	cc("&>", Bool, func(a, b Circle) any { return fpGe(fmi(a.Center.X, a.Radius), fmi(b.Center.X, b.Radius)) })
	cc("<@", Bool, func(a, b Circle) any { return fpLe(pointDt(a.Center, b.Center), fmi(b.Radius, a.Radius)) })
	cc("@>", Bool, func(a, b Circle) any { return fpLe(pointDt(a.Center, b.Center), fmi(a.Radius, b.Radius)) })
	cc("<<|", Bool, func(a, b Circle) any { return fpLt(fpl(a.Center.Y, a.Radius), fmi(b.Center.Y, b.Radius)) })
	cc("|>>", Bool, func(a, b Circle) any { return fpGt(fmi(a.Center.Y, a.Radius), fpl(b.Center.Y, b.Radius)) })
	cc("&<|", Bool, func(a, b Circle) any { return fpLe(fpl(a.Center.Y, a.Radius), fpl(b.Center.Y, b.Radius)) })
	cc("|&>", Bool, func(a, b Circle) any { return fpGe(fmi(a.Center.Y, a.Radius), fmi(b.Center.Y, b.Radius)) })
	cc("=", Bool, func(a, b Circle) any { return fpEq(circleAr(a), circleAr(b)) })
	cc("<>", Bool, func(a, b Circle) any { return fpNe(circleAr(a), circleAr(b)) })
	cc("<", Bool, func(a, b Circle) any { return fpLt(circleAr(a), circleAr(b)) })
	cc(">", Bool, func(a, b Circle) any { return fpGt(circleAr(a), circleAr(b)) })
	cc("<=", Bool, func(a, b Circle) any { return fpLe(circleAr(a), circleAr(b)) })
	cc(">=", Bool, func(a, b Circle) any { return fpGe(circleAr(a), circleAr(b)) })
	cc("<->", Float8, func(a, b Circle) any {
		r := fmi(pointDt(a.Center, b.Center), fpl(a.Radius, b.Radius))
		if r < 0 {
			r = 0
		}
		return r
	})
	geoUnary("@@", tCircle, tPoint, func(a any) any { return a.(Circle).Center })
	for name, f := range map[string]func(c Circle) any{
		"area":     func(c Circle) any { return circleAr(c) },
		"diameter": func(c Circle) any { return fmul(c.Radius, 2.0) },
		"radius":   func(c Circle) any { return c.Radius },
		"center":   func(c Circle) any { return c.Center },
		"point":    func(c Circle) any { return c.Center },
		"box":      func(c Circle) any { return circleBox(c) },
	} {
		f := f
		result := map[string]Type{"area": Float8, "diameter": Float8, "radius": Float8, "center": tPoint, "point": tPoint, "box": tBox}[name]
		geoFunc1(name, tCircle, result, func(a any) any { return f(a.(Circle)) })
	}
	geoFunc("circle", tCircle, func(a []any) any { return Circle{Center: a[0].(Point), Radius: a[1].(float64)} }, tPoint, Float8)
	addFunc("polygon", Immutable, tPolygon, func(env *Env, a []any) (any, error) {
		return geoPolygonOfCircle(env, a[0].(int64), a[1].(Circle))
	}, Int4, tCircle)
	addFunc("polygon", Immutable, tPolygon, func(env *Env, a []any) (any, error) {
		return geoPolygonOfCircle(env, 12, a[0].(Circle))
	}, tCircle)
	geoBinary("<->", tCircle, tPolygon, Float8, func(a, b any) any { return distCpoly(a.(Circle), b.(Polygon)) })
	geoBinary("<->", tPolygon, tCircle, Float8, func(a, b any) any { return distCpoly(b.(Circle), a.(Polygon)) })
}

func geoPolygonOfCircle(env *Env, n int64, c Circle) (any, error) {
	var err error
	v, perr := geoCall(func() any {
		var p Polygon
		p, err = circlePoly(&geoTicker{env: env}, n, c)
		return p
	})
	if perr != nil {
		return nil, perr
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

func registerLineOps() {
	ll := func(op string, result Type, f func(a, b Line) any) {
		geoBinary(op, tLine, tLine, result, func(a, b any) any { return f(a.(Line), b.(Line)) })
	}
	intersect := func(a, b Line) any { _, ok := lineInterptLine(a, b); return ok }
	parallel := func(a, b Line) any { _, ok := lineInterptLine(a, b); return !ok }
	perp := func(a, b Line) any { return linePerp(a, b) }
	ll("?#", Bool, intersect)
	ll("?||", Bool, parallel)
	ll("?-|", Bool, perp)
	ll("=", Bool, func(a, b Line) any { return lineEq(a, b) })
	ll("#", tPoint, func(a, b Line) any { return nullablePoint(lineInterptLine(a, b)) })
	ll("<->", Float8, func(a, b Line) any { return lineDistance(a, b) })
	geoFunc("isparallel", Bool, func(a []any) any { return parallel(a[0].(Line), a[1].(Line)) }, tLine, tLine)
	geoFunc("isperp", Bool, func(a []any) any { return perp(a[0].(Line), a[1].(Line)) }, tLine, tLine)
	vertical := func(a any) any { return fpZero(a.(Line).B) }
	horizontal := func(a any) any { return fpZero(a.(Line).A) }
	geoUnary("?|", tLine, Bool, vertical)
	geoUnary("?-", tLine, Bool, horizontal)
	geoFunc1("isvertical", tLine, Bool, vertical)
	geoFunc1("ishorizontal", tLine, Bool, horizontal)

	ss := func(op string, result Type, f func(a, b Lseg) any) {
		geoBinary(op, tLseg, tLseg, result, func(a, b any) any { return f(a.(Lseg), b.(Lseg)) })
	}
	sparallel := func(a, b Lseg) any { return fpEq(lsegSl(a), lsegSl(b)) }
	sperp := func(a, b Lseg) any { return fpEq(lsegSl(a), lsegInvsl(b)) }
	ss("?#", Bool, func(a, b Lseg) any { _, ok := lsegInterptLseg(a, b); return ok })
	ss("?||", Bool, sparallel)
	ss("?-|", Bool, sperp)
	ss("=", Bool, func(a, b Lseg) any { return lsegEq(a, b) })
	ss("<>", Bool, func(a, b Lseg) any { return !lsegEq(a, b) })
	ss("<", Bool, func(a, b Lseg) any { return fpLt(pointDt(a[0], a[1]), pointDt(b[0], b[1])) })
	ss("<=", Bool, func(a, b Lseg) any { return fpLe(pointDt(a[0], a[1]), pointDt(b[0], b[1])) })
	ss(">", Bool, func(a, b Lseg) any { return fpGt(pointDt(a[0], a[1]), pointDt(b[0], b[1])) })
	ss(">=", Bool, func(a, b Lseg) any { return fpGe(pointDt(a[0], a[1]), pointDt(b[0], b[1])) })
	ss("#", tPoint, func(a, b Lseg) any { return nullablePoint(lsegInterptLseg(a, b)) })
	ss("<->", Float8, func(a, b Lseg) any { _, d := lsegCloseptLseg(a, b); return d })
	ss("##", tPoint, func(a, b Lseg) any {
		if lsegSl(a) == lsegSl(b) {
			return nil
		}
		return closePoint(lsegCloseptLseg(b, a))
	})
	geoFunc("isparallel", Bool, func(a []any) any { return sparallel(a[0].(Lseg), a[1].(Lseg)) }, tLseg, tLseg)
	geoFunc("isperp", Bool, func(a []any) any { return sperp(a[0].(Lseg), a[1].(Lseg)) }, tLseg, tLseg)
	svertical := func(a any) any { s := a.(Lseg); return fpEq(s[0].X, s[1].X) }
	shorizontal := func(a any) any { s := a.(Lseg); return fpEq(s[0].Y, s[1].Y) }
	length := func(a any) any { s := a.(Lseg); return pointDt(s[0], s[1]) }
	center := func(a any) any { return lsegCenter(a.(Lseg)) }
	geoUnary("?|", tLseg, Bool, svertical)
	geoUnary("?-", tLseg, Bool, shorizontal)
	geoUnary("@-@", tLseg, Float8, length)
	geoUnary("@@", tLseg, tPoint, center)
	geoFunc1("isvertical", tLseg, Bool, svertical)
	geoFunc1("ishorizontal", tLseg, Bool, shorizontal)
	geoFunc1("length", tLseg, Float8, length)
	geoFunc1("point", tLseg, tPoint, center)

	// Segments and lines, segments and boxes, lines and boxes.
	geoBinary("?#", tLseg, tLine, Bool, func(a, b any) any { _, ok := lsegInterptLine(a.(Lseg), b.(Line)); return ok })
	geoBinary("<@", tLseg, tLine, Bool, func(a, b any) any {
		s, l := a.(Lseg), b.(Line)
		return lineContainPoint(l, s[0]) && lineContainPoint(l, s[1])
	})
	geoBinary("<->", tLseg, tLine, Float8, func(a, b any) any { _, d := lsegCloseptLine(a.(Lseg), b.(Line)); return d })
	geoBinary("<->", tLine, tLseg, Float8, func(a, b any) any { _, d := lsegCloseptLine(b.(Lseg), a.(Line)); return d })
	geoBinary("##", tLine, tLseg, tPoint, func(a, b any) any {
		l, s := a.(Line), b.(Lseg)
		if lsegSl(s) == lineSl(l) {
			return nil
		}
		return closePoint(lsegCloseptLine(s, l))
	})
	geoBinary("?#", tLseg, tBox, Bool, func(a, b any) any { _, ok := boxInterptLseg(b.(Box), a.(Lseg)); return ok })
	geoBinary("<@", tLseg, tBox, Bool, func(a, b any) any {
		s, x := a.(Lseg), b.(Box)
		return boxContainPoint(x, s[0]) && boxContainPoint(x, s[1])
	})
	geoBinary("<->", tLseg, tBox, Float8, func(a, b any) any { _, d := boxCloseptLseg(b.(Box), a.(Lseg)); return d })
	geoBinary("<->", tBox, tLseg, Float8, func(a, b any) any { _, d := boxCloseptLseg(a.(Box), b.(Lseg)); return d })
	geoBinary("##", tLseg, tBox, tPoint, func(a, b any) any { return closePoint(boxCloseptLseg(b.(Box), a.(Lseg))) })
	geoBinary("?#", tLine, tBox, Bool, func(a, b any) any { return interLb(a.(Line), b.(Box)) })
}

func registerPathPolygonOps() {
	// Paths.
	geoBinaryErr("+", tPath, tPath, tPath, func(_ *Env, a, b any) (any, error) {
		p1, p2 := a.(Path), b.(Path)
		if p1.Closed || p2.Closed {
			return nil, nil
		}
		pts := append(append(make([]Point, 0, len(p1.Points)+len(p2.Points)), p1.Points...), p2.Points...)
		return Path{Points: pts}, nil
	})
	geoBinaryTicking("?#", tPath, tPath, Bool, func(tk *geoTicker, a, b any) any { return pathInter(tk, a.(Path), b.(Path)) })
	geoBinaryTicking("<->", tPath, tPath, Float8, func(tk *geoTicker, a, b any) any { return pathDistance(tk, a.(Path), b.(Path)) })
	for op, cmp := range map[string]func(a, b int) bool{
		"<": func(a, b int) bool { return a < b }, ">": func(a, b int) bool { return a > b },
		"=": func(a, b int) bool { return a == b }, "<=": func(a, b int) bool { return a <= b },
		">=": func(a, b int) bool { return a >= b },
	} {
		cmp := cmp
		geoBinaryErr(op, tPath, tPath, Bool, func(_ *Env, a, b any) (any, error) {
			return cmp(len(a.(Path).Points), len(b.(Path).Points)), nil
		})
	}
	npoints := func(a any) any {
		if p, ok := a.(Path); ok {
			return int64(len(p.Points))
		}
		return int64(len(a.(Polygon)))
	}
	pathLen := func(a any) any { return pathLength(a.(Path)) }
	geoUnary("#", tPath, Int4, npoints)
	geoUnary("@-@", tPath, Float8, pathLen)
	geoFunc1("npoints", tPath, Int4, npoints)
	geoFunc1("length", tPath, Float8, pathLen)
	geoFunc1("area", tPath, Float8, func(a any) any { return pathArea(a.(Path)) })
	geoFunc1("isclosed", tPath, Bool, func(a any) any { return a.(Path).Closed })
	geoFunc1("isopen", tPath, Bool, func(a any) any { return !a.(Path).Closed })
	geoFunc1("pclose", tPath, tPath, func(a any) any { p := a.(Path); p.Closed = true; return p })
	geoFunc1("popen", tPath, tPath, func(a any) any { p := a.(Path); p.Closed = false; return p })
	addFunc("polygon", Immutable, tPolygon, func(_ *Env, a []any) (any, error) { return pathPoly(a[0].(Path)) }, tPath)

	// Polygons.
	gg := func(op string, result Type, f func(a, b Polygon) any) {
		geoBinary(op, tPolygon, tPolygon, result, func(a, b any) any { return f(a.(Polygon), b.(Polygon)) })
	}
	bound := func(f func(a, b Box) bool) func(a, b Polygon) any {
		return func(a, b Polygon) any { return f(polyBoundBox(a), polyBoundBox(b)) }
	}
	gg("<<", Bool, bound(func(a, b Box) bool { return a.High.X < b.Low.X }))
	gg("&<", Bool, bound(func(a, b Box) bool { return a.High.X <= b.High.X }))
	gg(">>", Bool, bound(func(a, b Box) bool { return a.Low.X > b.High.X }))
	gg("&>", Bool, bound(func(a, b Box) bool { return a.Low.X >= b.Low.X }))
	gg("<<|", Bool, bound(func(a, b Box) bool { return a.High.Y < b.Low.Y }))
	gg("&<|", Bool, bound(func(a, b Box) bool { return a.High.Y <= b.High.Y }))
	gg("|>>", Bool, bound(func(a, b Box) bool { return a.Low.Y > b.High.Y }))
	gg("|&>", Bool, bound(func(a, b Box) bool { return a.Low.Y >= b.Low.Y }))
	long := func(op string, result Type, f func(tk *geoTicker, a, b Polygon) any) {
		geoBinaryTicking(op, tPolygon, tPolygon, result, func(tk *geoTicker, a, b any) any { return f(tk, a.(Polygon), b.(Polygon)) })
	}
	long("~=", Bool, func(tk *geoTicker, a, b Polygon) any { return polySame(tk, a, b) })
	long("&&", Bool, func(tk *geoTicker, a, b Polygon) any { return polyOverlap(tk, a, b) })
	long("@>", Bool, func(tk *geoTicker, a, b Polygon) any { return polyContainPoly(tk, a, b) })
	long("<@", Bool, func(tk *geoTicker, a, b Polygon) any { return polyContainPoly(tk, b, a) })
	long("<->", Float8, func(tk *geoTicker, a, b Polygon) any { return polyDistance(tk, a, b) })
	center := func(a any) any { return polyToCircle(a.(Polygon)).Center }
	geoUnary("#", tPolygon, Int4, npoints)
	geoUnary("@@", tPolygon, tPoint, center)
	geoFunc1("npoints", tPolygon, Int4, npoints)
	geoFunc1("point", tPolygon, tPoint, center)
	geoFunc1("box", tPolygon, tBox, func(a any) any { return polyBoundBox(a.(Polygon)) })
	geoFunc1("circle", tPolygon, tCircle, func(a any) any { return polyToCircle(a.(Polygon)) })
	geoFunc1("path", tPolygon, tPath, func(a any) any { return Path{Closed: true, Points: a.(Polygon)} })
}

// pathPoly is path_poly.
func pathPoly(p Path) (any, error) {
	if !p.Closed {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "open path cannot be converted to polygon")
	}
	return Polygon(p.Points), nil
}

// registerGeoCasts registers pg_cast's entries among the geometric types.
func registerGeoCasts() {
	geoCast(OidPoint, OidBox, CastAssignment, func(a any) any { p := a.(Point); return Box{High: p, Low: p} })
	geoCast(OidLseg, OidPoint, CastExplicit, func(a any) any { return lsegCenter(a.(Lseg)) })
	addCast(OidPath, OidPolygon, CastAssignment, func(_ *Env, v any) (any, error) { return pathPoly(v.(Path)) })
	geoCast(OidBox, OidPoint, CastExplicit, func(a any) any { return boxCn(a.(Box)) })
	geoCast(OidBox, OidLseg, CastExplicit, func(a any) any { b := a.(Box); return Lseg{b.High, b.Low} })
	geoCast(OidBox, OidPolygon, CastAssignment, func(a any) any { return boxPoly(a.(Box)) })
	geoCast(OidBox, OidCircle, CastExplicit, func(a any) any { return boxCircle(a.(Box)) })
	geoCast(OidPolygon, OidPoint, CastExplicit, func(a any) any { return polyToCircle(a.(Polygon)).Center })
	geoCast(OidPolygon, OidPath, CastAssignment, func(a any) any { return Path{Closed: true, Points: a.(Polygon)} })
	geoCast(OidPolygon, OidBox, CastExplicit, func(a any) any { return polyBoundBox(a.(Polygon)) })
	geoCast(OidPolygon, OidCircle, CastExplicit, func(a any) any { return polyToCircle(a.(Polygon)) })
	geoCast(OidCircle, OidPoint, CastExplicit, func(a any) any { return a.(Circle).Center })
	geoCast(OidCircle, OidBox, CastExplicit, func(a any) any { return circleBox(a.(Circle)) })
	addCast(OidCircle, OidPolygon, CastExplicit, func(env *Env, v any) (any, error) { return geoPolygonOfCircle(env, 12, v.(Circle)) })
}

// FixedArrayOf reports whether t subscripts as PostgreSQL's fixed-length
// arrays do (raw_array_subscript_handler): point and line as float8
// arrays of 2 and 3, lseg and box as arrays of 2 points, from 0.
func FixedArrayOf(t Type) (elem Type, n int, ok bool) {
	switch t.Oid {
	case OidPoint:
		return Float8, 2, true
	case OidLine:
		return Float8, 3, true
	case OidLseg, OidBox:
		return tPoint, 2, true
	}
	return Type{}, 0, false
}

// FixedArrayElement is v's element i of a fixed-length array type
// (FixedArrayOf), nil out of range.
func FixedArrayElement(v any, i int64) any {
	if i < 0 {
		return nil
	}
	switch x := v.(type) {
	case Point:
		return pickElement(i, x.X, x.Y)
	case Line:
		return pickElement(i, x.A, x.B, x.C)
	case Lseg:
		return pickElement(i, x[0], x[1])
	case Box:
		return pickElement(i, x.High, x.Low)
	}
	return nil
}

func pickElement[T any](i int64, elems ...T) any {
	if i >= int64(len(elems)) {
		return nil
	}
	return elems[i]
}

// WithFixedArrayElement is v with element i of a fixed-length array type
// replaced by e, as array_set_element does for them: a box's corners are
// not reordered. i must be in range.
func WithFixedArrayElement(v any, i int64, e any) any {
	switch x := v.(type) {
	case Point:
		f := [2]float64{x.X, x.Y}
		f[i] = e.(float64)
		return Point{f[0], f[1]}
	case Line:
		f := [3]float64{x.A, x.B, x.C}
		f[i] = e.(float64)
		return Line{f[0], f[1], f[2]}
	case Lseg:
		x[i] = e.(Point)
		return x
	case Box:
		if i == 0 {
			x.High = e.(Point)
		} else {
			x.Low = e.(Point)
		}
		return x
	}
	return v
}

// geoOperatorFunctions are the functions of pg_operator.oprcode that
// compute the geometric operators, which SQL may call by name too.
var geoOperatorFunctions = []struct {
	fn, op string
	l, r   Type
}{
	{"point_distance", "<->", tPoint, tPoint},
	{"box_above_eq", ">^", tBox, tBox},
	{"box_below_eq", "<^", tBox, tBox},
	{"box_overlap", "&&", tBox, tBox},
	{"box_ge", ">=", tBox, tBox},
	{"box_gt", ">", tBox, tBox},
	{"box_eq", "=", tBox, tBox},
	{"box_lt", "<", tBox, tBox},
	{"box_le", "<=", tBox, tBox},
	{"point_above", "|>>", tPoint, tPoint},
	{"point_left", "<<", tPoint, tPoint},
	{"point_right", ">>", tPoint, tPoint},
	{"point_below", "<<|", tPoint, tPoint},
	{"point_eq", "~=", tPoint, tPoint},
	{"on_pb", "<@", tPoint, tBox},
	{"on_ppath", "<@", tPoint, tPath},
	{"box_center", "@@", Type{}, tBox},
	{"box_same", "~=", tBox, tBox},
	{"box_contain", "@>", tBox, tBox},
	{"box_left", "<<", tBox, tBox},
	{"box_overleft", "&<", tBox, tBox},
	{"box_overright", "&>", tBox, tBox},
	{"box_right", ">>", tBox, tBox},
	{"box_contained", "<@", tBox, tBox},
	{"box_contain_pt", "@>", tBox, tPoint},
	{"lseg_center", "@@", Type{}, tLseg},
	{"poly_center", "@@", Type{}, tPolygon},
	{"line_distance", "<->", tLine, tLine},
	{"inter_sl", "?#", tLseg, tLine},
	{"inter_lb", "?#", tLine, tBox},
	{"poly_same", "~=", tPolygon, tPolygon},
	{"poly_contain", "@>", tPolygon, tPolygon},
	{"poly_left", "<<", tPolygon, tPolygon},
	{"poly_overleft", "&<", tPolygon, tPolygon},
	{"poly_overright", "&>", tPolygon, tPolygon},
	{"poly_right", ">>", tPolygon, tPolygon},
	{"poly_contained", "<@", tPolygon, tPolygon},
	{"poly_overlap", "&&", tPolygon, tPolygon},
	{"dist_bp", "<->", tBox, tPoint},
	{"lseg_distance", "<->", tLseg, tLseg},
	{"lseg_interpt", "#", tLseg, tLseg},
	{"dist_ps", "<->", tPoint, tLseg},
	{"dist_pb", "<->", tPoint, tBox},
	{"dist_sb", "<->", tLseg, tBox},
	{"close_ps", "##", tPoint, tLseg},
	{"close_pb", "##", tPoint, tBox},
	{"close_sb", "##", tLseg, tBox},
	{"on_ps", "<@", tPoint, tLseg},
	{"path_distance", "<->", tPath, tPath},
	{"dist_ppath", "<->", tPoint, tPath},
	{"on_sb", "<@", tLseg, tBox},
	{"inter_sb", "?#", tLseg, tBox},
	{"dist_sp", "<->", tLseg, tPoint},
	{"dist_bs", "<->", tBox, tLseg},
	{"dist_pathp", "<->", tPath, tPoint},
	{"dist_lp", "<->", tLine, tPoint},
	{"dist_ls", "<->", tLine, tLseg},
	{"dist_pl", "<->", tPoint, tLine},
	{"dist_sl", "<->", tLseg, tLine},
	{"dist_cpoly", "<->", tCircle, tPolygon},
	{"poly_distance", "<->", tPolygon, tPolygon},
	{"dist_polyc", "<->", tPolygon, tCircle},
	{"on_pl", "<@", tPoint, tLine},
	{"on_sl", "<@", tLseg, tLine},
	{"close_pl", "##", tPoint, tLine},
	{"path_inter", "?#", tPath, tPath},
	{"box_distance", "<->", tBox, tBox},
	{"box_intersect", "#", tBox, tBox},
	{"path_n_lt", "<", tPath, tPath},
	{"path_n_gt", ">", tPath, tPath},
	{"path_n_eq", "=", tPath, tPath},
	{"path_n_le", "<=", tPath, tPath},
	{"path_n_ge", ">=", tPath, tPath},
	{"path_length", "@-@", Type{}, tPath},
	{"point_ne", "<>", tPoint, tPoint},
	{"point_vert", "?|", tPoint, tPoint},
	{"point_horiz", "?-", tPoint, tPoint},
	{"lseg_intersect", "?#", tLseg, tLseg},
	{"lseg_parallel", "?||", tLseg, tLseg},
	{"lseg_perp", "?-|", tLseg, tLseg},
	{"lseg_vertical", "?|", Type{}, tLseg},
	{"lseg_horizontal", "?-", Type{}, tLseg},
	{"lseg_eq", "=", tLseg, tLseg},
	{"circle_add_pt", "+", tCircle, tPoint},
	{"circle_sub_pt", "-", tCircle, tPoint},
	{"circle_mul_pt", "*", tCircle, tPoint},
	{"circle_div_pt", "/", tCircle, tPoint},
	{"box_add", "+", tBox, tPoint},
	{"box_sub", "-", tBox, tPoint},
	{"box_mul", "*", tBox, tPoint},
	{"box_div", "/", tBox, tPoint},
	{"path_contain_pt", "@>", tPath, tPoint},
	{"poly_contain_pt", "@>", tPolygon, tPoint},
	{"pt_contained_poly", "<@", tPoint, tPolygon},
	{"path_npoints", "#", Type{}, tPath},
	{"path_add", "+", tPath, tPath},
	{"path_add_pt", "+", tPath, tPoint},
	{"path_sub_pt", "-", tPath, tPoint},
	{"path_mul_pt", "*", tPath, tPoint},
	{"path_div_pt", "/", tPath, tPoint},
	{"point_add", "+", tPoint, tPoint},
	{"point_sub", "-", tPoint, tPoint},
	{"point_mul", "*", tPoint, tPoint},
	{"point_div", "/", tPoint, tPoint},
	{"poly_npoints", "#", Type{}, tPolygon},
	{"circle_same", "~=", tCircle, tCircle},
	{"circle_contain", "@>", tCircle, tCircle},
	{"circle_left", "<<", tCircle, tCircle},
	{"circle_overleft", "&<", tCircle, tCircle},
	{"circle_overright", "&>", tCircle, tCircle},
	{"circle_right", ">>", tCircle, tCircle},
	{"circle_contained", "<@", tCircle, tCircle},
	{"circle_overlap", "&&", tCircle, tCircle},
	{"circle_below", "<<|", tCircle, tCircle},
	{"circle_above", "|>>", tCircle, tCircle},
	{"circle_eq", "=", tCircle, tCircle},
	{"circle_ne", "<>", tCircle, tCircle},
	{"circle_lt", "<", tCircle, tCircle},
	{"circle_gt", ">", tCircle, tCircle},
	{"circle_le", "<=", tCircle, tCircle},
	{"circle_ge", ">=", tCircle, tCircle},
	{"circle_distance", "<->", tCircle, tCircle},
	{"circle_center", "@@", Type{}, tCircle},
	{"dist_pc", "<->", tPoint, tCircle},
	{"circle_contain_pt", "@>", tCircle, tPoint},
	{"pt_contained_circle", "<@", tPoint, tCircle},
	{"lseg_ne", "<>", tLseg, tLseg},
	{"lseg_lt", "<", tLseg, tLseg},
	{"lseg_le", "<=", tLseg, tLseg},
	{"lseg_gt", ">", tLseg, tLseg},
	{"lseg_ge", ">=", tLseg, tLseg},
	{"lseg_length", "@-@", Type{}, tLseg},
	{"close_ls", "##", tLine, tLseg},
	{"close_lseg", "##", tLseg, tLseg},
	{"line_eq", "=", tLine, tLine},
	{"line_interpt", "#", tLine, tLine},
	{"line_intersect", "?#", tLine, tLine},
	{"line_parallel", "?||", tLine, tLine},
	{"line_perp", "?-|", tLine, tLine},
	{"line_vertical", "?|", Type{}, tLine},
	{"line_horizontal", "?-", Type{}, tLine},
	{"box_below", "<<|", tBox, tBox},
	{"box_overbelow", "&<|", tBox, tBox},
	{"box_overabove", "|&>", tBox, tBox},
	{"box_above", "|>>", tBox, tBox},
	{"poly_below", "<<|", tPolygon, tPolygon},
	{"poly_overbelow", "&<|", tPolygon, tPolygon},
	{"poly_overabove", "|&>", tPolygon, tPolygon},
	{"poly_above", "|>>", tPolygon, tPolygon},
	{"circle_overbelow", "&<|", tCircle, tCircle},
	{"circle_overabove", "|&>", tCircle, tCircle},
	{"dist_ppoly", "<->", tPoint, tPolygon},
	{"dist_cpoint", "<->", tCircle, tPoint},
	{"dist_polyp", "<->", tPolygon, tPoint},
}
