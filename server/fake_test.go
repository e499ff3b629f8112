package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// fakeEngine is a tiny executor for the protocol tests. It keeps a
// key-value map with transactions and savepoints, so that the server's
// transaction handling is observable, and it insists on the contract the
// server must keep: Execute only inside a transaction, Begin only outside.
//
// Statements (one per ';'-separated piece, case-insensitive keywords):
//
//	BEGIN|START TRANSACTION [ISOLATION LEVEL x]   COMMIT|END [AND CHAIN]
//	ROLLBACK|ABORT [AND CHAIN]   SAVEPOINT s   RELEASE [SAVEPOINT] s
//	ROLLBACK TO [SAVEPOINT] s   PREPARE TRANSACTION 'x'
//	PUT k v          write k=v                     → "PUT 1"
//	GET k            one row (v text), NULL if absent
//	ROWS n           n rows (i int8, t text)
//	PARAMS           one row echoing each $n parameter as its type; the
//	                 types of $1..$9 (text when the client sent 0) are the
//	                 numbers after PARAMS, e.g. "PARAMS 23 25"
//	TYPES            one row with a value of every binary-capable type
//	FAIL code        an error with that SQLSTATE (at Execute)
//	NOTICE           a NOTICE 00000, like DROP TABLE IF EXISTS of a missing table
//	BADPREP          an error at Prepare (42P01)
//	SLEEP ms         waits, or fails with 57014 when cancelled
//	SET name value   changes a setting (TimeZone and application_name are reported)
//	COPYIN           COPY FROM STDIN: counts lines   COPYOUT n: n lines
type fakeEngine struct {
	mu   sync.Mutex
	data map[string]string
	// cancelledSleeps counts the SLEEPs that ended by cancellation.
	cancelledSleeps int
	// infos are the SessionInfos of the sessions opened, in order.
	infos []SessionInfo
}

func newFakeEngine() *fakeEngine { return &fakeEngine{data: map[string]string{}} }

func (e *fakeEngine) NewSession(info SessionInfo) (Session, error) {
	e.mu.Lock()
	e.infos = append(e.infos, info)
	e.mu.Unlock()
	s := &fakeSession{e: e, settings: map[string]string{
		"server_version": "15.0", "client_encoding": "UTF8", "DateStyle": "ISO, MDY", "TimeZone": "UTC",
		"integer_datetimes": "on", "standard_conforming_strings": "on", "application_name": info.ApplicationName,
		"statement_timeout": "0",
	}, changed: map[string]string{}}
	for k, v := range info.StartupParams {
		if _, ok := s.settings[k]; ok {
			s.settings[k] = v
		}
	}
	return s, nil
}

type fakeTxn struct {
	writes     map[string]string
	savepoints []fakeSavepoint
	explicit   bool
}

type fakeSavepoint struct {
	name   string
	writes map[string]string
}

type fakeSession struct {
	notices  []*pgerror.Error
	e        *fakeEngine
	txn      *fakeTxn
	settings map[string]string
	changed  map[string]string
	closed   bool
}

type fakeStmt struct {
	sql   string
	words []string
	ctl   *TxnControl
}

func (st *fakeStmt) SQL() string                { return st.sql }
func (st *fakeStmt) CursorOp() (CursorOp, bool) { return CursorOp{}, false }

func (st *fakeStmt) TxnControl() (TxnControl, bool) {
	if st.ctl == nil {
		return TxnControl{}, false
	}
	return *st.ctl, true
}

type fakePrepared struct {
	st   *fakeStmt
	oids []uint32
	cols []Column
}

func (p *fakePrepared) ParamOIDs() []uint32 { return p.oids }
func (p *fakePrepared) ValueOIDs() []uint32 { return p.oids }
func (p *fakePrepared) Columns() []Column   { return p.cols }

func (s *fakeSession) Close() { s.txn, s.closed = nil, true }

