package server

import (
	"fmt"

	"github.com/fickle-db/fickle/internal/cursorpos"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// SQL cursors and the protocol's portals share one namespace, as in
// PostgreSQL: asyncpg binds a named portal, fetches from it with Execute
// and skips rows with MOVE FORWARD n name. The engine runs FETCH, MOVE and
// CLOSE on cursors declared in SQL; the server runs them here when they
// name one of its portals. A portal scans forward only.

// portalOp runs op on the portal it names and reports whether it did;
// extended says the statement came through the extended protocol, whose
// client described it as returning no rows (so FETCH is refused there).
// CLOSE ALL closes the portals and leaves the engine's cursors to the
// engine.
func (c *conn) portalOp(op CursorOp, extended bool) (bool, error) {
	if op.Close && op.Name == "" {
		for name := range c.portals {
			if name != "" {
				delete(c.portals, name)
			}
		}
		return false, nil
	}
	p, ok := c.portals[op.Name]
	if !ok || op.Name == "" {
		return false, nil
	}
	if err := c.beforeStatement(); err != nil {
		return true, err
	}
	if op.Close {
		delete(c.portals, op.Name)
		c.complete("CLOSE CURSOR")
		return true, nil
	}
	if !op.Move && extended {
		return true, pgerror.Unsupported("FETCH from a protocol portal through the extended protocol (use Execute, or MOVE)")
	}
	if p.res == nil {
		ps := p.stmt
		if ps.prep == nil {
			return true, pgerror.Newf(pgerror.InvalidCursorName, "portal \"%s\" cannot be run", op.Name)
		}
		res, err := c.run(ps.st.SQL(), ps.prep, p.params, nil)
		if err != nil {
			return true, err
		}
		if res.Copy != nil {
			return true, pgerror.Newf(pgerror.InvalidCursorName, "portal \"%s\" cannot be run", op.Name)
		}
		p.res = res
	}
	idx, pos, err := cursorpos.Move(len(p.res.Rows), p.sent, false, op.Direction, op.Count)
	if err != nil {
		return true, err
	}
	p.sent = min(pos, len(p.res.Rows))
	if op.Move {
		c.complete(fmt.Sprintf("MOVE %d", len(idx)))
		return true, nil
	}
	rows := make([][]any, len(idx))
	for i, r := range idx {
		rows[i] = p.res.Rows[r]
	}
	if err := c.sendRowDescription(p.res.Columns, nil); err != nil {
		return true, err
	}
	if err := c.sendRows(p.res.Columns, rows, nil); err != nil {
		return true, err
	}
	c.complete(fmt.Sprintf("FETCH %d", len(rows)))
	return true, nil
}
