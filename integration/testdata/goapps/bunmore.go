package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/uptrace/bun"
)

// Measure is partitioned by range and carries a range, a timestamp without time zone, float and nested arrays.
type Measure struct {
	bun.BaseModel `bun:"table:measures,alias:m"`

	ID     int64          `bun:",pk"`
	Taken  time.Time      `bun:"type:timestamp,pk"`
	Window string         `bun:"type:int8range,nullzero"`
	Values []float64      `bun:",array"`
	Labels []string       `bun:"type:text[]"`
	Hidden map[string]any `bun:"type:jsonb,json_use_number"`
}

func runBunMore(ctx context.Context, db *bun.DB) {
	_, err := db.NewCreateTable().Model((*Measure)(nil)).PartitionBy("RANGE (taken)").Exec(ctx)
	fmt.Println("partitioned table:", err)
	if err == nil {
		for _, year := range []int{2023, 2024} {
			_, err = db.NewRaw("CREATE TABLE ? PARTITION OF measures FOR VALUES FROM (?) TO (?)",
				bun.Ident(fmt.Sprintf("measures_%d", year)), fmt.Sprintf("%d-01-01", year), fmt.Sprintf("%d-01-01", year+1)).Exec(ctx)
			must(err)
		}
	} else {
		_, err = db.NewCreateTable().Model((*Measure)(nil)).Exec(ctx)
		must(err)
	}
	ms := []Measure{
		{ID: 1, Taken: time.Date(2023, 6, 1, 10, 0, 0, 0, time.FixedZone("X", -7*3600)), Window: "(0,10]",
			Values: []float64{1.5, -0.25, 1e20}, Labels: []string{"a b", `q"uote`, "NULL", ""},
			Hidden: map[string]any{"n": 12345678901234567}},
		{ID: 2, Taken: time.Date(2024, 2, 29, 23, 59, 59, 999999000, time.UTC), Window: "[5,5)",
			Values: []float64{}, Labels: nil, Hidden: map[string]any{"n": 1.25}},
	}
	_, err = db.NewInsert().Model(&ms).Exec(ctx)
	must(err)
	var back []Measure
	must(db.NewSelect().Model(&back).Order("id").Scan(ctx))
	for _, m := range back {
		fmt.Println("measure", m.ID, m.Taken.Format(time.RFC3339Nano), m.Window,
			m.Values, fmt.Sprintf("%q", m.Labels), m.Hidden)
	}
	var parts []struct {
		Part  string
		Count int
	}
	must(db.NewSelect().Model((*Measure)(nil)).ColumnExpr("tableoid::regclass::text AS part, count(*) AS count").
		GroupExpr("1").OrderExpr("1").Scan(ctx, &parts))
	fmt.Println("partitions:", parts)
	var within []int64
	must(db.NewSelect().Model((*Measure)(nil)).Column("id").Where(`"window" @> ?::bigint`, 5).Scan(ctx, &within))
	fmt.Println("window contains 5:", within)

	// bulk update through a VALUES list with typed columns
	ms[0].Values, ms[1].Values = []float64{0}, []float64{2, 3}
	_, err = db.NewUpdate().Model(&ms).Column("values").Bulk().Exec(ctx)
	must(err)
	back = nil
	must(db.NewSelect().Model(&back).Column("id", "values").Order("id").Scan(ctx))
	for _, m := range back {
		fmt.Println("values after bulk update:", m.ID, m.Values)
	}

	var distinct []struct {
		AuthorID int64
		Title    string
	}
	must(db.NewSelect().Model((*Book)(nil)).DistinctOn("author_id").Column("author_id", "title").
		OrderExpr("author_id, title DESC").Scan(ctx, &distinct))
	fmt.Println("distinct on:", distinct)
	var union []string
	must(db.NewSelect().Model((*Tag)(nil)).Column("name").Where("name < 'm'").
		UnionAll(db.NewSelect().Model((*Author)(nil)).Column("name")).
		Except(db.NewSelect().Model((*Tag)(nil)).Column("name").Where("name = 'db'")).Scan(ctx, &union))
	sort.Strings(union)
	fmt.Println("union/except:", union)
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var names []string
		if err := tx.NewSelect().Model((*Tag)(nil)).Column("name").Order("name").Limit(2).For("UPDATE SKIP LOCKED").Scan(ctx, &names); err != nil {
			return err
		}
		fmt.Println("skip locked:", names)
		var books []string
		if err := tx.NewSelect().Model((*Book)(nil)).Column("b.title").Join("JOIN authors AS a ON a.id = b.author_id").
			Order("b.title").For("NO KEY UPDATE OF b NOWAIT").Scan(ctx, &books); err != nil {
			return err
		}
		fmt.Println("no key update of b:", books)
		return nil
	})
	must(err)
	row := map[string]any{"name": "mapped"}
	_, err = db.NewInsert().Model(&row).TableExpr("tags").Returning("id").Exec(ctx)
	must(err)
	var mapped []map[string]any
	must(db.NewSelect().TableExpr("tags").Where("name = ?", "mapped").Scan(ctx, &mapped))
	fmt.Println("map insert:", len(mapped), mapped[0]["name"])
	_, err = db.NewAddColumn().Model((*Tag)(nil)).ColumnExpr("weight real DEFAULT 0.5").Exec(ctx)
	must(err)
	var weights []float32
	must(db.NewSelect().Model((*Tag)(nil)).Column("weight").Limit(1).Scan(ctx, &weights))
	fmt.Println("weights:", weights)
	_, err = db.NewDropColumn().Model((*Tag)(nil)).Column("weight").Exec(ctx)
	must(err)
	_, err = db.NewTruncateTable().Model((*Measure)(nil)).Cascade().Exec(ctx)
	must(err)
	n, err := db.NewSelect().Model((*Measure)(nil)).Count(ctx)
	must(err)
	fmt.Println("after truncate:", n)
	_, err = db.NewDropTable().Model((*Measure)(nil)).Cascade().Exec(ctx)
	must(err)
}
