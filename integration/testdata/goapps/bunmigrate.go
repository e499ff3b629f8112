package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// bunMigrationFiles are bun/migrate's SQL migrations, one run in a transaction (.tx.up.sql).
var bunMigrationFiles = fstest.MapFS{
	"20240101000001_widgets.up.sql": {Data: []byte(`CREATE TABLE widgets (id bigserial PRIMARY KEY, name text NOT NULL, weight numeric(8,3));
--bun:split
CREATE INDEX widgets_name_idx ON widgets (lower(name));
`)},
	"20240101000001_widgets.down.sql":    {Data: []byte("DROP TABLE widgets;\n")},
	"20240101000002_seed.tx.up.sql":      {Data: []byte("INSERT INTO widgets (name, weight) VALUES ('Bolt', 0.125), ('nut', 0.05);\n")},
	"20240101000002_seed.tx.down.sql":    {Data: []byte("DELETE FROM widgets;\n")},
	"20240101000004_broken.tx.up.sql":    {Data: []byte("UPDATE widgets SET weight = weight * 2;\n--bun:split\nSELECT 1/0;\n")},
	"20240101000004_broken.tx.down.sql":  {Data: []byte("SELECT 1;\n")},
	"20240101000003_comment.up.sql":      {Data: []byte("COMMENT ON TABLE widgets IS 'things';\n")},
	"20240101000003_comment.down.sql":    {Data: []byte("COMMENT ON TABLE widgets IS NULL;\n")},
	"20240101000005_not_run.tx.up.sql":   {Data: []byte("DROP TABLE widgets;\n")},
	"20240101000005_not_run.tx.down.sql": {Data: []byte("SELECT 1;\n")},
}

// Gadget is the model AutoMigrator creates, then (as GadgetV2) alters.
type Gadget struct {
	bun.BaseModel `bun:"table:gadgets"`

	ID    int64  `bun:",pk,autoincrement"`
	Name  string `bun:"type:varchar(60),notnull"`
	Price int32  `bun:",notnull,default:0"`
	Code  string `bun:",unique"`
}

type GadgetV2 struct {
	bun.BaseModel `bun:"table:gadgets"`

	ID    int64   `bun:",pk,autoincrement"`
	Name  string  `bun:"type:varchar(80),notnull"`
	Price int64   `bun:",notnull,default:0"`
	Code  string  `bun:",unique"`
	Rank  int16   `bun:",notnull,default:7"`
	Owner *string `bun:"type:varchar(40)"`
}

func runBunMigrate(ctx context.Context, db *bun.DB) {
	migrations := migrate.NewMigrations()
	must(migrations.Discover(bunMigrationFiles))
	migrator := migrate.NewMigrator(db, migrations)
	must(migrator.Init(ctx))
	must(migrator.Init(ctx))
	must(migrator.Lock(ctx))
	fmt.Println("second lock:", migrator.Lock(ctx) != nil)
	group, err := migrator.Migrate(ctx)
	fmt.Println("migrate:", err)
	fmt.Println("group", group.ID, group.Migrations.Applied())
	status := func() {
		ms, err := migrator.MigrationsWithStatus(ctx)
		must(err)
		for _, m := range ms {
			fmt.Println("  migration", m.Name, m.Comment, "group", m.GroupID, "applied", m.IsApplied())
		}
	}
	status()
	var widgets []struct {
		Name   string
		Weight string
	}
	must(db.NewSelect().Table("widgets").Column("name").ColumnExpr("weight::text AS weight").OrderExpr("lower(name)").Scan(ctx, &widgets))
	fmt.Println("widgets:", widgets)
	var comment string
	must(db.NewRaw("SELECT obj_description('widgets'::regclass, 'pg_class')").Scan(ctx, &comment))
	fmt.Println("comment:", comment)
	group, err = migrator.Rollback(ctx)
	must(err)
	fmt.Println("rolled back group", group.ID, group.Migrations)
	status()
	must(migrator.Unlock(ctx))

	dir, err := os.MkdirTemp("", "bunmigrate")
	must(err)
	defer os.RemoveAll(dir)
	// Each run has migration tables of its own: generated migrations are named after the current second.
	models := []any{(*Gadget)(nil), (*GadgetV2)(nil), (*GadgetV2)(nil), (*GadgetV2)(nil)}
	exclude := []string{"widgets", "authors", "books", "tags", "book_tags", "bun_migrations", "bun_migration_locks"}
	for run := range models {
		exclude = append(exclude, fmt.Sprintf("auto_migrations_%d", run), fmt.Sprintf("auto_migrations_%d_locks", run))
	}
	auto := func(run int, model any) *migrate.AutoMigrator {
		table := fmt.Sprintf("auto_migrations_%d", run)
		am, err := migrate.NewAutoMigrator(db, migrate.WithModel(model), migrate.WithMigrationsDirectoryAuto(dir),
			migrate.WithTableNameAuto(table), migrate.WithLocksTableNameAuto(table+"_locks"),
			migrate.WithExcludeTable(exclude...))
		must(err)
		return am
	}
	for run, model := range models {
		am := auto(run, model)
		files, err := am.CreateSQLMigrations(ctx)
		if err != nil {
			fmt.Println("auto migrations:", err)
		}
		for _, f := range files {
			kind := "down"
			if strings.Contains(f.Name, ".up.") {
				kind = "up"
			}
			// AutoMigrator orders independent changes as a map iteration does: sort them.
			lines := strings.Split(strings.TrimSpace(f.Content), "\n")
			sort.Strings(lines)
			fmt.Printf("auto %s:\n%s\n", kind, strings.Join(lines, "\n"))
		}
		group, err := am.Migrate(ctx)
		must(err)
		fmt.Println("auto migrate applied", len(group.Migrations))
	}
	var cols []struct {
		ColumnName    string
		DataType      string
		IsNullable    string
		ColumnDefault *string
	}
	must(db.NewSelect().TableExpr("information_schema.columns").Column("column_name", "data_type", "is_nullable", "column_default").
		Where("table_name = 'gadgets'").Order("column_name").Scan(ctx, &cols))
	for _, c := range cols {
		def := "-"
		if c.ColumnDefault != nil {
			def = *c.ColumnDefault
		}
		fmt.Println("  gadgets column", c.ColumnName, c.DataType, c.IsNullable, def)
	}
}
