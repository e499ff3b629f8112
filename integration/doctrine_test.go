package integration

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDoctrineMatchesPostgres runs testdata/doctrine/shop.php, a PHP
// application on Doctrine DBAL 3 and ORM 2 over pdo_pgsql (the schema
// manager's introspection, a comparator's migration, the query builder,
// savepoints, lastInsertId; attribute-mapped entities, SchemaTool, DQL,
// lazy and fetch-join loading, optimistic and pessimistic locking,
// cascades), on PostgreSQL 15 and on fickle: both steps must print on
// fickle what they print on PostgreSQL.
func TestDoctrineMatchesPostgres(t *testing.T) {
	php, err := exec.LookPath("php")
	if err != nil {
		missing(t, "php is not installed (Debian php-cli php-pgsql)")
		return
	}
	probe := `require_once 'Doctrine/ORM/autoload.php'; exit(class_exists('Doctrine\ORM\EntityManager') && in_array('pgsql', PDO::getAvailableDrivers()) ? 0 : 1);`
	if out, err := exec.Command(php, "-r", probe).CombinedOutput(); err != nil {
		missing(t, "PHP cannot load Doctrine ORM and DBAL with PDO's pgsql driver (Debian php-doctrine-orm php-doctrine-dbal php-pgsql): "+string(out))
		return
	}
	stepsMatchPostgres(t, filepath.Join("testdata", "doctrine"), php, "shop.php", "schema", "app")
}
