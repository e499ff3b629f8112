package sqlexec

import (
	"google.golang.org/protobuf/proto"

	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgencoding"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// copyPlan is the executable form of a COPY.
type copyPlan struct {
	t      *tableDesc
	target []int // table columns, for COPY FROM
	w      *writer
	trg    *triggerSet // the table's INSERT triggers, for COPY FROM
	// router routes the rows of a COPY FROM into a partitioned table to
	// its leaves; partition is the constraint of a partition's rows.
	router    *partRouter
	partition *partCheck
	query     *selectPlan // for COPY TO
	opts      copyOptions
	// where is COPY FROM's WHERE condition over a table row, nil for none.
	where *scalar
	// lateErr fails a COPY FROM once the data flows, as PostgreSQL's
	// fails after it has begun the copy: into a foreign table, or into a
	// view without an INSTEAD OF INSERT trigger.
	lateErr error
	// instead marks a COPY FROM into a view (t its columns): each row
	// goes to the view's INSTEAD OF INSERT triggers (trg).
	instead bool
}

type copyOptions struct {
	format CopyFormat
	delim  byte
	null   string
	header bool
	// headerMatch (HEADER MATCH) checks the header line names the
	// columns copied, in their order, instead of skipping it.
	headerMatch bool
	quote       byte
	escape      byte
	// forceNotNullCols and forceNullCols are the columns FORCE_NOT_NULL
	// and FORCE_NULL name; notNullField and nullField mark the record's
	// fields (in the COPY's column order) they apply to.
	forceNotNullCols, forceNullCols []string
	notNullField, nullField         []bool
	// freeze is COPY FROM's FREEZE: fickle has no frozen rows to write, but
	// keeps PostgreSQL's checks of when FREEZE is allowed.
	freeze bool
	// encoding is the data's encoding (ENCODING); nil for the client's.
	encoding *pgencoding.Encoding
}

func (b *binder) copyPlan(cs *pg_query.CopyStmt) (*stmtPlan, error) {
	if cs.IsProgram || cs.Filename != "" {
		return nil, pgerror.Unsupported("COPY to or from a file or program (use STDIN/STDOUT)")
	}
	opts, err := b.copyOpts(cs.Options, cs.IsFrom)
	if err != nil {
		return nil, err
	}
	if !cs.IsFrom {
		switch {
		case opts.forceNotNullCols != nil:
			return nil, pgerror.New(pgerror.FeatureNotSupported, "COPY force not null only available using COPY FROM")
		case opts.forceNullCols != nil:
			return nil, pgerror.New(pgerror.FeatureNotSupported, "COPY force null only available using COPY FROM")
		}
	}
	cp := &copyPlan{opts: opts}
	var cols []outCol
	if cs.Relation != nil {
		if mv := b.s.lookupTable(b.cat, cs.Relation.Schemaname, cs.Relation.Relname); mv != nil && mv.matview != nil {
			if cs.IsFrom {
				return nil, pgerror.Newf(pgerror.WrongObjectType, "cannot copy to materialized view \"%s\"", mv.name)
			}
			return nil, pgerror.Newf(pgerror.WrongObjectType, "cannot copy from materialized view \"%s\"", mv.name).
				WithHint("Try the COPY (SELECT ...) TO variant.")
		}
		if v := b.s.lookupView(b.cat, cs.Relation.Schemaname, cs.Relation.Relname); v != nil && !cs.IsFrom {
			return nil, pgerror.Newf(pgerror.WrongObjectType, "cannot copy from view \"%s\"", cs.Relation.Relname).
				WithHint("Try the COPY (SELECT ...) TO variant.")
		}
		var t *tableDesc
		if v := b.s.lookupView(b.cat, cs.Relation.Schemaname, cs.Relation.Relname); v != nil && cs.IsFrom && virtualTableFor(cs.Relation.Schemaname, cs.Relation.Relname, nil) == nil {
			t, cp.lateErr, cp.instead = viewTable(v), copyToView(v), true
		} else if t, err = b.targetTable(cs.Relation); err != nil {
			return nil, err
		}
		if t.foreign != nil && !cs.IsFrom {
			return nil, pgerror.Newf(pgerror.WrongObjectType, "cannot copy from foreign table \"%s\"", t.name).
				WithHint("Try the COPY (SELECT ...) TO variant.")
		}
		if t.foreign != nil {
			b.perms = slices.DeleteFunc(b.perms, func(p permCheck) bool { return p.planErr != nil })
			cp.lateErr = b.cat.foreignReadError(t)
		}
		if t.part != nil && !cs.IsFrom {
			return nil, pgerror.Newf(pgerror.WrongObjectType, "cannot copy from partitioned table \"%s\"", t.name).
				WithHint("Try the COPY (SELECT ...) TO variant.")
		}
		cp.t = t
		names := strs(cs.Attlist)
		if len(cs.Attlist) == 0 {
			for _, c := range t.cols {
				if c.generated == nil {
					names = append(names, c.name)
				}
			}
		}
		for _, n := range names {
			i := t.colIndex(n)
			if i < 0 {
				return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", n, t.name)
			}
			if slices.Contains(cp.target, i) {
				return nil, pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" specified more than once", n)
			}
			cp.target = append(cp.target, i)
			c := t.cols[i]
			if c.generated != nil {
				return nil, pgerror.Newf(pgerror.InvalidColumnReference, "column \"%s\" is a generated column", n).
					WithDetail("Generated columns cannot be used in COPY.")
			}
			cols = append(cols, outCol{Name: c.name, typ: c.typ, tableOID: t.oid, attnum: c.attnum})
		}
		if err := cp.markForcedFields(t); err != nil {
			return nil, err
		}
		if cs.IsFrom && cs.WhereClause != nil {
			if err := refuseGeneratedInCopyWhere(t, cs.WhereClause); err != nil {
				return nil, err
			}
			if cp.where, err = b.copyWhere(t, cs.WhereClause); err != nil {
				return nil, err
			}
		}
		if cs.IsFrom {
			inserted := &columnUse{}
			for _, c := range cp.target {
				inserted.attnums = append(inserted.attnums, t.cols[c].attnum)
			}
			noun := "table"
			if cp.instead {
				noun = "view"
			}
			b.requireColumnsAs(b.privRole, t.oid, t.name, noun, 'a', inserted)
			if cp.w, err = b.writerFor(t, false); err != nil {
				return nil, err
			}
			cp.w.requireDefaults(func(c int) bool { return !slices.Contains(cp.target, c) })
			switch {
			case !cp.instead:
				cp.trg, err = b.triggersFor(t, tgInsert, nil)
			case cp.lateErr == nil:
				cp.trg, err = b.insteadTriggers(t, tgInsert, cs.Relation.Location)
			}
			if err != nil {
				return nil, err
			}
			if cp.router, cp.partition, err = b.insertRouting(t, nil); err != nil {
				return nil, err
			}
		} else {
			var targets []*pg_query.Node
			for _, n := range names {
				targets = append(targets, pg_query.MakeResTargetNodeWithVal(pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(n)}, -1), -1))
			}
			// COPY TO of a table copies its own rows only, not its
			// inheritance children's.
			only := proto.Clone(cs.Relation).(*pg_query.RangeVar)
			only.Inh = false
			sel := &pg_query.SelectStmt{TargetList: targets, FromClause: []*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: only}}}}
			if cp.query, err = b.selectStmt(nil, sel, nil); err != nil {
				return nil, err
			}
		}
	} else {
		if cs.IsFrom {
			return nil, pgerror.New(pgerror.SyntaxError, "COPY FROM needs a table")
		}
		if cp.query, err = b.selectNode(nil, cs.Query, nil); err != nil {
			return nil, err
		}
		cols = cp.query.cols
	}
	req := &CopyRequest{In: cs.IsFrom, Format: opts.format, Columns: columnsOf(cols), copy: cp}
	writes := ""
	if cs.IsFrom {
		writes = "COPY FROM"
	}
	// A COPY runs outside the statement path that checks privileges: it
	// checks its own (INSERT on the table it fills, SELECT on what it reads)
	// first, as PostgreSQL's DoCopy does.
	perms := b.perms
	table := ""
	if cp.t != nil {
		table = cp.t.qualifiedName()
	}
	return &stmtPlan{noTxn: true, writes: writes, table: table, exec: func(x *execCtx) (*Result, error) {
		if err := x.s.checkPrivileges(perms); err != nil {
			return nil, err
		}
		if cs.IsFrom && x.s.txn != nil && x.s.txn.readOnly {
			return nil, pgerror.New(pgerror.ReadOnlySqlTransaction, "cannot execute COPY FROM in a read-only transaction")
		}
		if cs.IsFrom {
			if err := copyFromRowSecurity(x.s, cp.t); err != nil {
				return nil, err
			}
			if err := checkCopyFreeze(x.s, cp); err != nil {
				return nil, err
			}
		}
		return &Result{Copy: req}, nil
	}}, nil
}

