package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Event carries the column types bun maps beyond text and integers.
type Event struct {
	bun.BaseModel `bun:"table:events,alias:e"`

	ID      int64           `bun:",pk,autoincrement"`
	Key     string          `bun:"type:uuid,notnull,unique"`
	At      time.Time       `bun:",notnull"`
	Day     time.Time       `bun:"type:date"`
	Span    time.Duration   `bun:",notnull"`
	Amount  string          `bun:"type:numeric(12,4)"`
	Payload []byte          `bun:","`
	Flags   []bool          `bun:",array"`
	Times   []time.Time     `bun:",array"`
	Meta    json.RawMessage `bun:"type:jsonb"`
	Note    sql.NullString
	Kind    string    `bun:",notnull,default:'plain'"`
	Created time.Time `bun:",nullzero,notnull,default:current_timestamp"`
}

func runBunExtra(ctx context.Context, db *bun.DB, sqldb *sql.DB) {
	_, err := db.NewCreateTable().Model((*Event)(nil)).Exec(ctx)
	must(err)
	zone := time.FixedZone("IST", 5*3600+1800)
	ev := &Event{
		Key:     "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		At:      time.Date(2024, 3, 10, 12, 34, 56, 789123000, zone),
		Day:     time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		Span:    90 * time.Minute,
		Amount:  "1234.5",
		Payload: []byte{0, 1, 2, 'x', 0xff},
		Flags:   []bool{true, false, true},
		Times:   []time.Time{time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1999, 12, 31, 23, 59, 59, 500000000, zone)},
		Meta:    json.RawMessage(`{"b": [1, 2.50, null], "a": "é\u0000x"}`),
	}
	_, err = db.NewInsert().Model(ev).Returning("*").Exec(ctx)
	fmt.Println("insert event:", err)
	showEvent := func(label string, e *Event) {
		fmt.Println(label, e.ID, e.Key, e.At.UTC().Format(time.RFC3339Nano), e.Day.Format("2006-01-02"), e.Span, e.Amount,
			e.Payload, e.Flags, len(e.Times), string(e.Meta), e.Note, e.Kind, !e.Created.IsZero())
		for _, t := range e.Times {
			fmt.Println("  time", t.UTC().Format(time.RFC3339Nano))
		}
	}
	showEvent("returned", ev)
	_, err = db.NewDelete().Model(ev).WherePK().Exec(ctx)
	must(err)
	ev.ID, ev.Meta = 0, json.RawMessage(`{"b": [1, 2.50, null], "a": "é"}`)
	_, err = db.NewInsert().Model(ev).Returning("*").Exec(ctx)
	must(err)
	showEvent("returned", ev)
	second := &Event{Key: "b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12", At: ev.At.Add(-48 * time.Hour), Amount: "-0.00005", Note: sql.NullString{String: "n", Valid: true}, Kind: "special"}
	_, err = db.NewInsert().Model(second).Exec(ctx)
	must(err)
	var got Event
	must(db.NewSelect().Model(&got).Where("e.key = ?", ev.Key).Scan(ctx))
	showEvent("selected", &got)
	got = Event{}
	must(db.NewSelect().Model(&got).Where("e.key = ?", second.Key).Scan(ctx))
	showEvent("selected", &got)
	var texts []string
	must(db.NewSelect().Model((*Event)(nil)).ColumnExpr("concat_ws(' | ', at, day, amount, payload, flags, times, meta, meta->'b'->>1)").Order("id").Scan(ctx, &texts))
	for _, s := range texts {
		fmt.Println("as text:", s)
	}

	var events []Event
	count, err := db.NewSelect().Model(&events).Column("id", "kind").Order("id").Limit(1).Offset(1).ScanAndCount(ctx)
	must(err)
	fmt.Println("scan and count:", count, len(events), events[0].Kind)
	exists, err := db.NewSelect().Model((*Event)(nil)).Where("kind = ?", "special").Exists(ctx)
	must(err)
	fmt.Println("exists:", exists)
	var ids []int64
	must(db.NewSelect().Model((*Event)(nil)).Column("id").
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("kind IN (?)", bun.In([]string{"plain", "x"})).WhereOr("note IS NOT NULL")
		}).Where("at > ?", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).Order("id").Scan(ctx, &ids))
	fmt.Println("ids:", ids)

	values := []*Tag{{Name: "go"}, {Name: "rust"}, {Name: "zig"}}
	_, err = db.NewMerge().Model(new(Tag)).With("_data", db.NewValues(&values)).Using("_data").On("t.name = _data.name").
		WhenUpdate("MATCHED", func(q *bun.UpdateQuery) *bun.UpdateQuery { return q.Set("name = upper(_data.name)") }).
		WhenInsert("NOT MATCHED", func(q *bun.InsertQuery) *bun.InsertQuery { return q.Value("name", "_data.name") }).
		Exec(ctx)
	fmt.Println("merge:", err)
	var tagNames []string
	must(db.NewSelect().Model((*Tag)(nil)).Column("name").Order("name").Scan(ctx, &tagNames))
	fmt.Println("tags after merge:", tagNames)

	var cte []struct {
		Name  string
		Total int
	}
	must(db.NewSelect().
		With("totals", db.NewSelect().Model((*Book)(nil)).Column("author_id").ColumnExpr("sum(pages) AS total").Group("author_id")).
		TableExpr("totals").Join("JOIN authors AS a ON a.id = totals.author_id").ColumnExpr("a.name, totals.total").
		OrderExpr("totals.total DESC, a.name").Scan(ctx, &cte))
	fmt.Println("cte:", cte)

	// database/sql with parameters: pgdriver's extended protocol
	var sum int
	var word string
	must(sqldb.QueryRowContext(ctx, "SELECT $1::int + $2, $3 || '!'", 40, 2, "hi").Scan(&sum, &word))
	fmt.Println("params:", sum, word)
	stmt, err := sqldb.PrepareContext(ctx, "SELECT count(*) FROM events WHERE kind = $1")
	must(err)
	for _, k := range []string{"plain", "special", "none"} {
		var n int
		must(stmt.QueryRowContext(ctx, k).Scan(&n))
		fmt.Println("prepared", k, n)
	}
	must(stmt.Close())
	_, err = sqldb.ExecContext(ctx, "SELECT $1::int", "nope")
	fmt.Println("bad param:", err)

	// COPY in and out through the driver
	conn, err := db.Conn(ctx)
	must(err)
	_, err = conn.ExecContext(ctx, "CREATE TEMP TABLE staging (id int, name text, score numeric)")
	must(err)
	res, err := pgdriver.CopyFrom(ctx, conn, strings.NewReader("1\tann\t1.5\n2\t\\N\t2\n3\tc\\td\t-0.25\n"), "COPY staging FROM STDIN")
	must(err)
	n, err := res.RowsAffected()
	must(err)
	fmt.Println("copied in", n)
	var buf bytes.Buffer
	res, err = pgdriver.CopyTo(ctx, conn, &buf, "COPY (SELECT * FROM staging ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)")
	must(err)
	n, err = res.RowsAffected()
	must(err)
	fmt.Printf("copied out %d: %q\n", n, buf.String())
	_, err = pgdriver.CopyFrom(ctx, conn, strings.NewReader("x\ty\tz\n"), "COPY staging FROM STDIN")
	fmt.Println("bad copy:", err)
	var staged int
	must(conn.QueryRowContext(ctx, "SELECT count(*) FROM staging").Scan(&staged))
	fmt.Println("staged", staged)
	must(conn.Close())

	// LISTEN/NOTIFY: a rolled-back notification is never delivered
	ln := pgdriver.NewListener(db)
	must(ln.Listen(ctx, "jobs"))
	// Listen sends LISTEN without waiting for its answer: reading (nothing but that answer, until a timeout) makes
	// sure the server has run it before anyone notifies.
	_, _, err = ln.ReceiveTimeout(ctx, 300*time.Millisecond)
	var netErr net.Error
	fmt.Println("nothing before notifying:", errors.As(err, &netErr) && netErr.Timeout())
	tx, err := db.BeginTx(ctx, nil)
	must(err)
	must(pgdriver.Notify(ctx, db, "jobs", "outside"))
	_, err = tx.ExecContext(ctx, "NOTIFY jobs, 'rolled back'")
	must(err)
	must(tx.Rollback())
	_, err = db.ExecContext(ctx, "SELECT pg_notify('jobs', 'via function')")
	must(err)
	for range 2 {
		channel, payload, err := ln.ReceiveTimeout(ctx, 5*time.Second)
		must(err)
		fmt.Println("notification", channel, payload)
	}
	must(ln.Close())

	// nested transactions are savepoints
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(&Tag{Name: "outer"}).Exec(ctx); err != nil {
			return err
		}
		inner := tx.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.NewInsert().Model(&Tag{Name: "inner"}).Exec(ctx); err != nil {
				return err
			}
			_, err := tx.NewInsert().Model(&Tag{Name: "outer"}).Exec(ctx)
			return err
		})
		fmt.Println("inner tx:", inner)
		return nil
	})
	must(err)
	tagNames = nil
	must(db.NewSelect().Model((*Tag)(nil)).Column("name").Where("name IN (?)", bun.In([]string{"outer", "inner"})).Scan(ctx, &tagNames))
	fmt.Println("after savepoint:", tagNames)
	err = db.RunInTx(ctx, &sql.TxOptions{ReadOnly: true}, func(ctx context.Context, tx bun.Tx) error {
		var n int
		if err := tx.NewSelect().Model((*Tag)(nil)).ColumnExpr("count(*)").Scan(ctx, &n); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(&Tag{Name: "ro"}).Exec(ctx)
		return err
	})
	fmt.Println("read-only tx:", err)
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		fmt.Println("read-only sqlstate:", pgErr.Field('C'), pgErr.IntegrityViolation())
	}
	var locked, again bool
	must(db.NewRaw("SELECT pg_try_advisory_lock(?), pg_try_advisory_lock(?)", 42, 42).Scan(ctx, &locked, &again))
	fmt.Println("advisory:", locked, again)
	_, err = db.NewDropTable().Model((*Event)(nil)).Exec(ctx)
	must(err)
}
