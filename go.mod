module github.com/fickle-db/fickle

go 1.26.8

require (
	github.com/cockroachdb/apd/v3 v3.2.3
	github.com/jackc/pgx/v5 v5.12.0
	github.com/lib/pq v1.12.3
	github.com/pganalyze/pg_query_go/v6 v6.2.5
	golang.org/x/crypto v0.56.0
	golang.org/x/text v0.41.0
	google.golang.org/protobuf v1.33.0
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