// copyToView is the error of a COPY FROM into view v, nil when v has an
// INSTEAD OF INSERT row trigger, through which alone PostgreSQL copies
// into a view.
func copyToView(v *viewDesc) error {
	if !slices.ContainsFunc(v.triggers, func(tr *triggerDesc) bool {
		return tr.tgtype&tgInstead != 0 && tr.tgtype&tgInsert != 0 && tr.tgtype&tgRow != 0
	}) {
		return pgerror.Newf(pgerror.WrongObjectType, "cannot copy to view \"%s\"", v.name).
			WithHint("To enable copying to a view, provide an INSTEAD OF INSERT trigger.")
	}
	return nil
}

// copyWhere compiles COPY FROM's WHERE condition over a row of t, with
// PostgreSQL's limits: no subquery, aggregate, window or set-returning
// function.
func (b *binder) copyWhere(t *tableDesc, where *pg_query.Node) (*scalar, error) {
	if containsSubLink(where) {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot use subquery in COPY FROM WHERE condition")
	}
	sc := tableScope(t, t.name)
	sc.noAgg = "COPY FROM WHERE conditions"
	return b.cond(sc, where, "WHERE")
}

// markForcedFields checks the columns that FORCE_NOT_NULL and FORCE_NULL
// name, as PostgreSQL's BeginCopyFrom does, and marks the record fields
// they apply to.
func (cp *copyPlan) markForcedFields(t *tableDesc) error {
	o := &cp.opts
	for _, f := range []struct {
		option string
		names  []string
		marks  *[]bool
	}{{"FORCE_NOT_NULL", o.forceNotNullCols, &o.notNullField}, {"FORCE_NULL", o.forceNullCols, &o.nullField}} {
		if f.names == nil {
			continue
		}
		*f.marks = make([]bool, len(cp.target))
		for _, n := range f.names {
			c := t.colIndex(n)
			if c < 0 {
				return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", n, t.name)
			}
			k := slices.Index(cp.target, c)
			if k < 0 {
				return pgerror.Newf(pgerror.InvalidColumnReference, "%s column \"%s\" not referenced by COPY", f.option, n)
			}
			(*f.marks)[k] = true
		}
	}
	return nil
}

