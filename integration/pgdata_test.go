package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/sqlexec/pgdata"
)

// builtinCatalogQueries are the queries whose output sqlexec/pgdata holds:
// the built-in rows of each catalog in physical order, regproc columns as
// their OIDs; pg_proc's with what pg_get_function_arguments and its kin
// (pg_get_functiondef but for aggregates, of which it is an error) print,
// which needs the defaults' expression trees fickle does not keep. The bootstrap superuser (OID 10) is left out of pg_authid:
// its name is initdb's choice.
var builtinCatalogQueries = map[string]string{
	pgdata.PgType: `SELECT oid, typname, typnamespace, typowner, typlen, typbyval, typtype, typcategory, typispreferred,
		typisdefined, typdelim, typrelid, typsubscript::oid AS typsubscript, typelem, typarray, typinput::oid AS typinput,
		typoutput::oid AS typoutput, typreceive::oid AS typreceive, typsend::oid AS typsend, typmodin::oid AS typmodin,
		typmodout::oid AS typmodout, typanalyze::oid AS typanalyze, typalign, typstorage, typnotnull, typbasetype, typtypmod,
		typndims, typcollation, typdefault FROM pg_type WHERE oid < 16384 ORDER BY ctid`,
	pgdata.PgProc: `SELECT oid, proname, pronamespace, proowner, prolang, procost, prorows, provariadic,
		prosupport::oid AS prosupport, prokind, prosecdef, proleakproof, proisstrict, proretset, provolatile, proparallel,
		pronargs, pronargdefaults, prorettype, proargtypes, proallargtypes, proargmodes, proargnames, prosrc,
		pg_get_function_arguments(oid) AS arguments, pg_get_function_identity_arguments(oid) AS identity_arguments,
		pg_get_function_result(oid) AS result, CASE WHEN prokind <> 'a' THEN pg_get_functiondef(oid) END AS definition
		FROM pg_proc WHERE oid < 16384 ORDER BY ctid`,
	pgdata.PgOperator: `SELECT oid, oprname, oprnamespace, oprowner, oprkind, oprcanmerge, oprcanhash, oprleft, oprright,
		oprresult, oprcom, oprnegate, oprcode::oid AS oprcode, oprrest::oid AS oprrest, oprjoin::oid AS oprjoin
		FROM pg_operator WHERE oid < 16384 ORDER BY ctid`,
	pgdata.PgRange: `SELECT rngtypid, rngsubtype, rngmultitypid, rngcollation, rngsubopc, rngcanonical::oid AS rngcanonical,
		rngsubdiff::oid AS rngsubdiff FROM pg_range ORDER BY ctid`,
	pgdata.PgAuthid: `SELECT oid, rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication,
		rolbypassrls, rolconnlimit, rolvaliduntil FROM pg_authid WHERE oid < 16384 AND oid <> 10 ORDER BY ctid`,
	pgdata.Keywords: `SELECT word, catcode, barelabel, catdesc, baredesc FROM pg_get_keywords()`,
	pgdata.PgOpclass: `SELECT oid, opcmethod, opcname, opcnamespace, opcowner, opcfamily, opcintype, opcdefault, opckeytype
		FROM pg_opclass ORDER BY ctid`,
	pgdata.PgAm: `SELECT oid, amname, amhandler::oid AS amhandler, amtype FROM pg_am ORDER BY ctid`,
	pgdata.PgDescription: `SELECT objoid, classoid, objsubid, description FROM pg_description
		WHERE objoid < 16384 ORDER BY ctid`,
	pgdata.PgClass: `SELECT oid, relname, relnamespace, relkind, reltype, relam, relhasindex, relisshared, relnatts,
		relreplident, relacl FROM pg_class
		WHERE oid < 16384 AND relkind IN ('r', 'v') AND relnamespace IN (11, 13207) ORDER BY ctid`,
	pgdata.PgCast:     `SELECT oid, castsource, casttarget, castfunc, castcontext, castmethod FROM pg_cast ORDER BY ctid`,
	pgdata.PgOpfamily: `SELECT oid, opfmethod, opfname, opfnamespace, opfowner FROM pg_opfamily ORDER BY ctid`,
	pgdata.PgAmop: `SELECT oid, amopfamily, amoplefttype, amoprighttype, amopstrategy, amoppurpose, amopopr, amopmethod,
		amopsortfamily FROM pg_amop ORDER BY ctid`,
	pgdata.PgAmproc: `SELECT oid, amprocfamily, amproclefttype, amprocrighttype, amprocnum, amproc::oid AS amproc
		FROM pg_amproc ORDER BY ctid`,
	pgdata.PgTsParser: `SELECT oid, prsname, prsnamespace, prsstart::oid AS prsstart, prstoken::oid AS prstoken,
		prsend::oid AS prsend, prsheadline::oid AS prsheadline, prslextype::oid AS prslextype FROM pg_ts_parser ORDER BY ctid`,
	pgdata.PgTsTemplate: `SELECT oid, tmplname, tmplnamespace, tmplinit::oid AS tmplinit, tmpllexize::oid AS tmpllexize
		FROM pg_ts_template ORDER BY ctid`,
	pgdata.PgTsDict:      `SELECT oid, dictname, dictnamespace, dictowner, dicttemplate, dictinitoption FROM pg_ts_dict ORDER BY ctid`,
	pgdata.PgTsConfig:    `SELECT oid, cfgname, cfgnamespace, cfgowner, cfgparser FROM pg_ts_config ORDER BY ctid`,
	pgdata.PgTsConfigMap: `SELECT mapcfg, maptokentype, mapseqno, mapdict FROM pg_ts_config_map ORDER BY ctid`,
	pgdata.PgConversion: `SELECT oid, conname, connamespace, conowner, conforencoding, contoencoding, conproc::oid AS conproc,
		condefault FROM pg_conversion ORDER BY ctid`,
	// initprivs name the bootstrap superuser as the test's PostgreSQL does,
	// postgres; fickle names it as its own superuser is named.
	pgdata.PgInitPrivs:  `SELECT objoid, classoid, objsubid, privtype, initprivs FROM pg_init_privs ORDER BY ctid`,
	pgdata.PgTablespace: `SELECT oid, spcname, spcowner, spcacl, spcoptions FROM pg_tablespace ORDER BY ctid`,
	pgdata.PgAggregate: `SELECT aggfnoid::oid AS aggfnoid, aggkind, aggnumdirectargs, aggtransfn::oid AS aggtransfn,
		aggfinalfn::oid AS aggfinalfn, aggcombinefn::oid AS aggcombinefn, aggserialfn::oid AS aggserialfn,
		aggdeserialfn::oid AS aggdeserialfn, aggmtransfn::oid AS aggmtransfn, aggminvtransfn::oid AS aggminvtransfn,
		aggmfinalfn::oid AS aggmfinalfn, aggfinalextra, aggmfinalextra, aggfinalmodify, aggmfinalmodify, aggsortop,
		aggtranstype, aggtransspace, aggmtranstype, aggmtransspace, agginitval, aggminitval FROM pg_aggregate ORDER BY ctid`,
	// What describes each parameter, not its value (the values are the
	// server's: fickle's own defaults and its sessions' settings).
	pgdata.PgSettings: `SELECT name, unit, category, short_desc, extra_desc, context, vartype, min_val, max_val, enumvals
		FROM pg_settings WHERE category <> 'Customized Options' ORDER BY name`,
}