func (s *fakeSession) Parse(sql string) ([]Statement, error) {
	var out []Statement
	for _, piece := range strings.Split(sql, ";") {
		text := strings.TrimSpace(piece)
		if text == "" {
			continue
		}
		if strings.HasPrefix(text, "!") {
			return nil, pgerror.New(pgerror.SyntaxError, `syntax error at or near "!"`).WithPosition(strings.Index(sql, "!") + 1)
		}
		words := strings.Fields(strings.ToUpper(text))
		orig := strings.Fields(text)
		st := &fakeStmt{sql: text, words: words}
		ctl := TxnControl{}
		chain := len(words) >= 3 && words[len(words)-2] == "AND" && words[len(words)-1] == "CHAIN"
		switch {
		case words[0] == "BEGIN" || words[0] == "START":
			ctl.Kind = TxnBegin
			if i := indexOf(words, "LEVEL"); i >= 0 && i+1 < len(words) {
				ctl.Options.Isolation = strings.ToLower(strings.Join(words[i+1:], " "))
			}
		case words[0] == "COMMIT" || words[0] == "END":
			ctl.Kind, ctl.Chain = TxnCommit, chain
		case words[0] == "ROLLBACK" && len(words) > 1 && words[1] == "TO":
			ctl.Kind, ctl.Savepoint = TxnRollbackTo, orig[len(orig)-1]
		case words[0] == "ROLLBACK" || words[0] == "ABORT":
			ctl.Kind, ctl.Chain = TxnRollback, chain
		case words[0] == "SAVEPOINT" && len(words) == 2:
			ctl.Kind, ctl.Savepoint = TxnSavepoint, orig[1]
		case words[0] == "RELEASE":
			ctl.Kind, ctl.Savepoint = TxnRelease, orig[len(orig)-1]
		case words[0] == "PREPARE" && len(words) > 1 && words[1] == "TRANSACTION":
			ctl.Kind = TxnPrepare
		}
		if ctl.Kind != 0 {
			st.ctl = &ctl
		}
		out = append(out, st)
	}
	return out, nil
}

func indexOf(words []string, w string) int {
	for i, x := range words {
		if x == w {
			return i
		}
	}
	return -1
}

func (s *fakeSession) Begin(opts TxnOptions, explicit bool) error {
	if s.txn != nil {
		return fmt.Errorf("fake: Begin inside a transaction")
	}
	if opts.Isolation == "bogus" {
		return pgerror.New(pgerror.InvalidParameterValue, "invalid isolation level")
	}
	s.txn = &fakeTxn{writes: map[string]string{}, explicit: explicit}
	return nil
}

// panicCommit makes the fake's Commit panic, for the panic tests.
var panicCommit bool

func (s *fakeSession) Commit() error {
	if panicCommit {
		s.txn = nil
		panic("commit exploded")
	}
	if s.txn == nil {
		return fmt.Errorf("fake: Commit outside a transaction")
	}
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if _, ok := s.txn.writes["conflict"]; ok {
		s.txn = nil
		return pgerror.New(pgerror.SerializationFailure, "could not serialize access due to concurrent update")
	}
	maps.Copy(s.e.data, s.txn.writes)
	s.txn = nil
	return nil
}

func (s *fakeSession) Rollback() error { s.txn = nil; return nil }

func (s *fakeSession) Savepoint(_ context.Context, name string) error {
	s.txn.savepoints = append(s.txn.savepoints, fakeSavepoint{name: name, writes: maps.Clone(s.txn.writes)})
	return nil
}

func (s *fakeSession) findSavepoint(name string) (int, error) {
	for i := len(s.txn.savepoints) - 1; i >= 0; i-- {
		if s.txn.savepoints[i].name == name {
			return i, nil
		}
	}
	return 0, pgerror.Newf(pgerror.InvalidSavepointSpecification, "savepoint %q does not exist", name)
}

func (s *fakeSession) ReleaseSavepoint(name string) error {
	i, err := s.findSavepoint(name)
	if err == nil {
		s.txn.savepoints = s.txn.savepoints[:i]
	}
	return err
}

func (s *fakeSession) RollbackToSavepoint(name string) error {
	i, err := s.findSavepoint(name)
	if err == nil {
		s.txn.writes = maps.Clone(s.txn.savepoints[i].writes)
		s.txn.savepoints = s.txn.savepoints[:i+1]
	}
	return err
}