// checkCopyFreeze makes COPY FROM ... FREEZE fail where PostgreSQL's does:
// on a partitioned table, or on a table the current subtransaction neither
// created nor truncated.
func checkCopyFreeze(s *Session, cp *copyPlan) error {
	if !cp.opts.freeze {
		return nil
	}
	if cp.t.part != nil {
		return pgerror.New(pgerror.FeatureNotSupported, "cannot perform COPY FREEZE on a partitioned table")
	}
	if s.txn == nil || !s.txn.freshInCurrent(cp.t.id) {
		return pgerror.New(pgerror.ObjectNotInPrerequisiteState, "cannot perform COPY FREEZE because the table was not created or truncated in the current subtransaction")
	}
	return nil
}

func (b *binder) copyOpts(list []*pg_query.Node, isFrom bool) (copyOptions, error) {
	o := copyOptions{format: CopyText, delim: '\t', null: `\N`, quote: '"', escape: 0}
	var delimSet, nullSet, quoteSet, escapeSet bool
	str := func(d *pg_query.DefElem) string {
		if s := d.Arg.GetString_(); s != nil {
			return s.Sval
		}
		if c := d.Arg.GetAConst(); c != nil && c.GetSval() != nil {
			return c.GetSval().Sval
		}
		return ""
	}
	seen := map[string]bool{}
	for _, n := range list {
		d := n.GetDefElem()
		if seen[d.Defname] {
			return o, b.errAt(pgerror.New(pgerror.SyntaxError, "conflicting or redundant options"), d.Location)
		}
		seen[d.Defname] = true
		switch d.Defname {
		case "format":
			switch strings.ToLower(str(d)) {
			case "text":
			case "csv":
				o.format = CopyCSV
			case "binary":
				o.format = CopyBinary
			default:
				return o, pgerror.Newf(pgerror.InvalidParameterValue, "COPY format \"%s\" not recognized", str(d))
			}
		case "delimiter":
			s := str(d)
			if len(s) != 1 {
				return o, pgerror.New(pgerror.FeatureNotSupported, "COPY delimiter must be a single one-byte character")
			}
			o.delim, delimSet = s[0], true
		case "null":
			o.null, nullSet = str(d), true
		case "header":
			if d.Arg != nil && d.Arg.GetInteger() == nil && strings.EqualFold(str(d), "match") {
				if !isFrom {
					return o, pgerror.Newf(pgerror.FeatureNotSupported, "cannot use \"%s\" with HEADER in COPY TO", str(d))
				}
				o.header, o.headerMatch = true, true
				continue
			}
			var err error
			if o.header, err = defBoolean(d); err != nil {
				return o, pgerror.Newf(pgerror.SyntaxError, "%s requires a Boolean value or \"match\"", d.Defname)
			}
		case "quote":
			s := str(d)
			if len(s) != 1 {
				return o, pgerror.New(pgerror.FeatureNotSupported, "COPY quote must be a single one-byte character")
			}
			o.quote, quoteSet = s[0], true
		case "escape":
			s := str(d)
			if len(s) != 1 {
				return o, pgerror.New(pgerror.FeatureNotSupported, "COPY escape must be a single one-byte character")
			}
			o.escape, escapeSet = s[0], true
		case "force_not_null", "force_null":
			var names []string
			if l := d.Arg.GetList(); l != nil {
				names = strs(l.Items)
			} else {
				return o, pgerror.Newf(pgerror.InvalidParameterValue, "argument to option \"%s\" must be a list of column names", d.Defname)
			}
			if d.Defname == "force_null" {
				o.forceNullCols = names
			} else {
				o.forceNotNullCols = names
			}
		case "freeze":
			var err error
			if o.freeze, err = defBoolean(d); err != nil {
				return o, err
			}
		case "encoding":
			e, ok := pgencoding.Lookup(str(d))
			if !ok {
				return o, b.errAt(pgerror.Newf(pgerror.InvalidParameterValue, "argument to option \"%s\" must be a valid encoding name", d.Defname), d.Location)
			}
			o.encoding = e
		default:
			return o, pgerror.Unsupported("COPY option " + d.Defname)
		}
	}
	if o.format == CopyBinary {
		// PostgreSQL's ProcessCopyOptions, in its order.
		switch {
		case delimSet:
			return o, pgerror.New(pgerror.SyntaxError, "cannot specify DELIMITER in BINARY mode")
		case nullSet:
			return o, pgerror.New(pgerror.SyntaxError, "cannot specify NULL in BINARY mode")
		case o.header:
			return o, pgerror.New(pgerror.FeatureNotSupported, "cannot specify HEADER in BINARY mode")
		case quoteSet:
			return o, pgerror.New(pgerror.FeatureNotSupported, "COPY quote available only in CSV mode")
		case escapeSet:
			return o, pgerror.New(pgerror.FeatureNotSupported, "COPY escape available only in CSV mode")
		}
	}
	if o.format != CopyCSV {
		switch {
		case o.forceNotNullCols != nil:
			return o, pgerror.New(pgerror.FeatureNotSupported, "COPY force not null available only in CSV mode")
		case o.forceNullCols != nil:
			return o, pgerror.New(pgerror.FeatureNotSupported, "COPY force null available only in CSV mode")
		}
	}
	if o.format == CopyCSV {
		if !delimSet {
			o.delim = ','
		}
		if !nullSet {
			o.null = ""
		}
		if o.escape == 0 {
			o.escape = o.quote
		}
	}
	return o, nil
}

