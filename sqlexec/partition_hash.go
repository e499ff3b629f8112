package sqlexec

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Hash partitioning (PARTITION BY HASH, FOR VALUES WITH (MODULUS m,
// REMAINDER r)). A row belongs to the partition whose remainder is the
// row's hash modulo the partition's modulus; the row's hash combines the
// extended hash of each non-NULL key value under PostgreSQL's partitioning
// seed, exactly as PostgreSQL computes it, so that every row lands in the
// partition PostgreSQL would put it in. Key types fickle cannot hash as
// PostgreSQL does are refused.

// hashPartitionSeed is PostgreSQL's HASH_PARTITION_SEED.
const hashPartitionSeed = 0x7A5B22367996DCFD

// hashable refuses a hash partition key column of a type whose hash fickle
// does not compute as PostgreSQL does.
func (k *partKey) hashable(typ types.Type) error {
	if k.strategy != 'h' || types.HashExtendedSupported(typ) {
		return nil
	}
	return pgerror.Unsupported(fmt.Sprintf("hash partitioning on type %s", typ))
}

// rowHash is PostgreSQL's compute_partition_hash_value of a key.
func (k *partKey) rowHash(x *execCtx, key []any) (uint64, error) {
	var h uint64
	for i, v := range key {
		if v != nil {
			kh, err := k.keyHash(x, i, v)
			if err != nil {
				return 0, err
			}
			h = types.HashCombine64(h, kh)
		}
	}
	return h, nil
}

// hashBound compiles FOR VALUES WITH (MODULUS m, REMAINDER r).
func hashBound(bs *pg_query.PartitionBoundSpec) (*partBound, error) {
	if bs.Modulus <= 0 {
		return nil, pgerror.New(pgerror.InvalidTableDefinition, "modulus for hash partition must be an integer value greater than zero")
	}
	if bs.Remainder < 0 {
		return nil, pgerror.New(pgerror.InvalidTableDefinition, "remainder for hash partition must be an integer value greater than or equal to zero")
	}
	if bs.Remainder >= bs.Modulus {
		return nil, pgerror.New(pgerror.InvalidTableDefinition, "remainder for hash partition must be less than modulus")
	}
	return &partBound{modulus: int(bs.Modulus), remainder: int(bs.Remainder),
		text: fmt.Sprintf("FOR VALUES WITH (modulus %d, remainder %d)", bs.Modulus, bs.Remainder)}, nil
}

// compareHashBounds orders hash bounds by modulus, then remainder.
func compareHashBounds(a, b *partBound) int {
	if a.modulus != b.modulus {
		return a.modulus - b.modulus
	}
	return a.remainder - b.remainder
}

// checkHashPartition applies PostgreSQL's rules to a new hash partition
// name with bound pb among the partitions sibs: every modulus is a factor
// of the next larger one, and no remainder class is taken twice.
func checkHashPartition(name string, pb *partBound, sibs []*tableDesc) error {
	slices.SortFunc(sibs, func(a, b *tableDesc) int { return compareHashBounds(a.bound, b.bound) })
	if len(sibs) == 0 {
		return nil
	}
	factor := func(detail string, args ...any) error {
		return pgerror.New(pgerror.InvalidObjectDefinition, "every hash partition modulus must be a factor of the next larger modulus").
			WithDetail(detail, args...)
	}
	// The greatest existing bound not above the new one, and the next.
	at := -1
	for i, s := range sibs {
		if compareHashBounds(s.bound, pb) <= 0 {
			at = i
		}
	}
	if at < 0 {
		if next := sibs[0].bound.modulus; next%pb.modulus != 0 {
			return factor("The new modulus %d is not a factor of %d, the modulus of existing partition \"%s\".", pb.modulus, next, sibs[0].name)
		}
	} else {
		if prev := sibs[at].bound.modulus; pb.modulus%prev != 0 {
			return factor("The new modulus %d is not divisible by %d, the modulus of existing partition \"%s\".", pb.modulus, prev, sibs[at].name)
		}
		if at+1 < len(sibs) {
			if next := sibs[at+1].bound.modulus; next%pb.modulus != 0 {
				return factor("The new modulus %d is not a factor of %d, the modulus of existing partition \"%s\".", pb.modulus, next, sibs[at+1].name)
			}
		}
	}
	greatest := sibs[len(sibs)-1].bound.modulus
	for r := pb.remainder % greatest; r < greatest; r += pb.modulus {
		for _, s := range sibs {
			if r%s.bound.modulus == s.bound.remainder {
				return pgerror.Newf(pgerror.InvalidObjectDefinition, "partition \"%s\" would overlap partition \"%s\"", name, s.name)
			}
		}
	}
	return nil
}