// TestBuiltinCatalogMatchesPostgres requires the files of sqlexec/pgdata
// to hold what a fresh PostgreSQL 15 database lists; FICKLE_REWRITE=1
// rewrites them from it.
func TestBuiltinCatalogMatchesPostgres(t *testing.T) {
	port := startPostgres(t)
	db := freshPostgresDB(t, port)
	conn := connectPgx(t, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, db), pgx.QueryExecModeSimpleProtocol)
	for name, query := range builtinCatalogQueries {
		results, err := conn.PgConn().Exec(context.Background(), query).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tab := &pgdata.Table{}
		for _, f := range results[0].FieldDescriptions {
			tab.Columns = append(tab.Columns, f.Name)
		}
		for _, r := range results[0].Rows {
			row := make([]*string, len(r))
			for i, v := range r {
				if v != nil {
					s := string(v)
					row[i] = &s
				}
			}
			tab.Rows = append(tab.Rows, row)
		}
		path := filepath.Join("..", "sqlexec", "pgdata", name+".tsv")
		want := pgdata.Format(tab)
		if os.Getenv("FICKLE_REWRITE") == "1" {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("reading %s (FICKLE_REWRITE=1 writes it): %v", path, err)
		}
		if string(got) != want {
			t.Errorf("%s differs from PostgreSQL's %s:\n%s", path, name, lineDiff(want, string(got)))
		}
	}
}