// copyConverter is the conversion a text or CSV COPY's data takes to (in)
// or from the server's UTF8: nil for none (UTF8 or SQL_ASCII data). Binary
// data carries text values in the client's encoding, which fickle
// exchanges only when it is the server's.
func (s *Session) copyConverter(o copyOptions, in bool) (*pgencoding.Converter, error) {
	client := s.clientEncoding()
	if o.format == CopyBinary {
		if !client.PassThrough() {
			return nil, pgerror.Unsupported("binary COPY with client_encoding " + client.Name)
		}
		return nil, nil
	}
	e := o.encoding
	if e == nil {
		e = client
	}
	if !e.Supported() {
		utf8, _ := pgencoding.Lookup("UTF8")
		if in {
			return nil, types.NoConversion(e, utf8)
		}
		return nil, types.NoConversion(utf8, e)
	}
	return e.Converter, nil
}

func (s *Session) copyIn(ctx context.Context, req *CopyRequest, data io.Reader) (string, error) {
	cp := req.copy
	if cp == nil || cp.w == nil {
		return "", pgerror.New(pgerror.ProtocolViolation, "not a COPY FROM request")
	}
	implicit := s.txn == nil
	if implicit {
		if err := s.begin(TxnOptions{}, false); err != nil {
			return "", err
		}
	}
	n, err := s.copyInTxn(ctx, req, data)
	if implicit {
		if err != nil {
			_ = s.rollback()
		} else if err = s.commit(); err != nil {
			return "", err
		}
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("COPY %d", n), nil
}

func (s *Session) copyInTxn(ctx context.Context, req *CopyRequest, data io.Reader) (int64, error) {
	if s.txn.readOnly {
		return 0, pgerror.New(pgerror.ReadOnlySqlTransaction, "cannot execute COPY FROM in a read-only transaction")
	}
	if req.copy.lateErr != nil {
		return 0, req.copy.lateErr
	}
	conv, err := s.copyConverter(req.copy.opts, true)
	if err != nil {
		return 0, err
	}
	kv, err := s.kvTxn(ctx)
	if err != nil {
		return 0, err
	}
	s.stmt = req.stmt
	kv.Statement(s.stmt)
	x := &execCtx{ctx: ctx, s: s, txn: kv, env: s.newEnv(), caches: &stmtCaches{}}
	cp := req.copy
	t := cp.t
	given := make([]bool, len(t.cols))
	for _, c := range cp.target {
		given[c] = true
	}
	r := bufio.NewReaderSize(data, 1<<16)
	// COPY FROM fires the table's INSERT triggers as INSERT does: BEFORE
	// ROW ones may change or skip a row (a skipped row is not counted).
	x.stmtMark = kv.WriteMark()
	trg, err := cp.trg.start(x)
	if err != nil {
		return 0, err
	}
	// The rows routed to a partitioned table's leaves fire the leaves' AFTER
	// ROW triggers once every row is in, as INSERT's do.
	leafEvents := &rowQueue{}
	var n int64
	insert := func(row []any) error {
		if n%1024 == 0 {
			if err := x.checkCancel(); err != nil {
				return err
			}
		}
		if err := cp.w.checkInput(x, row); err != nil {
			return err
		}
		if err := cp.w.fillDefaults(x, row, given); err != nil {
			return err
		}
		if cp.where != nil {
			saved := x.row
			x.row = row
			keep, err := cp.where.eval(x)
			x.row = saved
			if err != nil || keep != true {
				return err
			}
		}
		if cp.instead {
			// PostgreSQL counts the row whatever the trigger returns.
			if _, err := trg.instead(x, nil, row); err != nil {
				return err
			}
			n++
			return nil
		}
		row, err := trg.before(x, nil, row)
		if err != nil || row == nil {
			return err
		}
		if cp.router == nil {
			if err := cp.w.validate(x, row, nil); err != nil {
				return err
			}
		}
		if err := cp.partition.check(x, t, row); err != nil {
			return err
		}
		if cp.router != nil {
			if row, _, _, err = cp.router.insert(x, row, nil, leafEvents); err != nil || row == nil {
				return err
			}
		} else if _, err := cp.w.insertRow(x, row); err != nil {
			return err
		}
		trg.after(nil, row)
		n++
		return nil
	}
	// end fires the AFTER triggers of the rows inserted and the statement.
	end := func() error {
		if err := leafEvents.fire(x); err != nil {
			return err
		}
		return trg.afterStatement(x)
	}
	// With a single processor a second goroutine would only add hand-overs;
	// a trigger's SQL (a leaf partition's too) may change the settings the
	// decoder reads.
	if cp.opts.format != CopyBinary && decodesAlone(cp) && cp.trg == nil && cp.router == nil && runtime.GOMAXPROCS(0) > 1 {
		if err := copyTextRowsConcurrently(x, cp, conv, r, insert); err != nil {
			return n, err
		}
		return n, end()
	}
	var next func() ([]any, error)
	insertContext := func(err error) error { return err }
	if cp.opts.format == CopyBinary {
		if next, err = binaryCopyRows(x, req, r); err != nil {
			return 0, err
		}
	} else {
		next, insertContext = textCopyRows(x, cp, conv, r)
	}
	for {
		row, err := next()
		if err == io.EOF {
			return n, end()
		}
		if err != nil {
			return n, err
		}
		if err := insert(row); err != nil {
			return n, insertContext(err)
		}
	}
}

// copyRowSlab is the number of rows whose cells a text COPY allocates at once.
const copyRowSlab = 64

// textCopyRows returns the source of the table rows of a text or CSV COPY
// FROM: each call parses the next record into a row of the table's width
// (columns the COPY does not list stay nil) and returns io.EOF at the end;
// and insertContext, which gives a failure to insert the last row its
// line's context.
func textCopyRows(x *execCtx, cp *copyPlan, conv *pgencoding.Converter, r *bufio.Reader) (next func() ([]any, error), insertContext func(error) error) {
	d := newTextRecordDecoder(x.env, cp, conv)
	var last string
	next = func() ([]any, error) {
		for {
			record, end, err := readRawRecord(r, cp.opts)
			if err != nil {
				return nil, err
			}
			if end {
				return nil, io.EOF // end-of-data marker
			}
			row, header, err := d.decode(record)
			if err != nil {
				return nil, err
			}
			if !header {
				last = record
				return row, nil
			}
		}
	}
	return next, func(err error) error { return copyInsertContext(err, d.table, d.line, last) }
}

// textRecordDecoder turns the records of a text or CSV COPY FROM, in input
// order, into table rows, counting their lines for the errors' context. It
// keeps its own list of the table's columns, so that it may run beside the
// session's statement.
type textRecordDecoder struct {
	env    *types.Env
	table  string
	cols   []*columnDesc
	target []int
	opts   copyOptions
	// conv converts the records to UTF8; nil when they are.
	conv  *pgencoding.Converter
	line  int64
	rec   []copyField // the fields of the last record, reused
	cells []any       // the next rows' cells: one allocation per copyRowSlab rows
	// last is each listed column's last field and its datum: a field
	// repeating the one above it (a fixture's status column, a padded
	// filler) shares its datum instead of parsing and boxing it again.
	last []parsedField
}

// parsedField is a COPY field's text and the datum it was read as.
type parsedField struct {
	text string
	v    any
}

// newTextRecordDecoder returns the decoder of cp's records in env, which
// conv converts to UTF8 (nil: they are UTF8).
func newTextRecordDecoder(env *types.Env, cp *copyPlan, conv *pgencoding.Converter) *textRecordDecoder {
	return &textRecordDecoder{env: env, table: cp.t.name, cols: slices.Clone(cp.t.cols), target: cp.target, opts: cp.opts,
		conv: conv, last: make([]parsedField, len(cp.target))}
}

// decode returns the table row of the next record (columns the COPY does not
// list stay nil), or header true for the header line that HEADER skips.
func (d *textRecordDecoder) decode(record string) (row []any, header bool, err error) {
	first := d.line == 0
	// A CSV field's quoted line breaks count as lines, as PostgreSQL counts.
	d.line += 1 + int64(strings.Count(record, "\n"))
	if d.conv != nil {
		// PostgreSQL converts the data before it parses it, so a
		// conversion's error names the line without its text.
		converted, err := d.conv.ToUTF8([]byte(record))
		if err != nil {
			return nil, false, withWhere(err, fmt.Sprintf("COPY %s, line %d", d.table, d.line))
		}
		record = string(converted)
	}
	if d.rec, err = splitRecord(record, d.opts, d.rec); err != nil {
		return nil, false, d.lineContext(err, record)
	}
	if first && d.opts.header {
		if d.opts.headerMatch {
			return nil, true, d.matchHeader(record)
		}
		return nil, true, nil
	}
	rec, width := d.rec, len(d.cols)
	if len(rec) > len(d.target) {
		return nil, false, d.lineContext(pgerror.New(pgerror.BadCopyFileFormat, "extra data after last expected column"), record)
	}
	if len(d.cells) < width {
		d.cells = make([]any, copyRowSlab*width)
	}
	row = d.cells[:width:width]
	d.cells = d.cells[width:]
	// Each field is converted before the next is looked for, as
	// PostgreSQL's NextCopyFrom does: a short record's first bad field
	// fails before its missing ones.
	for i, c := range d.target {
		if i == len(rec) {
			return nil, false, d.lineContext(pgerror.Newf(pgerror.BadCopyFileFormat, "missing data for column \"%s\"", d.cols[c].name), record)
		}
		text, null := rec[i].text, rec[i].null
		switch {
		case null && d.opts.notNullField != nil && d.opts.notNullField[i]:
			text, null = d.opts.null, false
		case !null && d.opts.nullField != nil && d.opts.nullField[i] && text == d.opts.null:
			null = true
		}
		if null {
			continue
		}
		if last := &d.last[i]; last.v != nil && last.text == text {
			row[c] = last.v
			continue
		}
		v, err := types.ParseTextEnv(d.env, d.cols[c].typ, text)
		if err != nil {
			return nil, false, withWhere(err, fmt.Sprintf("COPY %s, line %d, column %s: \"%s\"", d.table, d.line, d.cols[c].name, copyDataPrintout(text)))
		}
		row[c], d.last[i] = v, parsedField{text, v}
	}
	return row, false, nil
}

// matchHeader checks the header line of a COPY FROM ... HEADER MATCH
// names the columns copied in their order, as PostgreSQL's
// NextCopyFromRawFields does.
func (d *textRecordDecoder) matchHeader(record string) error {
	if len(d.rec) != len(d.target) {
		return d.lineContext(pgerror.Newf(pgerror.BadCopyFileFormat, "wrong number of fields in header line: got %d, expected %d", len(d.rec), len(d.target)), record)
	}
	for i, c := range d.target {
		name := d.cols[c].name
		switch f := d.rec[i]; {
		case f.null:
			return d.lineContext(pgerror.Newf(pgerror.BadCopyFileFormat, "column name mismatch in header line field %d: got null value (\"%s\"), expected \"%s\"", i+1, d.opts.null, name), record)
		case f.text != name:
			return d.lineContext(pgerror.Newf(pgerror.BadCopyFileFormat, "column name mismatch in header line field %d: got \"%s\", expected \"%s\"", i+1, f.text, name), record)
		}
	}
	return nil
}

// lineContext gives err the context of the record just decoded, as
// PostgreSQL's COPY names the line an error is about: its number and text.
func (d *textRecordDecoder) lineContext(err error, record string) error {
	return withWhere(err, fmt.Sprintf("COPY %s, line %d: \"%s\"", d.table, d.line, copyDataPrintout(record)))
}

// copyInsertContext gives err, the failure to insert the row of the record
// at line, PostgreSQL's context: the line and its text for the checks made
// on the row, the line alone for an index's (PostgreSQL inserts index
// entries in batches, away from the line), none for a foreign key (checked
// at the statement's end).
func copyInsertContext(err error, table string, line int64, record string) error {
	switch pgerror.GetCode(err) {
	case pgerror.ForeignKeyViolation:
		return err
	case pgerror.UniqueViolation, pgerror.ExclusionViolation:
		return withWhere(err, fmt.Sprintf("COPY %s, line %d", table, line))
	}
	return withWhere(err, fmt.Sprintf("COPY %s, line %d: \"%s\"", table, line, copyDataPrintout(record)))
}

// copyDataPrintout is s as COPY's error context quotes it: its first 100
// bytes (whole characters) and "..." when longer.
func copyDataPrintout(s string) string {
	const limit = 100
	if len(s) <= limit {
		return s
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// withWhere returns err, as a PostgreSQL error, with context where (a copy:
// err may be a value every statement that fails alike shares).
func withWhere(err error, where string) error {
	e := pgerror.Flatten(err)
	e.Where = where
	return e
}

// binaryCopyRows reads the header of a binary COPY FROM and returns the
// source of its table rows, each field decoded by its column's type.
func binaryCopyRows(x *execCtx, req *CopyRequest, r *bufio.Reader) (func() ([]any, error), error) {
	cp := req.copy
	t := cp.t
	if req.Codec == nil {
		return nil, pgerror.Unsupported("COPY FORMAT binary without a binary codec")
	}
	names := make([]string, len(cp.target))
	for i, c := range cp.target {
		names[i] = t.cols[c].name
	}
	br := newBinaryCopyReader(r, t.name, names)
	if err := br.readHeader(); err != nil {
		return nil, err
	}
	return func() ([]any, error) {
		fields, err := br.next()
		if err != nil {
			return nil, err
		}
		row := make([]any, len(t.cols))
		for i, c := range cp.target {
			if fields[i] == nil {
				continue
			}
			v, err := decodeCopyField(x.env, req.Codec, t.cols[c].typ, fields[i])
			if err != nil {
				return nil, br.withContext(err, i)
			}
			row[c] = v
		}
		return row, nil
	}, nil
}

// copyField is one field of a COPY record: its text, or NULL.
type copyField struct {
	text string
	null bool
}

// readRawRecord reads the text of one COPY record (a CSV record's quoted
// line breaks included, its own line break not); end reports the
// end-of-data marker (\.) and io.EOF the end of the input.
func readRawRecord(r *bufio.Reader, o copyOptions) (record string, end bool, err error) {
	line, err := r.ReadString('\n')
	if err == io.EOF && line == "" {
		return "", false, io.EOF
	}
	if err != nil && err != io.EOF {
		return "", false, err
	}
	if o.format == CopyCSV {
		for strings.Count(line, string(o.quote))%2 == 1 {
			more, err := r.ReadString('\n')
			line += more
			if err != nil {
				break
			}
		}
		if strings.Count(line, string(o.quote))%2 == 1 {
			// Unterminated at the end of the data: a line break read is
			// the quoted field's, as PostgreSQL counts and quotes it.
			return line, false, nil
		}
	}
	line = strings.TrimSuffix(line, "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == `\.` {
		return "", true, nil
	}
	return line, false, nil
}

// splitRecord splits a record that readRawRecord read into its fields,
// unescaped, in rec's storage (reused from call to call).
func splitRecord(line string, o copyOptions, rec []copyField) (fields []copyField, err error) {
	if o.format == CopyCSV {
		return splitCSV(line, o, rec[:0])
	}
	fields = rec[:0]
	for {
		p, rest, more := cutTextField(line, o.delim)
		if p == o.null {
			fields = append(fields, copyField{null: true})
		} else {
			v, err := unescapeText(p)
			if err != nil {
				return nil, err
			}
			fields = append(fields, copyField{text: v})
		}
		if !more {
			return fields, nil
		}
		line = rest
	}
}

// cutTextField cuts a text-format record at its first delimiter that no
// backslash escapes: a backslash takes the next byte literally, so "\\,"
// is a comma inside the field, not the end of it.
func cutTextField(line string, delim byte) (field, rest string, found bool) {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case delim:
			return line[:i], line[i+1:], true
		}
	}
	return line, "", false
}

func unescapeText(s string) (string, error) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('x')
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 8)
			b.WriteByte(byte(v))
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(e)
		}
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func splitCSV(line string, o copyOptions, out []copyField) ([]copyField, error) {
	i := 0
	for {
		var field strings.Builder
		quoted := false
		if i < len(line) && line[i] == o.quote {
			quoted = true
			i++
			for {
				if i >= len(line) {
					return nil, pgerror.New(pgerror.BadCopyFileFormat, "unterminated CSV quoted field")
				}
				c := line[i]
				if c == o.escape && i+1 < len(line) && line[i+1] == o.quote {
					field.WriteByte(o.quote)
					i += 2
					continue
				}
				if c == o.quote {
					i++
					break
				}
				field.WriteByte(c)
				i++
			}
		}
		for i < len(line) && line[i] != o.delim {
			field.WriteByte(line[i])
			i++
		}
		v := field.String()
		out = append(out, copyField{text: v, null: !quoted && v == o.null})
		if i >= len(line) {
			return out, nil
		}
		i++
	}
}

