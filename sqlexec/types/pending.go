package types

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

func resolveBinaryOp(op string, l, r Type) (*BinaryOp, error) {
	return nil, pgerror.Unsupported("types")
}
func resolveUnaryOp(op string, t Type) (*UnaryOp, error)  { return nil, pgerror.Unsupported("types") }
func resolveFunc(name string, args []Type) (*Func, error) { return nil, pgerror.Unsupported("types") }
func isAggregate(name string) bool                        { return false }
func resolveAggregate(name string, args []Type, star bool) (*Aggregate, error) {
	return nil, pgerror.Unsupported("types")
}
func compare(t Type, a, b any) int               { return 0 }
func appendKey(buf []byte, t Type, v any) []byte { return buf }
func decodeKey(t Type, buf []byte) (any, []byte, error) {
	return nil, nil, pgerror.Unsupported("types")
}
