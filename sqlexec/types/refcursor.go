package types

// OidRefcursor is refcursor, the type of a PL/pgSQL cursor variable: its
// value is the name of the portal (cursor) the variable refers to, held
// as a string like text's.
const OidRefcursor Oid = 1790

// Refcursor is the type refcursor.
var Refcursor = Type{OidRefcursor, -1}

func init() {
	typeInfos[OidRefcursor] = typeInfo{"refcursor", "refcursor", -1, CategoryUser, false}
	typeNames["refcursor"] = OidRefcursor
	arrayTypes[OidRefcursor] = 2201
}
