// gormapp is a GORM application: AutoMigrate (twice: the second finds nothing to change), a has-many and a
// many-to-many association with preloading, soft deletes, an upsert, transactions committed and rolled back, a CHECK
// constraint and the migrator reading the schema back. It prints what it finds, so that runs on two servers can be
// compared. Usage: gormapp URL
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

type Author struct {
	ID        uint   `gorm:"primaryKey"`
	Name      string `gorm:"uniqueIndex;size:100"`
	Email     *string
	Score     float64 `gorm:"default:1.5"`
	Books     []Book
	CreatedAt time.Time
	UpdatedAt time.Time
	DeletedAt gorm.DeletedAt `gorm:"index"`
}

type Book struct {
	ID       uint   `gorm:"primaryKey"`
	Title    string `gorm:"not null;index:idx_title_author,priority:1"`
	AuthorID uint   `gorm:"index:idx_title_author,priority:2"`
	Pages    int    `gorm:"check:pages >= 0"`
	Tags     []Tag  `gorm:"many2many:book_tags;"`
}

type Tag struct {
	ID   uint   `gorm:"primaryKey"`
	Name string `gorm:"unique"`
}

func show(label string, v any) {
	b, _ := json.Marshal(v)
	fmt.Println(label, string(b))
}

func main() {
	db, err := gorm.Open(postgres.Open(os.Args[1]), &gorm.Config{Logger: logger.Default.LogMode(logger.Silent), NowFunc: func() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) }})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	must := func(err error) {
		if err != nil {
			fmt.Println("FAILED:", err)
			os.Exit(1)
		}
	}
	must(db.AutoMigrate(&Author{}, &Book{}, &Tag{}))
	must(db.AutoMigrate(&Author{}, &Book{}, &Tag{})) // a second run finds nothing to change
	ann := Author{Name: "Ann"}
	must(db.Create(&ann).Error)
	must(db.Create(&Author{Name: "Bob", Books: []Book{{Title: "B1", Pages: 10, Tags: []Tag{{Name: "x"}, {Name: "y"}}}}}).Error)
	must(db.Create(&Book{Title: "A1", AuthorID: ann.ID, Pages: 100}).Error)
	show("dup", db.Create(&Author{Name: "Ann"}).Error != nil)
	var authors []Author
	must(db.Preload("Books.Tags").Order("name").Find(&authors).Error)
	for _, a := range authors {
		var titles []string
		for _, b := range a.Books {
			titles = append(titles, b.Title)
			for _, t := range b.Tags {
				titles = append(titles, "#"+t.Name)
			}
		}
		show("author", []any{a.Name, a.Score, titles})
	}
	must(db.Transaction(func(tx *gorm.DB) error {
		return tx.Model(&Book{}).Where("title = ?", "A1").Update("pages", gorm.Expr("pages + ?", 5)).Error
	}))
	_ = db.Transaction(func(tx *gorm.DB) error {
		tx.Model(&Book{}).Where("title = ?", "A1").Update("pages", 1)
		return fmt.Errorf("rollback")
	})
	var pages int
	must(db.Model(&Book{}).Select("pages").Where("title = ?", "A1").Scan(&pages).Error)
	show("pages", pages)
	must(db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "name"}}, DoUpdates: clause.Assignments(map[string]any{"score": 9})}).Create(&Author{Name: "Ann"}).Error)
	var ann2 Author
	must(db.Where("name = ?", "Ann").First(&ann2).Error)
	show("upserted", ann2.Score)
	must(db.Delete(&ann2).Error)
	var n, all int64
	db.Model(&Author{}).Count(&n)
	db.Unscoped().Model(&Author{}).Count(&all)
	show("soft delete", []int64{n, all})
	err = db.Create(&Book{Title: "bad", AuthorID: ann.ID, Pages: -1}).Error
	show("check", err != nil)
	type row struct {
		Name  string
		Books int
	}
	var rows []row
	must(db.Table("authors").Select("authors.name, count(books.id) as books").Joins("left join books on books.author_id = authors.id").Group("authors.name").Order("authors.name").Scan(&rows).Error)
	show("counts", rows)
	m := db.Migrator()
	cols, err := m.ColumnTypes(&Book{})
	must(err)
	for _, c := range cols {
		nullable, _ := c.Nullable()
		show("column", []any{c.Name(), c.DatabaseTypeName(), nullable})
	}
	show("has index", []bool{m.HasIndex(&Book{}, "idx_title_author"), m.HasIndex(&Author{}, "Name"), m.HasConstraint(&Book{}, "chk_books_pages")})
}
