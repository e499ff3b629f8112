package types

import "github.com/fickle-db/fickle/internal/pgerror"

// The distance operators <-> of the geometric types, which fickle does not
// compute: they refuse with 0A000, and being there they make an untyped
// 'a' <-> 'b' ambiguous as in PostgreSQL rather than a tsquery phrase.
func init() {
	pairs := [][2]Oid{{OidPoint, OidPoint}, {OidPoint, OidLine}, {OidLine, OidPoint}, {OidPoint, OidLseg}, {OidLseg, OidPoint},
		{OidPoint, OidBox}, {OidBox, OidPoint}, {OidLseg, OidLine}, {OidLine, OidLseg}, {OidLseg, OidBox}, {OidBox, OidLseg},
		{OidPoint, OidPath}, {OidPath, OidPoint}, {OidBox, OidBox}, {OidPath, OidPath}, {OidLine, OidLine}, {OidLseg, OidLseg},
		{OidPolygon, OidPolygon}, {OidCircle, OidCircle}, {OidPoint, OidCircle}, {OidCircle, OidPoint}, {OidPoint, OidPolygon},
		{OidPolygon, OidPoint}, {OidCircle, OidPolygon}, {OidPolygon, OidCircle}}
	for _, p := range pairs {
		addBinary("<->", Type{p[0], -1}, Type{p[1], -1}, Float8, func(_ *Env, _, _ any) (any, error) {
			return nil, pgerror.Unsupported("the distance operator <-> of geometric types")
		})
	}
}
