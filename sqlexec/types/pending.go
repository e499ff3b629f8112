package types

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

func resolveFunc(name string, args []Type) (*Func, error) { return nil, pgerror.Unsupported("types") }
func isAggregate(name string) bool                        { return false }
func resolveAggregate(name string, args []Type, star bool) (*Aggregate, error) {
	return nil, pgerror.Unsupported("types")
}
