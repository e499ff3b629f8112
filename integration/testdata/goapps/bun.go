package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

type Author struct {
	bun.BaseModel `bun:"table:authors,alias:a"`

	ID        int64          `bun:",pk,autoincrement"`
	Name      string         `bun:",notnull,unique"`
	Emails    []string       `bun:",array"`
	Profile   map[string]any `bun:"type:jsonb"`
	Books     []*Book        `bun:"rel:has-many,join:id=author_id"`
	DeletedAt time.Time      `bun:",soft_delete,nullzero"`
}

type Book struct {
	bun.BaseModel `bun:"table:books,alias:b"`

	ID       int64   `bun:",pk,autoincrement"`
	AuthorID int64   `bun:",notnull"`
	Author   *Author `bun:"rel:belongs-to,join:author_id=id"`
	Title    string  `bun:",notnull"`
	Pages    int32   `bun:",notnull,default:0"`
	Scores   []int64 `bun:",array"`
	Tags     []Tag   `bun:"m2m:book_tags,join:Book=Tag"`
}

type Tag struct {
	bun.BaseModel `bun:"table:tags,alias:t"`

	ID   int64  `bun:",pk,autoincrement"`
	Name string `bun:",notnull,unique"`
}

type BookTag struct {
	bun.BaseModel `bun:"table:book_tags,alias:bt"`

	BookID int64 `bun:",pk"`
	Book   *Book `bun:"rel:belongs-to,join:book_id=id"`
	TagID  int64 `bun:",pk"`
	Tag    *Tag  `bun:"rel:belongs-to,join:tag_id=id"`
}

func showJSON(label string, v any) {
	b, err := json.Marshal(v)
	must(err)
	fmt.Println(label, string(b))
}