func (s *fakeSession) InTxn() bool { return s.txn != nil }

func col(name string, oid uint32) Column {
	return Column{Name: name, TypeOID: oid, TypeSize: -1, TypeMod: -1}
}

// fakeTypes is the row TYPES returns.
var fakeTypes = []struct {
	col Column
	v   any
}{
	{col("b", pgtype.BoolOID), true},
	{col("i2", pgtype.Int2OID), int64(-7)},
	{col("i4", pgtype.Int4OID), int64(1 << 20)},
	{col("i8", pgtype.Int8OID), int64(-1 << 40)},
	{col("f8", pgtype.Float8OID), 2.5},
	{col("t", pgtype.TextOID), "hello"},
	{col("empty", pgtype.TextOID), ""},
	{col("null", pgtype.TextOID), nil},
	{col("by", pgtype.ByteaOID), []byte{0xde, 0xad}},
	{col("d", pgtype.DateOID), time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)},
	{col("u", pgtype.UUIDOID), [16]byte{1, 2, 3}},
}

func (s *fakeSession) Prepare(stmt Statement, oids []uint32) (Prepared, error) {
	st := stmt.(*fakeStmt)
	p := &fakePrepared{st: st}
	switch st.words[0] {
	case "BADPREP":
		return nil, pgerror.New(pgerror.UndefinedTable, `relation "nope" does not exist`)
	case "GET":
		p.cols = []Column{col("v", pgtype.TextOID)}
	case "ROWS":
		p.cols = []Column{col("i", pgtype.Int8OID), col("t", pgtype.TextOID)}
	case "TYPES":
		for _, t := range fakeTypes {
			p.cols = append(p.cols, t.col)
		}
	case "PARAMS":
		for i := 1; i < len(st.words); i++ {
			oid, _ := strconv.Atoi(st.words[i])
			if i-1 < len(oids) && oids[i-1] != 0 {
				oid = int(oids[i-1])
			}
			if oid == 0 {
				oid = pgtype.TextOID
			}
			p.oids = append(p.oids, uint32(oid))
			p.cols = append(p.cols, col("p"+strconv.Itoa(i), uint32(oid)))
		}
	}
	return p, nil
}

func (s *fakeSession) Execute(ctx context.Context, prep Prepared, params []any) (*Result, error) {
	if s.txn == nil {
		return nil, fmt.Errorf("fake: Execute outside a transaction")
	}
	p := prep.(*fakePrepared)
	w := p.st.words
	arg := func(i int) string {
		if i < len(w) {
			return strings.Fields(p.st.sql)[i]
		}
		return ""
	}
	switch w[0] {
	case "PUT":
		s.txn.writes[arg(1)] = arg(2)
		return &Result{Tag: "PUT 1"}, nil
	case "GET":
		v, ok := s.txn.writes[arg(1)]
		if !ok {
			s.e.mu.Lock()
			v, ok = s.e.data[arg(1)]
			s.e.mu.Unlock()
		}
		var d any
		if ok {
			d = v
		}
		return &Result{Columns: p.cols, Rows: [][]any{{d}}, Tag: "SELECT 1"}, nil
	case "ROWS":
		n, _ := strconv.Atoi(arg(1))
		rows := make([][]any, n)
		for i := range rows {
			rows[i] = []any{int64(i), "row " + strconv.Itoa(i)}
		}
		return &Result{Columns: p.cols, Rows: rows, Tag: "SELECT " + strconv.Itoa(n)}, nil
	case "PARAMS":
		return &Result{Columns: p.cols, Rows: [][]any{params}, Tag: "SELECT 1"}, nil
	case "TYPES":
		row := make([]any, len(fakeTypes))
		for i, t := range fakeTypes {
			row[i] = t.v
		}
		return &Result{Columns: p.cols, Rows: [][]any{row}, Tag: "SELECT 1"}, nil
	case "NOTICE":
		n := pgerror.New(pgerror.SuccessfulCompletion, "table \"x\" does not exist, skipping")
		n.Severity = "NOTICE"
		s.notices = append(s.notices, n)
		return &Result{Tag: "DROP TABLE"}, nil
	case "FAIL":
		return nil, pgerror.Newf(pgerror.Code(arg(1)), "failed with %s", arg(1))
	case "SLEEP":
		ms, _ := strconv.Atoi(arg(1))
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
			return &Result{Tag: "SLEEP"}, nil
		case <-ctx.Done():
			s.e.mu.Lock()
			s.e.cancelledSleeps++
			s.e.mu.Unlock()
			return nil, pgerror.New(pgerror.QueryCanceled, "canceling statement")
		}
	case "SET":
		name, value := arg(1), arg(2)
		if s.settings[name] != value {
			s.settings[name] = value
			if name == "TimeZone" || name == "application_name" {
				s.changed[name] = value
			}
		}
		return &Result{Tag: "SET"}, nil
	case "COPYIN":
		return &Result{Copy: &CopyRequest{In: true, Columns: []Column{col("line", pgtype.TextOID)}}}, nil
	case "COPYOUT":
		n, _ := strconv.Atoi(arg(1))
		return &Result{Copy: &CopyRequest{Columns: []Column{col("line", pgtype.TextOID)}, Handle: n}}, nil
	}
	return nil, pgerror.Unsupported("fake statement " + w[0])
}

