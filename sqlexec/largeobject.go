package sqlexec

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Large objects are kept as PostgreSQL 15 keeps them: a row of
// pg_largeobject_metadata (oid, owner, ACL) per object and its data in
// pages of pg_largeobject (loid, pageno, at most 2048 bytes each, a hole
// read as zeros). Both are hidden tables of the store, one pair per
// database, so that the isolation engine versions, locks and records a
// large object as it does any row: ROLLBACK undoes lo_create and writes,
// other sessions never see an uncommitted object, each read sees a version
// its level allows, and two transactions writing one page conflict as two
// UPDATEs of a row do. Descriptors (lo_open) belong to the session's
// transaction and close with it, or with the subtransaction that opened
// them when it rolls back. lo_import and lo_export, which read and write
// the server's files, stay refused (0A000), as COPY to or from a file is.

// loBlockSize is PostgreSQL's LOBLKSIZE (BLCKSZ / 4).
const loBlockSize = 2048

// loMaxSize is MAX_LARGE_OBJECT_SIZE: INT_MAX pages.
const loMaxSize = int64(math.MaxInt32) * loBlockSize

// lo_open's mode bits, libpq-fs.h's INV_WRITE and INV_READ.
const (
	loInvWrite = 0x20000
	loInvRead  = 0x40000
)

// largeObjectTables are a database's two store tables, created when the
// database first uses a large object.
type largeObjectTables struct {
	mu          sync.Mutex
	created     bool
	meta, pages isolation.TableID
}

// largeObjectTables returns the store tables of the database's large
// objects, creating them on first use.
func (e *Engine) largeObjectTables() (meta, pages isolation.TableID, err error) {
	t := &e.lo
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.created {
		meta, err := e.store.CreateTable(isolation.TableSpec{
			Name:      e.cluster.storeName(e, "pg_catalog", "pg_largeobject_metadata"),
			FormatKey: func(key []byte) string { return strconv.FormatUint(uint64(binary.BigEndian.Uint32(key)), 10) },
		})
		if err != nil {
			return 0, 0, err
		}
		pages, err := e.store.CreateTable(isolation.TableSpec{
			Name: e.cluster.storeName(e, "pg_catalog", "pg_largeobject"),
			FormatKey: func(key []byte) string {
				return fmt.Sprintf("(%d, %d)", binary.BigEndian.Uint32(key), binary.BigEndian.Uint32(key[4:]))
			},
		})
		if err != nil {
			_ = e.store.DropTable(meta)
			return 0, 0, err
		}
		t.meta, t.pages, t.created = meta, pages, true
	}
	return t.meta, t.pages, nil
}

// loMetaKey is the store key of large object oid's metadata row.
func loMetaKey(oid uint32) []byte { return binary.BigEndian.AppendUint32(nil, oid) }

// loPageKey is the store key of page pageno of large object oid.
func loPageKey(oid uint32, pageno int64) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, oid), uint32(pageno))
}

// loMeta is a pg_largeobject_metadata row: acl nil is the default list,
// acldefault('L', owner).
type loMeta struct {
	oid, owner uint32
	acl        []aclItem
}

func (m loMeta) row() []any { return []any{int64(m.oid), int64(m.owner), m.acl} }

func loMetaOf(row []any) loMeta {
	acl, _ := row[2].([]aclItem)
	return loMeta{oid: uint32(row[0].(int64)), owner: uint32(row[1].(int64)), acl: acl}
}

// loDescriptors are a session's open large-object descriptors, valid in
// transaction txn only.
type loDescriptors struct {
	txn  *txnState
	open []*loDesc
}

// loDesc is an open large-object descriptor.
type loDesc struct {
	oid   uint32
	write bool
	// offset is the position of the next read or write.
	offset int64
	// snapshot, for a read-only descriptor, hides the transaction's own
	// writes made after the statement that opened it began, as PostgreSQL
	// reads such a descriptor with that statement's snapshot.
	snapshot isolation.WriteMark
	// depth is the number of savepoints open when it was opened: rolling
	// back to one of them closes it.
	depth int
}

// loCtx is what a large-object function works with: the statement's
// transaction and the database's tables.
type loCtx struct {
	x           *execCtx
	ctx         context.Context
	txn         *isolation.Txn
	meta, pages isolation.TableID
}

