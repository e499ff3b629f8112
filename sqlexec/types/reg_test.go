package types

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// fakeCatalog is a CatalogResolver over a fixed map of names per object
// identifier type.
type fakeCatalog map[Oid]map[string]int64

func (c fakeCatalog) RegIn(t Oid, name string) (int64, error) {
	if oid, ok := c[t][name]; ok {
		return oid, nil
	}
	return 0, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", name)
}

func (c fakeCatalog) RegOut(t Oid, oid int64) (string, bool) {
	for n, o := range c[t] {
		if o == oid {
			return n, true
		}
	}
	return "", false
}

// TestRegTypesGoThroughTheResolver checks 'name'::regclass and
// 'name'::regtype, their text output, and the forms that need no catalog:
// digits alone, '-' for OID 0.
func TestRegTypesGoThroughTheResolver(t *testing.T) {
	env := &Env{Catalog: fakeCatalog{OidRegclass: {"accounts": 16384}, OidRegtype: {"integer": 23}}}
	v, err := CastEnv(env, "accounts", Unknown, Regclass)
	if err != nil || v != int64(16384) {
		t.Fatalf("'accounts'::regclass = %v, %v", v, err)
	}
	if s, err := CastEnv(env, v, Regclass, Text); err != nil || s != "accounts" {
		t.Errorf("regclass::text = %v, %v", s, err)
	}
	if s, err := CastEnv(env, int64(23), Int4, Regtype); err != nil || FormatTextEnv(env, Regtype, s) != "integer" {
		t.Errorf("23::regtype = %v, %v", s, err)
	}
	if got := FormatTextEnv(env, Regclass, int64(99)); got != "99" {
		t.Errorf("unknown OID prints %q", got)
	}
	for _, typ := range []Type{Regclass, Regtype, Regproc, Regnamespace, Regrole} {
		if got := FormatTextEnv(env, typ, int64(0)); got != "-" {
			t.Errorf("0::%s prints %q, want -", typ, got)
		}
	}
	if got := FormatTextEnv(env, Regoper, int64(0)); got != "0" {
		t.Errorf("0::regoper prints %q, want 0", got)
	}
	if _, err := CastEnv(env, "nosuch", Unknown, Regclass); pgerror.GetCode(err) != pgerror.UndefinedTable {
		t.Errorf("'nosuch'::regclass: %v", err)
	}
	if v, err := ParseText(Regclass, "1259"); err != nil || v != int64(1259) {
		t.Errorf("numeric regclass without a catalog: %v, %v", v, err)
	}
	if v, err := ParseText(Regtype, "-"); err != nil || v != int64(0) {
		t.Errorf("'-'::regtype: %v, %v", v, err)
	}
	if _, err := ParseText(Regclass, "accounts"); pgerror.GetCode(err) != pgerror.FeatureNotSupported {
		t.Errorf("regclass name without a catalog: %v", err)
	}
}

// TestVectorsHaveLowerBoundZero pins int2vector's text form and its
// subscripting base, as pg_index.indkey shows them.
func TestVectorsHaveLowerBoundZero(t *testing.T) {
	v, err := ParseText(Int2Vector, " 3  1 ")
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatText(Int2Vector, v, nil); got != "3 1" {
		t.Errorf("int2vector prints %q, want \"3 1\"", got)
	}
	if e, _ := Int2Vector.Elem(); Int2Vector.LowerBound() != 0 || OidVector.LowerBound() != 0 || e != Int2 {
		t.Errorf("vectors: lower bounds %d %d", Int2Vector.LowerBound(), OidVector.LowerBound())
	}
	if _, err := ParseText(Int2Vector, "1 99999"); pgerror.GetCode(err) != pgerror.NumericValueOutOfRange {
		t.Errorf("out-of-range element: %v", err)
	}
}

// TestRecordOutputQuotesAsRecordOut pins record_out's quoting.
func TestRecordOutputQuotesAsRecordOut(t *testing.T) {
	rt := RecordType([]Field{{Name: "x", Type: Int4}, {Name: "s", Type: Text}, {Name: "n", Type: Text}})
	if again := RecordType([]Field{{Name: "x", Type: Int4}, {Name: "s", Type: Text}, {Name: "n", Type: Text}}); again != rt {
		t.Errorf("the same shape registered twice: %v and %v", rt, again)
	}
	if got := FormatText(rt, []any{int64(1), `a "b", c`, nil}, nil); got != `(1,"a ""b"", c",)` {
		t.Errorf("record prints %s", got)
	}
	if f, ok := rt.Fields(); !ok || len(f) != 3 || f[1].Name != "s" {
		t.Errorf("fields %v", f)
	}
}