func (s *fakeSession) CopyIn(ctx context.Context, req *CopyRequest, data io.Reader) (string, error) {
	if s.txn == nil {
		return "", fmt.Errorf("fake: CopyIn outside a transaction")
	}
	sc := bufio.NewScanner(data)
	n := 0
	for sc.Scan() {
		if sc.Text() == `\.` {
			break
		}
		s.txn.writes["copy"+strconv.Itoa(n)] = sc.Text()
		n++
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "COPY " + strconv.Itoa(n), nil
}

func (s *fakeSession) CopyOut(ctx context.Context, req *CopyRequest, emit func([]byte) error) (string, error) {
	n := req.Handle.(int)
	for i := range n {
		if err := emit([]byte(strconv.Itoa(i) + "\tline\n")); err != nil {
			return "", err
		}
	}
	return "COPY " + strconv.Itoa(n), nil
}

func (s *fakeSession) ReportedParameters() map[string]string {
	out := map[string]string{}
	for _, k := range []string{"server_version", "client_encoding", "DateStyle", "TimeZone", "integer_datetimes",
		"standard_conforming_strings", "application_name"} {
		out[k] = s.settings[k]
	}
	return out
}

func (s *fakeSession) TakeChangedParameters() map[string]string {
	out := s.changed
	s.changed = map[string]string{}
	return out
}

func (s *fakeSession) Notified() <-chan struct{} { return nil }
func (s *fakeSession) PrepareTransaction() error {
	return pgerror.New(pgerror.ObjectNotInPrerequisiteState, "prepared transactions are disabled")
}
func (s *fakeSession) TakeNotifications() []Notification { return nil }

func (s *fakeSession) TakeNotices() []*pgerror.Error {
	n := s.notices
	s.notices = nil
	return n
}

func (s *fakeSession) CursorColumns(string) ([]Column, bool) { return nil, false }

func (s *fakeSession) Setting(name string) (string, bool) {
	v, ok := s.settings[name]
	return v, ok
}

func (s *fakeSession) AppendText(buf []byte, c *Column, v any) []byte {
	switch x := v.(type) {
	case bool:
		if x {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case float64:
		return strconv.AppendFloat(buf, x, 'g', -1, 64)
	case string:
		return append(buf, x...)
	case []byte:
		return fmt.Appendf(buf, `\x%x`, x)
	case time.Time:
		return x.AppendFormat(buf, "2006-01-02")
	case [16]byte:
		return fmt.Appendf(buf, "%x-%x-%x-%x-%x", x[0:4], x[4:6], x[6:8], x[8:10], x[10:16])
	}
	return fmt.Appendf(buf, "%v", v)
}

func (s *fakeSession) ParseText(oid uint32, text string) (any, error) {
	switch oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type integer: %q", text)
		}
		return n, nil
	case pgtype.BoolOID:
		return text == "t" || text == "true", nil
	}
	return text, nil
}
