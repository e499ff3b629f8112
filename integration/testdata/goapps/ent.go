package main

import (
	"context"
	stdsql "database/sql"
	"errors"
	"fmt"

	"ariga.io/atlas/sql/postgres"
	atlasschema "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/schema/field"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// runEnt drives ent's schema migration (Atlas underneath: it reads the live schema from the catalog, diffs it
// against the declared tables and applies the difference) through three revisions of a schema, prints what Atlas's
// inspector reads back as HCL, then runs queries through ent's SQL builder: inserts with RETURNING, an upsert, joins
// with aggregates, a transaction rolled back, a unique violation and ON DELETE SET NULL.
func runEnt(url string) {
	ctx := context.Background()
	db, err := stdsql.Open("pgx", url)
	must(err)
	defer db.Close()
	drv := entsql.OpenDB(dialect.Postgres, db)

	users, pets, groups := entTables()
	migrate := func(label string, tables ...*schema.Table) {
		m, err := schema.NewMigrate(drv, schema.WithDropColumn(true), schema.WithDropIndex(true), schema.WithForeignKeys(true))
		must(err)
		must(m.Create(ctx, tables...))
		fmt.Println("migrated:", label)
	}
	migrate("initial", users, pets, groups)

	// The second revision adds a column, drops one, makes a column nullable, widens a varchar and adds indexes.
	users.Columns = append(users.Columns, &schema.Column{Name: "nickname", Type: field.TypeString, Size: 40, Nullable: true})
	users.Columns[1].Size = 200
	pets.Columns = []*schema.Column{pets.Columns[0], pets.Columns[1], pets.Columns[3],
		{Name: "born", Type: field.TypeTime, Nullable: true}}
	pets.Columns[2].Nullable = true
	pets.ForeignKeys[0].Columns = []*schema.Column{pets.Columns[2]}
	pets.Indexes = []*schema.Index{{Name: "pet_name_owner", Unique: true, Columns: []*schema.Column{pets.Columns[1], pets.Columns[2]}}}
	users.Indexes = append(users.Indexes, &schema.Index{Name: "user_nickname", Columns: []*schema.Column{users.Columns[len(users.Columns)-1]}})
	migrate("second revision", users, pets, groups)
	migrate("unchanged", users, pets, groups)

	inspector, err := postgres.Open(db)
	must(err)
	s, err := inspector.InspectSchema(ctx, "", &atlasschema.InspectOptions{})
	must(err)
	hcl, err := postgres.MarshalHCL(s)
	must(err)
	fmt.Printf("inspected schema:\n%s", hcl)

	entQueries(ctx, drv)
}

func entTables() (users, pets, groups *schema.Table) {
	users = &schema.Table{Name: "users", Columns: []*schema.Column{
		{Name: "id", Type: field.TypeInt, Increment: true},
		{Name: "name", Type: field.TypeString, Size: 100},
		{Name: "email", Type: field.TypeString, Unique: true},
		{Name: "age", Type: field.TypeInt, Nullable: true},
		{Name: "meta", Type: field.TypeJSON, Nullable: true},
		{Name: "role", Type: field.TypeEnum, Enums: []string{"admin", "user"}, Default: "user"},
		{Name: "score", Type: field.TypeFloat64, Default: 0.5},
		{Name: "active", Type: field.TypeBool, Default: true},
	}}
	users.PrimaryKey = users.Columns[:1]
	users.Indexes = []*schema.Index{{Name: "user_name_age", Columns: []*schema.Column{users.Columns[1], users.Columns[3]}}}
	pets = &schema.Table{Name: "pets", Columns: []*schema.Column{
		{Name: "id", Type: field.TypeInt64, Increment: true},
		{Name: "name", Type: field.TypeString},
		{Name: "weight", Type: field.TypeFloat64, Default: 1.5},
		{Name: "owner_id", Type: field.TypeInt},
	}}
	pets.PrimaryKey = pets.Columns[:1]
	pets.ForeignKeys = []*schema.ForeignKey{{Symbol: "pets_users_pets", Columns: []*schema.Column{pets.Columns[3]},
		RefColumns: users.Columns[:1], RefTable: users, OnDelete: schema.SetNull}}
	groups = &schema.Table{Name: "group_users", Columns: []*schema.Column{
		{Name: "group_name", Type: field.TypeString},
		{Name: "user_id", Type: field.TypeInt},
	}}
	groups.PrimaryKey = groups.Columns
	groups.ForeignKeys = []*schema.ForeignKey{{Symbol: "group_users_user", Columns: groups.Columns[1:], RefColumns: users.Columns[:1],
		RefTable: users, OnDelete: schema.Cascade}}
	return users, pets, groups
}

func entQueries(ctx context.Context, drv *entsql.Driver) {
	exec := func(b entsql.Querier) {
		q, args := b.Query()
		var res stdsql.Result
		must(drv.Exec(ctx, q, args, &res))
	}
	query := func(label string, b entsql.Querier) {
		q, args := b.Query()
		rows := &entsql.Rows{}
		must(drv.Query(ctx, q, args, rows))
		defer rows.Close()
		cols, err := rows.Columns()
		must(err)
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			must(rows.Scan(ptrs...))
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					vals[i] = string(b)
				}
			}
			fmt.Println(label, vals)
		}
		must(rows.Err())
	}
	pg := entsql.Dialect(dialect.Postgres)
	query("inserted", pg.Insert("users").Columns("name", "email", "age", "meta").
		Values("Ada", "ada@example.com", 36, `{"langs": ["go", "sql"]}`).
		Values("Bob", "bob@example.com", nil, nil).
		Values("Cy", "cy@example.com", 19, `{"langs": []}`).Returning("id", "role", "score", "active"))
	exec(pg.Insert("pets").Columns("name", "owner_id").Values("Rex", 1).Values("Tom", 1).Values("Kit", 2))
	exec(pg.Insert("group_users").Columns("group_name", "user_id").Values("admins", 1).Values("staff", 1).Values("staff", 3))

	// An upsert ent generates for OnConflict: the conflicting row takes the new age.
	exec(pg.Insert("users").Columns("name", "email", "age").Values("Ada L.", "ada@example.com", 37).
		OnConflict(entsql.ConflictColumns("email"), entsql.ResolveWithNewValues()))
	query("upserted", pg.Select("id", "name", "age").From(entsql.Table("users")).Where(entsql.EQ("email", "ada@example.com")))

	u, p := entsql.Table("users").As("u"), entsql.Table("pets").As("p")
	query("pets per owner", pg.Select(u.C("name"), entsql.As(entsql.Count(p.C("id")), "n"), entsql.As(entsql.Max(p.C("name")), "last")).
		From(u).LeftJoin(p).On(u.C("id"), p.C("owner_id")).GroupBy(u.C("name")).OrderBy(u.C("name")))
	query("json", pg.Select("name").From(entsql.Table("users")).
		Where(entsql.P(func(b *entsql.Builder) { b.WriteString("meta->'langs' ? ").Arg("sql") })))
	g := entsql.Table("group_users").As("g")
	query("staff", pg.Select(u.C("name")).From(u).Join(g).On(u.C("id"), g.C("user_id")).
		Where(entsql.And(entsql.EQ(g.C("group_name"), "staff"), entsql.GT(u.C("age"), 18))).OrderBy(u.C("name")))

	tx, err := drv.Tx(ctx)
	must(err)
	q, args := pg.Update("users").Set("age", 99).Where(entsql.EQ("name", "Bob")).Query()
	var res stdsql.Result
	must(tx.Exec(ctx, q, args, &res))
	must(tx.Rollback())
	query("after rollback", pg.Select("name", "age").From(entsql.Table("users")).Where(entsql.EQ("name", "Bob")))

	q, args = pg.Insert("users").Columns("name", "email").Values("Imposter", "bob@example.com").Query()
	var pgErr *pgconn.PgError
	if err := drv.Exec(ctx, q, args, &res); errors.As(err, &pgErr) {
		fmt.Println("duplicate email:", pgErr.Code, pgErr.ConstraintName)
	} else {
		fmt.Println("duplicate email: no unique violation:", err)
	}

	exec(pg.Delete("users").Where(entsql.EQ("name", "Ada L.")))
	query("pets after owner deleted", pg.Select("name", "owner_id").From(entsql.Table("pets")).OrderBy("name"))
	query("groups after owner deleted", pg.Select("group_name", "user_id").From(entsql.Table("group_users")).OrderBy("group_name", "user_id"))
}