func runBun(url string) {
	ctx := context.Background()
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(url)))
	db := bun.NewDB(sqldb, pgdialect.New())
	defer db.Close()
	db.RegisterModel((*BookTag)(nil))

	for _, model := range []any{(*Author)(nil), (*Tag)(nil), (*Book)(nil), (*BookTag)(nil)} {
		_, err := db.NewCreateTable().Model(model).IfNotExists().WithForeignKeys().Exec(ctx)
		must(err)
	}
	_, err := db.NewCreateIndex().Model((*Book)(nil)).Index("books_title_idx").Column("title").Exec(ctx)
	must(err)
	_, err = db.NewCreateIndex().Model((*Book)(nil)).Unique().Index("books_author_title_idx").Column("author_id", "title").Exec(ctx)
	must(err)
	_, err = db.NewCreateTable().Model((*Author)(nil)).IfNotExists().Exec(ctx)
	must(err)
	fmt.Println("tables created")

	ann := &Author{Name: "ann", Emails: []string{"ann@example.com"}, Profile: map[string]any{"city": "Oslo", "age": 31}}
	_, err = db.NewInsert().Model(ann).Exec(ctx)
	must(err)
	fmt.Println("inserted ann with id", ann.ID)
	more := []*Author{
		{Name: "bob", Emails: []string{"bob@example.com", "b@example.org"}, Profile: map[string]any{"city": "Rome"}},
		{Name: "cid", Profile: map[string]any{"city": "Oslo", "tags": []string{"x", "y"}}},
	}
	_, err = db.NewInsert().Model(&more).Exec(ctx)
	must(err)
	fmt.Println("bulk inserted ids", more[0].ID, more[1].ID)
	tags := []Tag{{Name: "go"}, {Name: "sql"}, {Name: "db"}}
	_, err = db.NewInsert().Model(&tags).Returning("id, name").Exec(ctx)
	must(err)
	showJSON("tags", tags)
	books := []*Book{
		{AuthorID: ann.ID, Title: "A1", Pages: 100, Scores: []int64{5, 4}},
		{AuthorID: ann.ID, Title: "A2", Pages: 50},
		{AuthorID: more[0].ID, Title: "B1", Pages: 10, Scores: []int64{}},
	}
	_, err = db.NewInsert().Model(&books).Exec(ctx)
	must(err)
	links := []BookTag{{BookID: books[0].ID, TagID: tags[0].ID}, {BookID: books[0].ID, TagID: tags[1].ID}, {BookID: books[2].ID, TagID: tags[1].ID}}
	_, err = db.NewInsert().Model(&links).Exec(ctx)
	must(err)

	_, err = db.NewInsert().Model(&Author{Name: "ann"}).Exec(ctx)
	fmt.Println("duplicate:", err)
	upsert := &Author{Name: "ann", Emails: []string{"ann@new.example"}, Profile: map[string]any{"city": "Bergen"}}
	res, err := db.NewInsert().Model(upsert).On("CONFLICT (name) DO UPDATE").Set("emails = EXCLUDED.emails").Set("profile = a.profile || EXCLUDED.profile").Exec(ctx)
	must(err)
	n, err := res.RowsAffected()
	must(err)
	fmt.Println("upsert affected", n, "id", upsert.ID)
	res, err = db.NewInsert().Model(&Tag{Name: "go"}).On("CONFLICT (name) DO NOTHING").Exec(ctx)
	must(err)
	n, err = res.RowsAffected()
	must(err)
	fmt.Println("do nothing affected", n)

	var authors []Author
	must(db.NewSelect().Model(&authors).
		Relation("Books", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Order("b.title") }).
		Relation("Books.Tags", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Order("t.name") }).
		Order("a.name").Scan(ctx))
	for _, a := range authors {
		var titles []string
		for _, b := range a.Books {
			titles = append(titles, fmt.Sprintf("%s/%d/%v", b.Title, b.Pages, b.Scores))
			for _, t := range b.Tags {
				titles = append(titles, "#"+t.Name)
			}
		}
		showJSON("author", []any{a.Name, a.Emails, a.Profile, titles})
	}
	var withAuthor []Book
	must(db.NewSelect().Model(&withAuthor).Relation("Author").Where("b.pages > ?", 20).Order("b.id").Scan(ctx))
	for _, b := range withAuthor {
		fmt.Println("book", b.Title, "by", b.Author.Name)
	}

	var inOslo []string
	must(db.NewSelect().Model((*Author)(nil)).Column("name").Where("profile->>'city' = ?", "Oslo").Order("name").Scan(ctx, &inOslo))
	fmt.Println("in Oslo:", inOslo)
	var withTag []string
	must(db.NewSelect().Model((*Author)(nil)).Column("name").Where("profile @> ?", map[string]any{"tags": []string{"y"}}).Scan(ctx, &withTag))
	fmt.Println("tagged y:", withTag)
	var byEmail []string
	must(db.NewSelect().Model((*Author)(nil)).Column("name").Where("? = ANY(emails)", "b@example.org").Scan(ctx, &byEmail))
	fmt.Println("by email:", byEmail)
	var overlap []string
	must(db.NewSelect().Model((*Author)(nil)).Column("name").Where("emails && ?", pgdialect.Array([]string{"ann@new.example", "x@y"})).Scan(ctx, &overlap))
	fmt.Println("overlapping emails:", overlap)
	var emails []string
	must(db.NewSelect().Model((*Author)(nil)).ColumnExpr("emails").Where("name = ?", "bob").Scan(ctx, pgdialect.Array(&emails)))
	fmt.Println("bob's emails:", emails)
	var scores []int64
	must(db.NewSelect().Model((*Book)(nil)).ColumnExpr("scores || ?", pgdialect.Array([]int64{9})).Where("title = ?", "A1").Scan(ctx, pgdialect.Array(&scores)))
	fmt.Println("scores:", scores)

	var maps []map[string]any
	must(db.NewSelect().Model((*Book)(nil)).Column("title", "pages").ColumnExpr("array_length(scores, 1) AS nscores").Order("title").Scan(ctx, &maps))
	for _, m := range maps {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		line := ""
		for _, k := range keys {
			line += fmt.Sprintf(" %s=%v(%T)", k, m[k], m[k])
		}
		fmt.Println("map:" + line)
	}
	var counts []struct {
		Name  string
		Books int
		Pages int
	}
	must(db.NewSelect().TableExpr("authors AS a").ColumnExpr("a.name, count(b.id) AS books, coalesce(sum(b.pages), 0) AS pages").
		Join("LEFT JOIN books AS b ON b.author_id = a.id").Group("a.name").Order("a.name").Scan(ctx, &counts))
	showJSON("counts", counts)

	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var a Author
		if err := tx.NewSelect().Model(&a).Where("name = ?", "bob").For("UPDATE").Scan(ctx); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&Book{AuthorID: a.ID, Title: "B2", Pages: 7}).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewUpdate().Model((*Book)(nil)).Set("pages = pages + ?", 1).Where("author_id = ?", a.ID).Exec(ctx)
		return err
	})
	fmt.Println("committed tx:", err)
	errRollback := errors.New("changed my mind")
	err = db.RunInTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*BookTag)(nil)).Where("TRUE").Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&Author{Name: "dan"}).Exec(ctx); err != nil {
			return err
		}
		return errRollback
	})
	fmt.Println("rolled back tx:", err)
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewInsert().Model(&Book{AuthorID: 999, Title: "nobody"}).Exec(ctx)
		return err
	})
	fmt.Println("foreign key tx:", err)
	var summary []struct {
		Title string
		Pages int
		Tags  int
	}
	must(db.NewSelect().TableExpr("books AS b").ColumnExpr("b.title, b.pages, (SELECT count(*) FROM book_tags bt WHERE bt.book_id = b.id) AS tags").Order("b.title").Scan(ctx, &summary))
	showJSON("books", summary)
	nAuthors, err := db.NewSelect().Model((*Author)(nil)).Count(ctx)
	must(err)
	fmt.Println("authors:", nAuthors)

	_, err = db.NewDelete().Model((*Author)(nil)).Where("name = ?", "cid").Exec(ctx)
	must(err)
	live, err := db.NewSelect().Model((*Author)(nil)).Count(ctx)
	must(err)
	all, err := db.NewSelect().Model((*Author)(nil)).WhereAllWithDeleted().Count(ctx)
	must(err)
	deleted, err := db.NewSelect().Model((*Author)(nil)).WhereDeleted().Column("name").Count(ctx)
	must(err)
	fmt.Println("after soft delete: live", live, "all", all, "deleted", deleted)
	_, err = db.NewUpdate().Model((*Author)(nil)).Set("deleted_at = NULL").WhereDeleted().Exec(ctx)
	must(err)
	live, err = db.NewSelect().Model((*Author)(nil)).Count(ctx)
	must(err)
	fmt.Println("after undelete: live", live)
	res, err = db.NewDelete().Model((*Author)(nil)).Where("name = ?", "cid").ForceDelete().Exec(ctx)
	must(err)
	n, err = res.RowsAffected()
	must(err)
	all, err = db.NewSelect().Model((*Author)(nil)).WhereAllWithDeleted().Count(ctx)
	must(err)
	fmt.Println("force deleted", n, "all", all)

	upd := []*Book{{ID: books[0].ID, Title: "A1 revised", Pages: 101}, {ID: books[1].ID, Title: "A2 revised", Pages: 51}}
	_, err = db.NewUpdate().With("_data", db.NewValues(&upd)).Model((*Book)(nil)).TableExpr("_data").
		Set("title = _data.title").Set("pages = _data.pages").Where("b.id = _data.id").Exec(ctx)
	must(err)
	var titles []string
	must(db.NewSelect().Model((*Book)(nil)).Column("title").Order("title").Scan(ctx, &titles))
	fmt.Println("titles after bulk update:", titles)
	var deletedBooks []Book
	_, err = db.NewDelete().Model(&deletedBooks).Where("pages < ?", 20).Returning("title, pages").Exec(ctx)
	fmt.Println("delete returning:", err)
	_, err = db.NewDelete().Model(&deletedBooks).Where("NOT EXISTS (SELECT 1 FROM book_tags AS bt WHERE bt.book_id = b.id)").Returning("title, pages").Exec(ctx)
	must(err)
	sort.Slice(deletedBooks, func(i, j int) bool { return deletedBooks[i].Title < deletedBooks[j].Title })
	for _, b := range deletedBooks {
		fmt.Println("  deleted", b.Title, b.Pages)
	}

	var cols []struct {
		TableName  string
		ColumnName string
		DataType   string
		IsNullable string
	}
	must(db.NewSelect().TableExpr("information_schema.columns").Column("table_name", "column_name", "data_type", "is_nullable").
		Where("table_schema = 'public'").Order("table_name", "ordinal_position").Scan(ctx, &cols))
	for _, c := range cols {
		fmt.Println("  column", c.TableName, c.ColumnName, c.DataType, c.IsNullable)
	}
	runBunExtra(ctx, db, sqldb)
	runBunMore(ctx, db)
	runBunConn(ctx, url)
	runBunMigrate(ctx, db)
	_, err = db.NewDropTable().Model((*BookTag)(nil)).Exec(ctx)
	must(err)
	_, err = db.NewDropTable().Model((*Author)(nil)).IfExists().Cascade().Exec(ctx)
	must(err)
	fmt.Println("dropped")
}
