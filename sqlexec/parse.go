package sqlexec

import (
	"errors"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Statement is one parsed SQL statement. It is immutable and shared between
// sessions through the parse cache.
type Statement struct {
	sql string
	// offset is where sql starts in full.
	offset int
	// full is the whole query string the statement came from: parse-node
	// locations are offsets into it.
	full  string
	node  *pg_query.Node
	txn   TxnControl
	isTxn bool
	// txnErr is set for transaction control fickle does not support (two-phase
	// commit); the server reports it when it runs the statement.
	txnErr error
}

// Node returns the statement's parse tree.
func (st *Statement) Node() *pg_query.Node { return st.node }

// TxnControlError returns the error a transaction-control statement fails
// with when run (0A000 for PREPARE TRANSACTION and its kin), or nil.
func (st *Statement) TxnControlError() error { return st.txnErr }

// The parse cache keeps at most parseCacheLimit distinct query texts and
// parseCacheBytes bytes of them (a parse tree takes some tens of times its
// text), and never a text longer than parseCacheMaxText: such statements
// (bulk VALUES, huge IN lists) seldom come back, and a handful of them
// held hundreds of megabytes. When a limit is reached the cache is emptied
// and starts over: cheap, and the hot statements of a workload come back
// at once.
const (
	parseCacheLimit   = 4096
	parseCacheBytes   = 2 << 20
	parseCacheMaxText = 64 << 10
)

// parseCache maps query text to its parsed statements.
type parseCache struct {
	mu struct {
		sync.Mutex
		m     map[string][]*Statement
		bytes int
	}
}

func (c *parseCache) get(sql string) ([]*Statement, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.mu.m[sql]
	return v, ok
}

func (c *parseCache) put(sql string, sts []*Statement) {
	if len(sql) > parseCacheMaxText {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.m == nil || len(c.mu.m) >= parseCacheLimit || c.mu.bytes+len(sql) > parseCacheBytes {
		c.mu.m, c.mu.bytes = make(map[string][]*Statement), 0
	}
	if _, ok := c.mu.m[sql]; !ok {
		c.mu.bytes += len(sql)
	}
	c.mu.m[sql] = sts
}

// parseSQL parses sql into statements, through the cache.
func (e *Engine) parse(sql string) ([]*Statement, error) {
	if sts, ok := e.parsed.get(sql); ok {
		return sts, nil
	}
	sts, err := parseStatements(sql)
	if err != nil {
		return nil, err
	}
	e.parsed.put(sql, sts)
	return sts, nil
}

// parseStatements runs the PostgreSQL parser and splits the result by the
// statements' locations.
func parseStatements(sql string) (sts []*Statement, err error) {
	if strings.IndexByte(sql, 0) >= 0 {
		return nil, pgerror.New(pgerror.SyntaxError, "invalid byte sequence for encoding \"UTF8\": 0x00")
	}
	if !utf8.ValidString(sql) {
		return nil, pgerror.CheckUTF8(sql)
	}
	if err := checkParseDepth(sql); err != nil {
		return nil, err
	}
	res, err := parseTree(sql)
	if at, junk := numericJunk(sql); junk != nil && (err == nil || before(at, sql, err)) {
		return nil, junk
	}
	if err != nil {
		return nil, err
	}
	for _, raw := range res.Stmts {
		start := int(raw.StmtLocation)
		end := len(sql)
		if raw.StmtLen > 0 {
			end = start + int(raw.StmtLen)
		}
		if start < 0 || start > len(sql) || end > len(sql) || end < start {
			start, end = 0, len(sql)
		}
		text := sql[start:end]
		trimmed := strings.TrimLeft(text, " \t\n\r\f\v")
		st := &Statement{sql: strings.TrimSpace(trimmed), offset: start + len(text) - len(trimmed), full: sql, node: raw.Stmt}
		classifyTxnControl(st)
		sts = append(sts, st)
	}
	return sts, nil
}

// before reports whether byte offset at of sql comes before the position of
// syntax error err, which PostgreSQL's lexer would reach later.
func before(at int, sql string, err error) bool {
	var pe *pgerror.Error
	if !errors.As(err, &pe) || pe.Code != pgerror.SyntaxError || pe.Position == 0 {
		return false
	}
	return utf8.RuneCountInString(sql[:at])+1 < pe.Position
}

// parseTree runs PostgreSQL's parser. It decodes the parser's output with
// a recursion limit above what checkParseDepth lets through (the default
// limit failed a chain of about 5,000 operators with a decoder error),
// since a tree node takes two or three levels of its encoding.
func parseTree(sql string) (*pg_query.ParseResult, error) {
	buf, err := pgparser.ParseToProtobuf(sql)
	if err != nil {
		return nil, syntaxError(sql, err)
	}
	res := &pg_query.ParseResult{}
	if err := (proto.UnmarshalOptions{RecursionLimit: 8 * maxParseDepth}).Unmarshal(buf, res); err != nil {
		return nil, pgerror.Wrapf(err, pgerror.StatementTooComplex, "statement too complex to decode: %v", err)
	}
	return res, nil
}

// syntaxError turns a parser error into 42601 with PostgreSQL's 1-based
// character position. An unknown partitioning strategy, which PostgreSQL 15
// finds after parsing, has no position.
func syntaxError(sql string, err error) error {
	var pe *pgparser.Error
	if errors.As(err, &pe) {
		out := pgerror.New(grammarErrorCode(pe.Message), pe.Message)
		if pe.Cursorpos > 0 && !strings.HasPrefix(pe.Message, "unrecognized partitioning strategy") {
			// The parser already counts characters, as PostgreSQL does.
			out = out.WithPosition(pe.Cursorpos)
		}
		return out
	}
	return pgerror.Wrapf(err, pgerror.SyntaxError, "%s", err.Error())
}

// grammarErrorCodes are the SQLSTATEs other than 42601 that PostgreSQL's
// grammar raises, by message (the parser library reports only the
// message).
var grammarErrorCodes = []struct {
	re   *regexp.Regexp
	code pgerror.Code
}{
	{regexp.MustCompile(`^role name ".*" is reserved$|^.* cannot be used as a role name here$`), pgerror.ReservedName},
	{regexp.MustCompile(`not yet implemented$|is not implemented$|^CREATE SCHEMA IF NOT EXISTS cannot include schema elements$|` +
		`^a column list with SET (NULL|DEFAULT) is only supported for ON DELETE actions$`), pgerror.FeatureNotSupported},
	{regexp.MustCompile(`^precision for type float must be|^column number must be in range from 1 to|^unrecognized partitioning strategy`), pgerror.InvalidParameterValue},
	{regexp.MustCompile(`^frame (start|end) cannot be|^frame starting from|^frame ending at`), pgerror.WindowingError},
	{regexp.MustCompile(`^(modulus|remainder) for hash partition provided more than once$`), pgerror.DuplicateObject},
}

// grammarErrorCode is the SQLSTATE of a grammar error's message.
func grammarErrorCode(msg string) pgerror.Code {
	for _, g := range grammarErrorCodes {
		if g.re.MatchString(msg) {
			return g.code
		}
	}
	return pgerror.SyntaxError
}

// classifyTxnControl fills st.txn for transaction-control statements.
func classifyTxnControl(st *Statement) {
	ts := st.node.GetTransactionStmt()
	if ts == nil {
		return
	}
	st.isTxn = true
	tc := TxnControl{Savepoint: ts.SavepointName, Chain: ts.Chain, GID: ts.Gid}
	switch ts.Kind {
	case pg_query.TransactionStmtKind_TRANS_STMT_BEGIN, pg_query.TransactionStmtKind_TRANS_STMT_START:
		tc.Kind = TxnBegin
		opts, err := txnOptions(ts.Options)
		if err != nil {
			st.txnErr = err
		}
		tc.Options = opts
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:
		tc.Kind = TxnCommit
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		tc.Kind = TxnRollback
	case pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		tc.Kind = TxnSavepoint
	case pg_query.TransactionStmtKind_TRANS_STMT_RELEASE:
		tc.Kind = TxnRelease
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		tc.Kind = TxnRollbackTo
	default:
		// The server answers these as PostgreSQL with max_prepared_transactions
		// = 0 (its default) does; run as a statement they are refused.
		switch ts.Kind {
		case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT_PREPARED:
			tc.Kind = TxnCommitPrepared
		case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_PREPARED:
			tc.Kind = TxnRollbackPrepared
		default:
			tc.Kind = TxnPrepare
		}
		st.txnErr = pgerror.Unsupported("two-phase commit (PREPARE TRANSACTION, COMMIT PREPARED, ROLLBACK PREPARED)")
	}
	st.txn = tc
}

// txnOptions reads the DefElem list of BEGIN, START TRANSACTION and SET
// TRANSACTION.
func txnOptions(list []*pg_query.Node) (TxnOptions, error) {
	var o TxnOptions
	for _, n := range list {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "transaction_isolation":
			if c := d.Arg.GetAConst(); c != nil {
				o.Isolation = c.GetSval().GetSval()
			}
		case "transaction_read_only":
			if constTrue(d.Arg) {
				o.ReadOnly = true
			} else {
				o.ReadWrite = true
			}
		case "transaction_deferrable":
			if constTrue(d.Arg) {
				o.Deferrable = true
			} else {
				o.NotDeferrable = true
			}
		default:
			return o, pgerror.Unsupported("transaction option " + d.Defname)
		}
	}
	return o, nil
}

func constTrue(n *pg_query.Node) bool {
	if b := n.GetBoolean(); b != nil {
		return b.Boolval
	}
	if i := n.GetInteger(); i != nil {
		return i.Ival != 0
	}
	c := n.GetAConst()
	if c == nil {
		return false
	}
	if iv := c.GetIval(); iv != nil {
		return iv.Ival != 0
	}
	if b := c.GetBoolval(); b != nil {
		return b.Boolval
	}
	return false
}
