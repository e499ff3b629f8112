package sqlexec

import (
	"github.com/fickle-db/fickle/sqlexec/types"
)

// btree_gist gives scalar types default gist operator classes, which
// exclusion constraints use to compare a column with = or <> beside a
// range's && (ddl_exclusion.go), and which a gist index of such a column
// takes. fickle installs the extension's operator classes and families
// (pg_opclass, pg_opfamily) without its support functions and its key
// types gbtreekey*, so their opckeytype is 0; an index using them is kept
// as every index is, and an EXCLUDE USING gist element of a type they
// cover takes its class while the extension is installed (pg_index shows
// it, and DROP EXTENSION drops the constraint under CASCADE).
func init() {
	var classes []extensionOpclass
	for _, c := range btreeGistClasses {
		classes = append(classes, extensionOpclass{name: "gist_" + c.name + "_ops", method: "gist", input: types.Type{Oid: c.oid, Typmod: -1}, isDefault: true})
	}
	registerExtension(&availableExtension{name: "btree_gist", version: "1.7", library: "btree_gist", relocatable: true,
		comment:       "support for indexing common datatypes in GiST",
		otherVersions: []string{"1.2", "1.3", "1.4", "1.5", "1.6"}, opclasses: classes})
}

// btreeGistClasses are the input types of btree_gist's operator classes,
// each named gist_NAME_ops, in the order its scripts create them.
var btreeGistClasses = []struct {
	name string
	oid  types.Oid
}{
	{"oid", types.OidOid}, {"int2", types.OidInt2}, {"int4", types.OidInt4}, {"int8", types.OidInt8},
	{"float4", types.OidFloat4}, {"float8", types.OidFloat8}, {"timestamp", types.OidTimestamp},
	{"timestamptz", types.OidTimestamptz}, {"time", types.OidTime}, {"timetz", types.OidTimetz}, {"date", types.OidDate},
	{"interval", types.OidInterval}, {"cash", types.OidMoney}, {"macaddr", types.OidMacaddr}, {"text", types.OidText},
	{"bpchar", types.OidBpchar}, {"bytea", types.OidBytea}, {"numeric", types.OidNumeric}, {"bit", types.OidBit},
	{"vbit", types.OidVarbit}, {"inet", types.OidInet}, {"cidr", types.OidCidr}, {"uuid", types.OidUUID},
	{"macaddr8", types.OidMacaddr8}, {"enum", types.OidAnyEnum}, {"bool", types.OidBool},
}
