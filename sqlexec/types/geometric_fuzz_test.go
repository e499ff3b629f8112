package types

import (
	"errors"
	"testing"
)

// FuzzGeometricOperators parses two geometric values (line input goes
// through line_construct now) and evaluates every geometric operator that
// takes their types: each must return a value or an error, never panic
// (lseg_inside_poly's recursion and point_inside's crossings included).
func FuzzGeometricOperators(f *testing.F) {
	for _, row := range goldenRows(f, "testdata/operators_geometric.golden", 8) {
		if row[0] != "" {
			f.Add(row[0], row[1], row[3], row[4])
		}
	}
	byName := map[string]Type{"point": tPoint, "lseg": tLseg, "path": tPath, "box": tBox, "polygon": tPolygon, "line": tLine, "circle": tCircle}
	f.Fuzz(func(t *testing.T, lt, ls, rt, rs string) {
		ltyp, lok := byName[lt]
		rtyp, rok := byName[rt]
		if !lok || !rok {
			return
		}
		l, err := ParseText(ltyp, ls)
		if err != nil {
			return
		}
		r, err := ParseText(rtyp, rs)
		if err != nil {
			return
		}
		for k, o := range geoOperators {
			switch {
			case k.l == (Type{}) && k.r == ltyp:
				_, _ = o.eval(nil, nil, l)
			case k.l == ltyp && k.r == rtyp:
				_, _ = o.eval(nil, l, r)
			}
		}
	})
}

// TestGeometricOperatorsStopWhenInterrupted: the distance of two paths,
// quadratic in their points, and circle_poly's vertices call
// Env.Interrupt as they go and fail with its error.
func TestGeometricOperatorsStopWhenInterrupted(t *testing.T) {
	stop := errors.New("statement cancelled")
	env := &Env{Interrupter: interruptFunc(func() error { return stop })}
	pts := make([]Point, 1000)
	for i := range pts {
		pts[i] = Point{float64(i), float64(i % 7)}
	}
	op, err := ResolveBinaryOp("<->", tPath, tPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.EvalEnv(env, Path{Points: pts}, Path{Points: pts}); !errors.Is(err, stop) {
		t.Errorf("path <-> path: got %v, want the interruption", err)
	}
	if v, err := op.EvalEnv(&Env{}, Path{Points: pts[:3]}, Path{Points: pts[5:8]}); err != nil || v.(float64) <= 0 {
		t.Errorf("path <-> path without interruption: %v, %v", v, err)
	}
	f, err := ResolveFunc("polygon", []Type{Int4, tCircle})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Eval(env, []any{int64(1 << 20), Circle{Radius: 1}}); !errors.Is(err, stop) {
		t.Errorf("polygon(n, circle): got %v, want the interruption", err)
	}
}