func newLoCtx(x *execCtx) (*loCtx, error) {
	meta, pages, err := x.s.engine.largeObjectTables()
	if err != nil {
		return nil, err
	}
	txn := x.txn
	if txn == nil {
		if txn, err = x.s.kvTxn(x.ctx); err != nil {
			return nil, err
		}
	}
	return &loCtx{x: x, ctx: x.ctx, txn: txn, meta: meta, pages: pages}, nil
}

// event runs a large-object function as an event of its own, named after
// the calling statement, and returns what ends it: like a volatile
// routine's statement it sees what the calling statement wrote so far, as
// PostgreSQL's large-object functions see each other's writes within a
// statement. The calling statement goes on in a new event.
func (l *loCtx) event(name string) func() {
	s := l.x.s
	l.txn.Statement(history.Statement{SQL: s.stmt.SQL + " -- in " + name})
	return func() { l.txn.Statement(s.stmt) }
}

// writable refuses a write in a read-only transaction: PostgreSQL 15
// lets large objects change there, which fickle's store does not.
func (l *loCtx) writable(what string) error {
	if l.x.s.txn != nil && l.x.s.txn.readOnly {
		return pgerror.Unsupported(what + " in a read-only transaction")
	}
	return nil
}

// metadata reads large object oid's metadata row.
func (l *loCtx) metadata(oid uint32, ro isolation.ReadOptions) (loMeta, bool, error) {
	row, ok, err := l.txn.Get(l.ctx, l.meta, loMetaKey(oid), ro)
	if err != nil || !ok {
		return loMeta{}, false, err
	}
	return loMetaOf(row), true, nil
}

// existing reads large object oid's metadata, 42704 when there is none.
func (l *loCtx) existing(oid uint32, ro isolation.ReadOptions) (loMeta, error) {
	m, ok, err := l.metadata(oid, ro)
	if err == nil && !ok {
		err = pgerror.Newf(pgerror.UndefinedObject, "large object %d does not exist", oid)
	}
	return m, err
}

// compatPrivileges is lo_compat_privileges: no privilege checks.
func (l *loCtx) compatPrivileges() bool {
	v, _ := l.x.s.settings.get("lo_compat_privileges")
	return v == "on"
}

// holds reports whether the current role holds privilege letter p on m.
func (l *loCtx) holds(m loMeta, p byte) bool {
	role := l.x.s.currentRole()
	if l.x.s.isSuperuser(role) {
		return true
	}
	acl := m.acl
	if acl == nil {
		acl = defaultACL(aclLargeObject, m.owner)
	}
	return aclHolds(acl, l.x.s.memberOf(role), []byte{p})
}

// owns reports whether the current role may act as m's owner.
func (l *loCtx) owns(m loMeta) bool {
	role := l.x.s.currentRole()
	return l.x.s.isSuperuser(role) || l.x.s.memberOf(role)[m.owner]
}

// create makes large object oid (a new OID when 0), owned by the current
// role, as inv_create.
func (l *loCtx) create(oid uint32) (uint32, error) {
	if err := l.writable("lo_create()"); err != nil {
		return 0, err
	}
	chosen := oid == 0
	for {
		if chosen {
			if oid = l.x.s.engine.cluster.newOID(); oid == 0 {
				continue
			}
		}
		m := loMeta{oid: oid, owner: l.x.s.currentRole()}
		_, err := l.txn.Insert(l.ctx, l.meta, loMetaKey(oid), m.row())
		switch {
		case err == nil:
			return oid, nil
		case pgerror.GetCode(err) != pgerror.UniqueViolation:
			return 0, err
		case !chosen:
			return 0, pgerror.Newf(pgerror.UniqueViolation, "duplicate key value violates unique constraint \"pg_largeobject_metadata_oid_index\"").
				WithDetail("Key (oid)=(%d) already exists.", oid).WithConstraint("pg_largeobject_metadata", "pg_largeobject_metadata_oid_index")
		}
	}
}