func (s *Session) copyOut(ctx context.Context, req *CopyRequest, emit func([]byte) error) (string, error) {
	cp := req.copy
	if cp == nil || cp.query == nil {
		return "", pgerror.New(pgerror.ProtocolViolation, "not a COPY TO request")
	}
	implicit := s.txn == nil
	if implicit {
		if err := s.begin(TxnOptions{}, false); err != nil {
			return "", err
		}
	}
	conv, err := s.copyConverter(cp.opts, false)
	if err != nil {
		return "", err
	}
	if conv != nil {
		utf8Emit := emit
		emit = func(line []byte) error {
			converted, err := conv.FromUTF8(line)
			if err != nil {
				return err
			}
			return utf8Emit(converted)
		}
	}
	n, err := s.copyOutTxn(ctx, cp, req, emit)
	if implicit {
		if err != nil {
			_ = s.rollback()
		} else if err = s.commit(); err != nil {
			return "", err
		}
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("COPY %d", n), nil
}

func (s *Session) copyOutTxn(ctx context.Context, cp *copyPlan, req *CopyRequest, emit func([]byte) error) (int, error) {
	kv, err := s.kvTxn(ctx)
	if err != nil {
		return 0, err
	}
	s.stmt = req.stmt
	kv.Statement(s.stmt)
	x := &execCtx{ctx: ctx, s: s, txn: kv, env: s.newEnv(), caches: &stmtCaches{}}
	rows, err := cp.query.run(x)
	if err != nil {
		return 0, err
	}
	if cp.opts.format == CopyBinary {
		return len(rows), binaryCopyOut(cp, req, rows, emit)
	}
	o := cp.opts
	var buf bytes.Buffer
	if o.header {
		for i, c := range req.Columns {
			if i > 0 {
				buf.WriteByte(o.delim)
			}
			buf.WriteString(formatCopyField(c.Name, o, len(cp.query.cols) == 1))
		}
		buf.WriteByte('\n')
		if err := emit(append([]byte(nil), buf.Bytes()...)); err != nil {
			return 0, err
		}
	}
	for _, r := range rows {
		buf.Reset()
		for i, v := range r {
			if i > 0 {
				buf.WriteByte(o.delim)
			}
			if v == nil {
				buf.WriteString(o.null)
				continue
			}
			buf.WriteString(formatCopyField(types.FormatTextEnv(x.env, cp.query.cols[i].typ, v), o, len(cp.query.cols) == 1))
		}
		buf.WriteByte('\n')
		if err := emit(append([]byte(nil), buf.Bytes()...)); err != nil {
			return 0, err
		}
	}
	return len(rows), nil
}

// formatCopyField is one field of a COPY TO line; alone says the line has
// no other, where CSV quotes a field that reads as the end-of-data marker.
func formatCopyField(s string, o copyOptions, alone bool) string {
	if o.format == CopyCSV {
		if s == o.null || alone && s == `\.` || strings.ContainsAny(s, string([]byte{o.delim, o.quote, '\n', '\r'})) {
			q := string(o.quote)
			return q + strings.ReplaceAll(s, q, string(o.escape)+q) + q
		}
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c == o.delim {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// binaryCopyOut emits the rows of a COPY TO (FORMAT binary) with the message
// boundaries PostgreSQL uses: the header travels with the first tuple, each
// further tuple is one message, and the trailer is the last.
func binaryCopyOut(cp *copyPlan, req *CopyRequest, rows [][]any, emit func([]byte) error) error {
	if req.Codec == nil {
		return pgerror.Unsupported("COPY FORMAT binary without a binary codec")
	}
	oids := make([]uint32, len(cp.query.cols))
	for i, c := range cp.query.cols {
		oids[i] = uint32(c.typ.Oid)
	}
	buf := appendBinaryCopyHeader(nil)
	for _, r := range rows {
		var err error
		if buf, err = appendBinaryCopyTuple(buf, req.Codec, oids, r); err != nil {
			return err
		}
		if err := emit(buf); err != nil {
			return err
		}
		buf = nil
	}
	return emit(appendBinaryCopyTrailer(buf))
}
