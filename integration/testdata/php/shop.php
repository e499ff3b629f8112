<?php
// A PHP application on PDO's PostgreSQL driver (php-pgsql), run against the database PGHOST / PGPORT / PGUSER /
// PGDATABASE name:
//   php shop.php schema   drop and create two tables
//   php shop.php app      prepared statements (server-side, PDO's default) with typed binds, RETURNING, constraint
//                         errors by SQLSTATE, an aggregate join, bytea as a LOB, transactions and savepoints, an
//                         upsert telling inserts from updates by xmax = 0, column metadata, ON DELETE CASCADE
// It prints what it reads; the test compares fickle's output with PostgreSQL's.
$dsn = sprintf('pgsql:host=%s;port=%s;dbname=%s', getenv('PGHOST'), getenv('PGPORT'), getenv('PGDATABASE'));
$db = new PDO($dsn, getenv('PGUSER'), null, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);

function schema(PDO $db) {
  $db->exec('DROP TABLE IF EXISTS php_orders, php_customers');
  $db->exec('CREATE TABLE php_customers (id serial PRIMARY KEY, name text NOT NULL UNIQUE, vip boolean DEFAULT false, balance numeric(10,2) DEFAULT 0, joined timestamptz DEFAULT now(), tags text[], photo bytea)');
  $db->exec('CREATE TABLE php_orders (id bigserial PRIMARY KEY, customer int REFERENCES php_customers ON DELETE CASCADE, total numeric(10,2) NOT NULL CHECK (total >= 0), placed date NOT NULL)');
  echo "created\n";
}

function app(PDO $db) {
  $ins = $db->prepare('INSERT INTO php_customers (name, vip, balance, tags, photo) VALUES (:name, :vip, :balance, :tags, :photo) RETURNING id');
  foreach ([['ada', true, '10.50', '{a,b}', "\x00\x01\xff"], ['bob', false, '0', '{}', null], ['cy', false, '99.99', null, 'png']] as $c) {
    $ins->bindValue(':name', $c[0]);
    $ins->bindValue(':vip', $c[1], PDO::PARAM_BOOL);
    $ins->bindValue(':balance', $c[2]);
    $ins->bindValue(':tags', $c[3]);
    $ins->bindValue(':photo', $c[4], $c[4] === null ? PDO::PARAM_NULL : PDO::PARAM_LOB);
    $ins->execute();
    $ids[$c[0]] = $ins->fetchColumn();
  }
  echo "ids: ", json_encode($ids), "\n";
  $o = $db->prepare('INSERT INTO php_orders (customer, total, placed) VALUES (?, ?, ?)');
  foreach ([[$ids['ada'], '5.00', '2024-01-02'], [$ids['ada'], '7.25', '2024-02-03'], [$ids['cy'], '1.00', '2024-03-04']] as $r) $o->execute($r);
  try { $o->execute([$ids['bob'], '-1', '2024-01-01']); } catch (PDOException $e) { echo "check: ", $e->getCode(), "\n"; }
  try { $ins->execute([':name' => 'ada', ':vip' => 'f', ':balance' => 1, ':tags' => null, ':photo' => null]); } catch (PDOException $e) { echo "unique: ", $e->getCode(), "\n"; }
  $q = $db->prepare('SELECT c.name, c.vip, c.balance, c.tags, count(o.id) AS n, coalesce(sum(o.total), 0) AS total FROM php_customers c LEFT JOIN php_orders o ON o.customer = c.id WHERE c.balance >= ? GROUP BY c.id ORDER BY c.name');
  $q->execute([0]);
  foreach ($q->fetchAll(PDO::FETCH_ASSOC) as $row) echo json_encode($row), "\n";
  $p = $db->query("SELECT photo FROM php_customers WHERE name = 'ada'");
  $p->bindColumn(1, $photo, PDO::PARAM_LOB); $p->fetch(PDO::FETCH_BOUND);
  echo "photo: ", bin2hex(is_resource($photo) ? stream_get_contents($photo) : $photo), "\n";
  $db->beginTransaction();
  $db->exec("UPDATE php_customers SET balance = balance - 5 WHERE name = 'ada'");
  $db->exec('SAVEPOINT s1');
  $db->exec("DELETE FROM php_customers WHERE name = 'cy'");
  $db->exec('ROLLBACK TO SAVEPOINT s1');
  $db->commit();
  $db->beginTransaction();
  $db->exec("DELETE FROM php_customers WHERE name = 'bob'");
  $db->rollBack();
  $up = $db->prepare('INSERT INTO php_customers (name, balance) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET balance = php_customers.balance + excluded.balance RETURNING name, balance, (xmax = 0) AS inserted');
  foreach ([['ada', 1], ['dee', 2]] as $r) { $up->execute($r); echo json_encode($up->fetch(PDO::FETCH_ASSOC)), "\n"; }
  $m = $db->query('SELECT id, name, balance, joined, tags FROM php_customers LIMIT 1');
  for ($i = 0; $i < $m->columnCount(); $i++) { $meta = $m->getColumnMeta($i); echo $meta['name'], ':', $meta['native_type'], ':', $meta['pdo_type'], ' '; }
  echo "\n";
  echo "count: ", $db->query('SELECT count(*) FROM php_customers')->fetchColumn(), "\n";
  echo "orders left: ", $db->query('SELECT count(*) FROM php_orders')->fetchColumn(), "\n";
  $db->exec("DELETE FROM php_customers WHERE name = 'ada'");
  echo "orders after cascade: ", $db->query('SELECT count(*) FROM php_orders')->fetchColumn(), "\n";
  echo "server: ", $db->getAttribute(PDO::ATTR_SERVER_VERSION) !== '' ? 'ok' : 'none', "\n";
  try { $db->query('SELECT * FROM nosuch'); } catch (PDOException $e) { echo "missing: ", $e->getCode(), "\n"; }
}

match ($argv[1]) {
  'schema' => schema($db),
  'app' => app($db),
};