// open opens large object oid in mode (INV_READ, INV_WRITE or both) as
// inv_open, checking SELECT (and for writing UPDATE) on it.
func (l *loCtx) open(oid uint32, mode int64) (*loDesc, error) {
	write, read := mode&loInvWrite != 0, mode&loInvRead != 0
	if !write && !read {
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid flags for opening a large object: %d", mode)
	}
	d := &loDesc{oid: oid, write: write}
	ro := isolation.ReadOptions{}
	if !write {
		if d.snapshot = l.x.stmtMark; d.snapshot == 0 {
			d.snapshot = l.txn.WriteMark()
		}
		ro.AsOf = d.snapshot
	}
	m, err := l.existing(oid, ro)
	if err != nil {
		return nil, err
	}
	if !l.compatPrivileges() {
		if !l.holds(m, 'r') || write && !l.holds(m, 'w') {
			return nil, pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for large object %d", oid)
		}
	}
	if l.x.s.txn != nil {
		d.depth = len(l.x.s.txn.savepoints)
	}
	return d, nil
}

// readOptions are the options of d's reads.
func (d *loDesc) readOptions() isolation.ReadOptions {
	return isolation.ReadOptions{AsOf: d.snapshot}
}

// size is the large object's length: the end of its last page.
func (l *loCtx) size(d *loDesc) (int64, error) {
	var end int64
	span := isolation.Span{Start: loPageKey(d.oid, 0), End: loPageKey(d.oid+1, 0)}
	if d.oid == math.MaxUint32 {
		span.End = nil
	}
	err := l.txn.Scan(l.ctx, l.pages, span, d.readOptions(), func(key []byte, row []any) (bool, error) {
		end = row[1].(int64)*loBlockSize + int64(len(row[2].([]byte)))
		return true, nil
	})
	return end, err
}

// pagesFrom scans the pages of d's object from pageno on, in order, until
// fn returns false.
func (l *loCtx) pagesFrom(d *loDesc, pageno int64, ro isolation.ReadOptions, fn func(pageno int64, data []byte) bool) error {
	span := isolation.Span{Start: loPageKey(d.oid, pageno), End: loPageKey(d.oid+1, 0)}
	if d.oid == math.MaxUint32 {
		span.End = nil
	}
	err := l.txn.Scan(l.ctx, l.pages, span, ro, func(key []byte, row []any) (bool, error) {
		if !fn(row[1].(int64), row[2].([]byte)) {
			return true, isolation.ErrStop
		}
		return true, nil
	})
	if err == isolation.ErrStop {
		err = nil
	}
	return err
}

// read reads up to n bytes at d's offset and moves it past them, as
// inv_read: holes read as zeros, the object ends with its last page.
func (l *loCtx) read(d *loDesc, n int64) ([]byte, error) {
	if n <= 0 {
		return []byte{}, nil
	}
	out := make([]byte, 0, min(n, 1<<20))
	off := d.offset
	err := l.pagesFrom(d, off/loBlockSize, d.readOptions(), func(pageno int64, data []byte) bool {
		start := pageno * loBlockSize
		if start > off {
			hole := min(start-off, n-int64(len(out)))
			out = append(out, make([]byte, hole)...)
			off += hole
		}
		if int64(len(out)) >= n {
			return false
		}
		if end := start + int64(len(data)); end > off {
			chunk := data[off-start:]
			chunk = chunk[:min(int64(len(chunk)), n-int64(len(out)))]
			out = append(out, chunk...)
			off += int64(len(chunk))
		}
		return int64(len(out)) < n
	})
	if err != nil {
		return nil, err
	}
	d.offset = off
	return out, nil
}

// lockPage takes the write lock on a page and returns its newest data,
// nil when the page does not exist.
func (l *loCtx) lockPage(oid uint32, pageno int64) ([]byte, bool, error) {
	lr, err := l.txn.LockRow(l.ctx, l.pages, loPageKey(oid, pageno), isolation.LockRequest{Mode: isolation.RowLockNoKeyUpdate, Write: true})
	if err != nil || !lr.Live {
		return nil, false, err
	}
	return lr.Row[2].([]byte), true, nil
}

// putPage writes page pageno's data, updating it when it existed.
func (l *loCtx) putPage(oid uint32, pageno int64, data []byte, existed bool) error {
	row := []any{int64(oid), pageno, data}
	if existed {
		return l.txn.Update(l.ctx, l.pages, loPageKey(oid, pageno), row)
	}
	_, err := l.txn.Insert(l.ctx, l.pages, loPageKey(oid, pageno), row)
	return err
}

