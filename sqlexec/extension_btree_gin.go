package sqlexec

import (
	"github.com/fickle-db/fickle/sqlexec/types"
)

// btree_gin 1.3: default GIN operator classes for scalar types, whose
// GIN index holds each row's value as its one key and answers the btree
// comparisons. fickle keeps such an index as it keeps every index, so the
// extension brings its operator classes (pg_opclass, pg_opfamily) without
// the support functions their catalog entries name.

// btreeGinTypes are the input types of btree_gin's classes, each named
// NAME_ops, in the order its scripts (1.0 to 1.3) create them.
var btreeGinTypes = []struct {
	name string
	oid  types.Oid
}{
	{"int2", types.OidInt2}, {"int4", types.OidInt4}, {"int8", types.OidInt8}, {"float4", types.OidFloat4},
	{"float8", types.OidFloat8}, {"money", types.OidMoney}, {"oid", types.OidOid}, {"timestamp", types.OidTimestamp},
	{"timestamptz", types.OidTimestamptz}, {"time", types.OidTime}, {"timetz", types.OidTimetz}, {"date", types.OidDate},
	{"interval", types.OidInterval}, {"macaddr", types.OidMacaddr}, {"inet", types.OidInet}, {"cidr", types.OidCidr},
	{"text", types.OidText}, {"varchar", types.OidVarchar}, {"char", types.OidChar}, {"bytea", types.OidBytea},
	{"bit", types.OidBit}, {"varbit", types.OidVarbit}, {"numeric", types.OidNumeric}, {"macaddr8", types.OidMacaddr8},
	{"enum", types.OidAnyEnum}, {"uuid", types.OidUUID}, {"name", types.OidName}, {"bool", types.OidBool},
	{"bpchar", types.OidBpchar},
}

func init() {
	var classes []extensionOpclass
	for _, t := range btreeGinTypes {
		classes = append(classes, extensionOpclass{name: t.name + "_ops", method: "gin", input: types.Type{Oid: t.oid, Typmod: -1}, isDefault: true})
	}
	registerExtension(&availableExtension{name: "btree_gin", version: "1.3", library: "btree_gin", relocatable: true,
		comment: "support for indexing common datatypes in GIN", otherVersions: []string{"1.0", "1.1", "1.2"}, opclasses: classes})
}
