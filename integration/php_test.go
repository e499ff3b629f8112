package integration

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPHPPDOMatchesPostgres runs testdata/php/shop.php, a PHP application on
// PDO's PostgreSQL driver (server-side prepared statements with typed
// binds, bytea as a LOB, transactions and savepoints, an upsert reading
// xmax, column metadata), on PostgreSQL 15 and on fickle: both steps must
// print on fickle what they print on PostgreSQL.
func TestPHPPDOMatchesPostgres(t *testing.T) {
	php, err := exec.LookPath("php")
	if err != nil {
		missing(t, "php is not installed (Debian php-cli php-pgsql)")
		return
	}
	if out, err := exec.Command(php, "-r", `exit(in_array("pgsql", PDO::getAvailableDrivers()) ? 0 : 1);`).CombinedOutput(); err != nil {
		missing(t, "PHP has no PDO pgsql driver (Debian php-pgsql): "+string(out))
		return
	}
	stepsMatchPostgres(t, filepath.Join("testdata", "php"), php, "shop.php", "schema", "app")
}
