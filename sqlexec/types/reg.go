package types

import (
	"slices"
	"strconv"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The object identifier types: an OID that reads and prints as the name of
// a catalog object (regclass a relation, regtype a type, regproc a
// function, ...). The datum is the OID as an int64, as for oid; input and
// output go through Env.Catalog.
const (
	OidRegproc       Oid = 24
	OidRegprocedure  Oid = 2202
	OidRegoper       Oid = 2203
	OidRegoperator   Oid = 2204
	OidRegtype       Oid = 2206
	OidRegnamespace  Oid = 4089
	OidRegrole       Oid = 4096
	OidRegconfig     Oid = 3734
	OidRegdictionary Oid = 3769
)

// The object identifier types without a modifier.
var (
	Regproc       = Type{OidRegproc, -1}
	Regprocedure  = Type{OidRegprocedure, -1}
	Regoper       = Type{OidRegoper, -1}
	Regoperator   = Type{OidRegoperator, -1}
	Regtype       = Type{OidRegtype, -1}
	Regnamespace  = Type{OidRegnamespace, -1}
	Regrole       = Type{OidRegrole, -1}
	Regconfig     = Type{OidRegconfig, -1}
	Regdictionary = Type{OidRegdictionary, -1}
)

// regTypes lists the object identifier types.
var regTypes = []Oid{OidRegclass, OidRegproc, OidRegprocedure, OidRegoper, OidRegoperator, OidRegtype, OidRegnamespace, OidRegrole,
	OidRegconfig, OidRegdictionary}

// IsRegType reports whether oid is one of the object identifier types.
func IsRegType(oid Oid) bool { return isRegType(oid) }

func isRegType(oid Oid) bool {
	return slices.Contains(regTypes, oid)
}

func init() {
	ints := []Oid{OidInt2, OidInt4, OidInt8}
	for _, r := range regTypes {
		for _, from := range ints {
			addCast(from, r, CastImplicit, intToOid)
		}
		addCast(OidOid, r, CastImplicit, identity)
		addCast(r, OidOid, CastImplicit, identity)
		addCast(r, OidInt4, CastAssignment, oidToInt4)
		addCast(r, OidInt8, CastAssignment, identity)
	}
	addCast(OidRegproc, OidRegprocedure, CastImplicit, identity)
	addCast(OidRegprocedure, OidRegproc, CastImplicit, identity)
	addCast(OidRegoper, OidRegoperator, CastImplicit, identity)
	addCast(OidRegoperator, OidRegoper, CastImplicit, identity)
	addCast(OidText, OidRegclass, CastImplicit, fromText(Regclass))
	addCast(OidVarchar, OidRegclass, CastImplicit, fromText(Regclass))
}

// parseReg is the input function of an object identifier type: digits
// alone are the OID itself and '-' is OID 0, as the output functions print
// it; anything else is a name looked up through env.Catalog.
func parseReg(env *Env, t Type, s string) (any, error) {
	if s != "" && allDigits(s) {
		return parseInt(Type{t.Oid, -1}, s)
	}
	if s == "-" {
		return int64(0), nil
	}
	if env == nil || env.Catalog == nil {
		return nil, pgerror.Unsupported(typeInfoOf(t.Oid).name + " names outside a session")
	}
	return env.Catalog.RegIn(t.Oid, s)
}

// formatReg is the output function of an object identifier type: the
// object's name, the number when no object has the OID, and '-' for OID 0
// (regoper and regoperator print 0, as PostgreSQL's do).
func formatReg(env *Env, t Type, oid int64) string {
	if oid == 0 && t.Oid != OidRegoper && t.Oid != OidRegoperator {
		return "-"
	}
	if env != nil && env.Catalog != nil {
		if name, ok := env.Catalog.RegOut(t.Oid, oid); ok {
			return name
		}
	}
	return strconv.FormatInt(oid, 10)
}
