package types

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// fakeCatalog is a RelationResolver over a fixed map.
type fakeCatalog map[string]int64

func (c fakeCatalog) RelationOid(name string) (int64, error) {
	if oid, ok := c[name]; ok {
		return oid, nil
	}
	return 0, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", name)
}

func (c fakeCatalog) RelationName(oid int64) (string, bool) {
	for n, o := range c {
		if o == oid {
			return n, true
		}
	}
	return "", false
}

// TestRegclassGoesThroughTheResolver checks 'name'::regclass, its text
// output, and the numeric forms that need no catalog.
func TestRegclassGoesThroughTheResolver(t *testing.T) {
	env := &Env{Relations: fakeCatalog{"accounts": 16384}}
	v, err := CastEnv(env, "accounts", Unknown, Regclass)
	if err != nil || v != int64(16384) {
		t.Fatalf("'accounts'::regclass = %v, %v", v, err)
	}
	if s, err := CastEnv(env, v, Regclass, Text); err != nil || s != "accounts" {
		t.Errorf("regclass::text = %v, %v", s, err)
	}
	if got := FormatTextEnv(env, Regclass, int64(99)); got != "99" {
		t.Errorf("unknown OID prints %q", got)
	}
	if _, err := CastEnv(env, "nosuch", Unknown, Regclass); pgerror.GetCode(err) != pgerror.UndefinedTable {
		t.Errorf("'nosuch'::regclass: %v", err)
	}
	if v, err := ParseText(Regclass, "1259"); err != nil || v != int64(1259) {
		t.Errorf("numeric regclass without a catalog: %v, %v", v, err)
	}
	if _, err := ParseText(Regclass, "accounts"); pgerror.GetCode(err) != pgerror.FeatureNotSupported {
		t.Errorf("regclass name without a catalog: %v", err)
	}
}
