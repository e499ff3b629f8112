module github.com/fickle-db/fickle

go 1.26.8