// write writes buf at d's offset and moves it past, as inv_write.
func (l *loCtx) write(d *loDesc, buf []byte) error {
	if err := l.writable("writing a large object"); err != nil {
		return err
	}
	if len(buf) == 0 {
		return nil
	}
	if d.offset+int64(len(buf)) > loMaxSize {
		return pgerror.Newf(pgerror.InvalidParameterValue, "invalid large object write request size: %d", len(buf))
	}
	for len(buf) > 0 {
		pageno, off := d.offset/loBlockSize, d.offset%loBlockSize
		n := min(int64(len(buf)), loBlockSize-off)
		old, existed, err := l.lockPage(d.oid, pageno)
		if err != nil {
			return err
		}
		page := make([]byte, max(int64(len(old)), off+n))
		copy(page, old)
		copy(page[off:], buf[:n])
		if err := l.putPage(d.oid, pageno, page, existed); err != nil {
			return err
		}
		buf = buf[n:]
		d.offset += n
	}
	return nil
}

// truncate cuts or extends the object to length n, as inv_truncate: the
// page holding the new end gets exactly the bytes before it (zeros where
// there were none) and every later page goes.
func (l *loCtx) truncate(d *loDesc, n int64) error {
	if n < 0 || n > loMaxSize {
		return pgerror.Newf(pgerror.InvalidParameterValue, "invalid large object truncation target: %d", n)
	}
	if err := l.writable("truncating a large object"); err != nil {
		return err
	}
	pageno, off := n/loBlockSize, n%loBlockSize
	var later []int64
	err := l.pagesFrom(d, pageno+1, isolation.ReadOptions{}, func(p int64, _ []byte) bool {
		later = append(later, p)
		return true
	})
	if err != nil {
		return err
	}
	old, existed, err := l.lockPage(d.oid, pageno)
	if err != nil {
		return err
	}
	page := make([]byte, off)
	copy(page, old)
	if err := l.putPage(d.oid, pageno, page, existed); err != nil {
		return err
	}
	for _, p := range later {
		if _, live, err := l.lockPage(d.oid, p); err != nil {
			return err
		} else if live {
			if err := l.txn.Delete(l.ctx, l.pages, loPageKey(d.oid, p)); err != nil {
				return err
			}
		}
	}
	return nil
}

// seek moves d's offset as inv_seek.
func (l *loCtx) seek(d *loDesc, offset, whence int64) (int64, error) {
	var target int64
	switch whence {
	case 0:
		target = offset
	case 1:
		target = d.offset + offset
	case 2:
		size, err := l.size(d)
		if err != nil {
			return 0, err
		}
		target = size + offset
	default:
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "invalid whence setting: %d", whence)
	}
	if target < 0 || target > loMaxSize {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "invalid large object seek target: %d", target)
	}
	d.offset = target
	return target, nil
}

// unlink drops large object oid: its pages, its metadata and, through
// dropComment, its comment. Only its owner may.
func (l *loCtx) unlink(oid uint32, dropComment func() error) error {
	m, err := l.existing(oid, isolation.ReadOptions{})
	if err != nil {
		return err
	}
	if !l.compatPrivileges() && !l.owns(m) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of large object %d", oid)
	}
	if err := l.writable("lo_unlink()"); err != nil {
		return err
	}
	l.x.s.closeLargeObject(oid)
	var pages []int64
	d := &loDesc{oid: oid}
	if err := l.pagesFrom(d, 0, isolation.ReadOptions{}, func(p int64, _ []byte) bool {
		pages = append(pages, p)
		return true
	}); err != nil {
		return err
	}
	for _, p := range pages {
		if _, live, err := l.lockPage(oid, p); err != nil {
			return err
		} else if live {
			if err := l.txn.Delete(l.ctx, l.pages, loPageKey(oid, p)); err != nil {
				return err
			}
		}
	}
	lr, err := l.txn.LockRow(l.ctx, l.meta, loMetaKey(oid), isolation.LockRequest{Mode: isolation.RowLockUpdate, Write: true})
	if err != nil {
		return err
	}
	if !lr.Live {
		return pgerror.Newf(pgerror.UndefinedObject, "large object %d does not exist", oid)
	}
	if err := l.txn.Delete(l.ctx, l.meta, loMetaKey(oid)); err != nil {
		return err
	}
	return dropComment()
}

