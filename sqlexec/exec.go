package sqlexec

import (
	"context"
	"errors"
	"io"

	"github.com/fickle-db/fickle/internal/pgerror"
)

var errNoStore = errors.New("sqlexec: Config.Store is nil")

// bgctx is the context of store calls that cannot be cancelled (commit and
// rollback: the transaction must end).
var bgctx = context.Background()

// plan is a prepared statement's executable form.
type plan interface{}

// copyPlan is the executable form of a COPY.
type copyPlan struct{}

func (s *Session) prepare(st *Statement, paramOIDs []uint32) (*Prepared, error) {
	return nil, pgerror.Unsupported("statement")
}

func (s *Session) execute(ctx context.Context, p *Prepared, params []any) (*Result, error) {
	return nil, pgerror.Unsupported("statement")
}

func (s *Session) copyIn(ctx context.Context, req *CopyRequest, data io.Reader) (string, error) {
	return "", pgerror.Unsupported("COPY")
}

func (s *Session) copyOut(ctx context.Context, req *CopyRequest, emit func([]byte) error) (string, error) {
	return "", pgerror.Unsupported("COPY")
}
