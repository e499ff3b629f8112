package types

// The SQL-callable hash support functions of the built-in hash operator
// classes (hashint4, hashint4extended, uuid_hash, ...). Each standard hash
// is the low half of its extended hash under seed 0, as PostgreSQL
// guarantees (hash_func.sql checks it), so both come from HashExtended.

// hashFuncs names, per type, the standard and extended hash functions.
var hashFuncs = []struct {
	t             Type
	name, extName string
}{
	{Int2, "hashint2", "hashint2extended"},
	{Int4, "hashint4", "hashint4extended"},
	{Int8, "hashint8", "hashint8extended"},
	{OidType, "hashoid", "hashoidextended"},
	{Float4, "hashfloat4", "hashfloat4extended"},
	{Float8, "hashfloat8", "hashfloat8extended"},
	{Char, "hashchar", "hashcharextended"},
	{Name, "hashname", "hashnameextended"},
	{BpcharAny, "hashbpchar", "hashbpcharextended"},
	{Time, "time_hash", "time_hash_extended"},
	{Type{OidTimetz, -1}, "timetz_hash", "timetz_hash_extended"},
	{Timestamp, "timestamp_hash", "timestamp_hash_extended"},
	{Interval, "interval_hash", "interval_hash_extended"},
	{UUID, "uuid_hash", "uuid_hash_extended"},
	{PGLSNType, "pg_lsn_hash", "pg_lsn_hash_extended"},
	{MacaddrType, "hashmacaddr", "hashmacaddrextended"},
	{Macaddr8Type, "hashmacaddr8", "hashmacaddr8extended"},
}

func init() {
	for _, h := range hashFuncs {
		t := h.t
		addFunc(h.name, Immutable, Int4, func(_ *Env, a []any) (any, error) {
			return int64(int32(uint32(HashExtended(t, a[0], 0)))), nil
		}, t)
		addFunc(h.extName, Immutable, Int8, func(_ *Env, a []any) (any, error) {
			return int64(HashExtended(t, a[0], uint64(a[1].(int64)))), nil
		}, t, Int8)
	}
}