// updateMeta replaces large object oid's metadata with what edit makes of
// its newest version, under the row's write lock.
func (l *loCtx) updateMeta(oid uint32, edit func(m loMeta) (loMeta, error)) error {
	lr, err := l.txn.LockRow(l.ctx, l.meta, loMetaKey(oid), isolation.LockRequest{Mode: isolation.RowLockNoKeyUpdate, Write: true})
	if err != nil {
		return err
	}
	if !lr.Live {
		return pgerror.Newf(pgerror.UndefinedObject, "large object %d does not exist", oid)
	}
	m, err := edit(loMetaOf(lr.Row))
	if err != nil {
		return err
	}
	return l.txn.Update(l.ctx, l.meta, loMetaKey(oid), m.row())
}

// descriptor returns the session's open descriptor fd.
func (s *Session) loDescriptor(fd int64) (*loDesc, error) {
	if s.lo.txn == s.txn && s.txn != nil && fd >= 0 && fd < int64(len(s.lo.open)) && s.lo.open[fd] != nil {
		return s.lo.open[fd], nil
	}
	return nil, pgerror.Newf(pgerror.UndefinedObject, "invalid large-object descriptor: %d", fd)
}

// addLoDescriptor gives d the lowest free descriptor number.
func (s *Session) addLoDescriptor(d *loDesc) int64 {
	if s.lo.txn != s.txn {
		s.lo = loDescriptors{txn: s.txn}
	}
	for i, o := range s.lo.open {
		if o == nil {
			s.lo.open[i] = d
			return int64(i)
		}
	}
	s.lo.open = append(s.lo.open, d)
	return int64(len(s.lo.open) - 1)
}

// closeLargeObject closes the descriptors of large object oid, which
// lo_unlink drops.
func (s *Session) closeLargeObject(oid uint32) {
	if s.lo.txn != s.txn {
		return
	}
	for i, d := range s.lo.open {
		if d != nil && d.oid == oid {
			s.lo.open[i] = nil
		}
	}
}

// endLoSubtransaction follows the end of the subtransaction at depth
// (savepoints open inside it): a rollback closes the descriptors it
// opened, a release hands them to the enclosing one.
func (s *Session) endLoSubtransaction(depth int, committed bool) {
	if s.lo.txn != s.txn {
		return
	}
	for i, d := range s.lo.open {
		if d == nil || d.depth <= depth {
			continue
		}
		if committed {
			d.depth = depth
		} else {
			s.lo.open[i] = nil
		}
	}
}

