package sqlexec

import (
	"strconv"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// bloom 1.0: the bloom index access method, its handler blhandler and its
// default operator classes int4_ops and text_ops. A bloom index is lossy:
// PostgreSQL rechecks every row its signatures let through, so a query
// answers as it would without the index. fickle keeps a bloom index as
// it keeps every index and never needs its signatures; the index's
// options (length, col1 .. col32, one per possible key column) are only
// checked and shown.

// bloomMaxKeys is INDEX_MAX_KEYS, the key columns bloom's options cover.
const bloomMaxKeys = 32

func init() {
	indexAmCapabilities["bloom"] = indexAmCapability{multicolumn: true}
	opts := map[string]relOpt{"length": {kind: relOptInt, min: 1, max: 4096}}
	for i := 1; i <= bloomMaxKeys; i++ {
		opts["col"+strconv.Itoa(i)] = relOpt{kind: relOptInt, min: 1, max: 4095}
	}
	indexRelOpts["bloom"] = opts
	internal := types.Type{Oid: oidInternal, Typmod: -1}
	registerExtension(&availableExtension{name: "bloom", version: "1.0", library: "bloom", relocatable: true,
		comment: "bloom access method - signature file based index",
		functions: []extensionFunc{{name: "blhandler", params: []funcParam{{typ: internal, mode: 'i', arg: true}},
			result: types.Type{Oid: oidIndexAmHandler, Typmod: -1}, volatility: 'v', nonStrict: true, symbol: "blhandler",
			eval: func(*execCtx, []any) (any, error) {
				// Only a NULL reaches it; PostgreSQL refuses that as it
				// reads it.
				return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot accept a value of type internal")
			}}},
		accessMethods: []extensionAccessMethod{{name: "bloom", handler: "blhandler", comment: "bloom index access method"}},
		opclasses: []extensionOpclass{
			{name: "int4_ops", method: "bloom", input: types.Int4, isDefault: true},
			{name: "text_ops", method: "bloom", input: types.Text, isDefault: true},
		}})
}

// oidIndexAmHandler is the OID of the pseudo-type index_am_handler.
const oidIndexAmHandler = 325