// The server-side large-object functions of PostgreSQL's be-fsstubs.c.
func init() {
	oid, i4, i8, bytea, void := types.OidType, types.Int4, types.Int8, types.Bytea, types.Void
	fn := func(name string, args []types.Type, result types.Type, eval func(l *loCtx, a []any) (any, error)) {
		addSysFunc(name, sysFunc{args: args, result: result, volatile: true, eval: func(x *execCtx, a []any) (any, error) {
			l, err := newLoCtx(x)
			if err != nil {
				return nil, err
			}
			defer l.event(name)()
			return eval(l, a)
		}})
	}
	withFD := func(name string, args []types.Type, result types.Type, eval func(l *loCtx, d *loDesc, a []any) (any, error)) {
		fn(name, args, result, func(l *loCtx, a []any) (any, error) {
			d, err := l.x.s.loDescriptor(a[0].(int64))
			if err != nil {
				return nil, err
			}
			return eval(l, d, a)
		})
	}
	forWriting := func(d *loDesc, fd int64) error {
		if !d.write {
			return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "large object descriptor %d was not opened for writing", fd)
		}
		return nil
	}
	int32Result := func(v int64, what string, fd int64) (any, error) {
		if v != int64(int32(v)) {
			return nil, pgerror.Newf(pgerror.NumericValueOutOfRange, "%s result out of range for large-object descriptor %d", what, fd)
		}
		return v, nil
	}
	fn("lo_create", []types.Type{oid}, oid, func(l *loCtx, a []any) (any, error) {
		o, err := l.create(uint32(a[0].(int64)))
		return int64(o), err
	})
	fn("lo_creat", []types.Type{i4}, oid, func(l *loCtx, a []any) (any, error) {
		o, err := l.create(0)
		return int64(o), err
	})
	fn("lo_open", []types.Type{oid, i4}, i4, func(l *loCtx, a []any) (any, error) {
		d, err := l.open(uint32(a[0].(int64)), a[1].(int64))
		if err != nil {
			return nil, err
		}
		return l.x.s.addLoDescriptor(d), nil
	})
	withFD("lo_close", []types.Type{i4}, i4, func(l *loCtx, d *loDesc, a []any) (any, error) {
		l.x.s.lo.open[a[0].(int64)] = nil
		return int64(0), nil
	})
	withFD("loread", []types.Type{i4, i4}, bytea, func(l *loCtx, d *loDesc, a []any) (any, error) {
		return l.read(d, a[1].(int64))
	})
	withFD("lowrite", []types.Type{i4, bytea}, i4, func(l *loCtx, d *loDesc, a []any) (any, error) {
		if err := forWriting(d, a[0].(int64)); err != nil {
			return nil, err
		}
		buf := a[1].([]byte)
		return int64(len(buf)), l.write(d, buf)
	})
	seek := func(bits32 bool) func(l *loCtx, d *loDesc, a []any) (any, error) {
		return func(l *loCtx, d *loDesc, a []any) (any, error) {
			pos, err := l.seek(d, a[1].(int64), a[2].(int64))
			if err != nil || !bits32 {
				return pos, err
			}
			return int32Result(pos, "lo_lseek", a[0].(int64))
		}
	}
	withFD("lo_lseek", []types.Type{i4, i4, i4}, i4, seek(true))
	withFD("lo_lseek64", []types.Type{i4, i8, i4}, i8, seek(false))
	withFD("lo_tell", []types.Type{i4}, i4, func(l *loCtx, d *loDesc, a []any) (any, error) {
		return int32Result(d.offset, "lo_tell", a[0].(int64))
	})
	withFD("lo_tell64", []types.Type{i4}, i8, func(l *loCtx, d *loDesc, a []any) (any, error) {
		return d.offset, nil
	})
	truncate := func(l *loCtx, d *loDesc, a []any) (any, error) {
		if err := forWriting(d, a[0].(int64)); err != nil {
			return nil, err
		}
		return int64(0), l.truncate(d, a[1].(int64))
	}
	withFD("lo_truncate", []types.Type{i4, i4}, i4, truncate)
	withFD("lo_truncate64", []types.Type{i4, i8}, i4, truncate)
	fn("lo_unlink", []types.Type{oid}, i4, func(l *loCtx, a []any) (any, error) {
		oid := uint32(a[0].(int64))
		return int64(1), l.unlink(oid, func() error { return l.x.s.dropLargeObjectComment(l.x, oid) })
	})
	get := func(l *loCtx, o uint32, offset, n int64) (any, error) {
		d, err := l.open(o, loInvRead)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			size, err := l.size(d)
			if err != nil {
				return nil, err
			}
			n = max(size-offset, 0)
			if n > math.MaxInt32 {
				return nil, pgerror.New(pgerror.ProgramLimitExceeded, "large object read request is too large")
			}
		}
		if _, err := l.seek(d, offset, 0); err != nil {
			return nil, err
		}
		return l.read(d, n)
	}
	fn("lo_get", []types.Type{oid}, bytea, func(l *loCtx, a []any) (any, error) {
		return get(l, uint32(a[0].(int64)), 0, -1)
	})
	fn("lo_get", []types.Type{oid, i8, i4}, bytea, func(l *loCtx, a []any) (any, error) {
		if a[2].(int64) < 0 {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "requested length cannot be negative")
		}
		return get(l, uint32(a[0].(int64)), a[1].(int64), a[2].(int64))
	})
	fn("lo_put", []types.Type{oid, i8, bytea}, void, func(l *loCtx, a []any) (any, error) {
		d, err := l.open(uint32(a[0].(int64)), loInvWrite)
		if err != nil {
			return nil, err
		}
		if _, err := l.seek(d, a[1].(int64), 0); err != nil {
			return nil, err
		}
		return "", l.write(d, a[2].([]byte))
	})
	fn("lo_from_bytea", []types.Type{oid, bytea}, oid, func(l *loCtx, a []any) (any, error) {
		o, err := l.create(uint32(a[0].(int64)))
		if err != nil {
			return nil, err
		}
		d, err := l.open(o, loInvWrite)
		if err != nil {
			return nil, err
		}
		return int64(o), l.write(d, a[1].([]byte))
	})
}
