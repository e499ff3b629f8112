<?php
// A PHP application on Doctrine DBAL 3 and ORM 2 (Debian php-doctrine-dbal, php-doctrine-orm) over pdo_pgsql, run
// against the database PGHOST / PGPORT / PGUSER / PGDATABASE name:
//   php shop.php schema   drop what a previous run left, build a DBAL Schema in code and apply its SQL, create a
//                         view, a sequence, an enum, a domain and an identity table, create the ORM's tables with
//                         SchemaTool, and persist the ORM's fixtures
//   php shop.php app      the schema manager's introspection (tables, columns with types, defaults and comments,
//                         indexes, foreign keys, sequences, views), a comparator diff and its ALTER statements,
//                         query builder selects with typed parameters (server-side and emulated prepares), nested
//                         transactions (savepoints), lastInsertId; the ORM's SchemaTool update and validation, DQL
//                         with joins, aggregates, functions, subqueries and parameters, a native query, the
//                         paginator, class-table inheritance with bulk DQL, lazy and fetch-join loading, change
//                         sets, optimistic locking against a second connection, pessimistic locking, cascading
//                         removal
// It prints what it reads, sorted where PostgreSQL promises no order; the test compares fickle's output with
// PostgreSQL's.
require_once 'Doctrine/ORM/autoload.php';
require_once __DIR__ . '/entities/Shop.php';

use Doctrine\DBAL\ArrayParameterType;
use Doctrine\DBAL\Connection;
use Doctrine\DBAL\DriverManager;
use Doctrine\DBAL\LockMode;
use Doctrine\DBAL\ParameterType;
use Doctrine\DBAL\Schema\Schema;
use Doctrine\DBAL\Schema\Sequence;
use Doctrine\DBAL\Schema\Table;
use Doctrine\DBAL\Schema\View;
use Doctrine\DBAL\Types\Type;
use Doctrine\DBAL\Types\Types;
use Doctrine\ORM\Configuration;
use Doctrine\ORM\EntityManager;
use Doctrine\ORM\Mapping\Driver\AttributeDriver;
use Doctrine\ORM\OptimisticLockException;
use Doctrine\ORM\Proxy\ProxyFactory;
use Doctrine\ORM\Query\ResultSetMappingBuilder;
use Doctrine\ORM\Tools\Pagination\Paginator;
use Doctrine\ORM\Tools\SchemaTool;
use Doctrine\ORM\Tools\SchemaValidator;
use Shop\Address;
use Shop\CardPayment;
use Shop\Customer;
use Shop\OrderLine;
use Shop\Payment;
use Shop\PurchaseOrder;
use Shop\Tag;
use Shop\TransferPayment;

function connect(): Connection
{
    return DriverManager::getConnection([
        'driver' => 'pdo_pgsql',
        'host' => getenv('PGHOST'),
        'port' => (int) getenv('PGPORT'),
        'user' => getenv('PGUSER'),
        'dbname' => getenv('PGDATABASE'),
    ]);
}

function entityManager(Connection $conn): EntityManager
{
    $config = new Configuration();
    $config->setMetadataDriverImpl(new AttributeDriver([__DIR__ . '/entities']));
    $config->setProxyDir(sys_get_temp_dir());
    $config->setProxyNamespace('ShopProxies');
    $config->setAutoGenerateProxyClasses(ProxyFactory::AUTOGENERATE_EVAL);
    return new EntityManager($conn, $config);
}

function out(string $label, mixed $value): void
{
    echo $label, ': ', is_string($value) ? $value : json_encode($value, JSON_UNESCAPED_SLASHES), "\n";
}

// The tables the DBAL half builds in code.
function dbalSchema(): Schema
{
    $schema = new Schema();
    $authors = $schema->createTable('dbal_author');
    $authors->addColumn('id', Types::INTEGER, ['autoincrement' => true]);
    $authors->addColumn('name', Types::STRING, ['length' => 100, 'comment' => 'display name']);
    $authors->addColumn('email', Types::STRING, ['length' => 200, 'notnull' => false]);
    $authors->addColumn('active', Types::BOOLEAN, ['default' => true]);
    $authors->addColumn('score', Types::DECIMAL, ['precision' => 10, 'scale' => 2, 'default' => '0.00']);
    $authors->addColumn('joined', Types::DATETIME_MUTABLE, ['default' => 'CURRENT_TIMESTAMP']);
    $authors->addColumn('prefs', Types::JSON, ['notnull' => false]);
    $authors->addColumn('born', Types::DATE_IMMUTABLE, ['notnull' => false]);
    $authors->addColumn('ref', Types::GUID, ['notnull' => false]);
    $authors->setPrimaryKey(['id']);
    $authors->addUniqueIndex(['email'], 'dbal_author_email');
    $authors->setComment('people who write posts');

    $posts = $schema->createTable('dbal_post');
    $posts->addColumn('id', Types::BIGINT, ['autoincrement' => true]);
    $posts->addColumn('author_id', Types::INTEGER);
    $posts->addColumn('title', Types::STRING, ['length' => 200]);
    $posts->addColumn('body', Types::TEXT, ['notnull' => false]);
    $posts->addColumn('published', Types::DATE_MUTABLE, ['notnull' => false]);
    $posts->addColumn('rating', Types::SMALLINT, ['default' => 3]);
    $posts->addColumn('weight', Types::FLOAT, ['notnull' => false]);
    $posts->addColumn('tags', Types::SIMPLE_ARRAY, ['notnull' => false]);
    $posts->setPrimaryKey(['id']);
    $posts->addIndex(['author_id', 'published'], 'dbal_post_author_published');
    $posts->addForeignKeyConstraint('dbal_author', ['author_id'], ['id'], ['onDelete' => 'CASCADE'], 'dbal_post_author_fk');

    $schema->createSequence('dbal_ticket_seq', 10, 100);
    return $schema;
}

function schema(): void
{
    $conn = connect();
    $sm = $conn->createSchemaManager();
    foreach (['dbal_post_summary', 'dbal_author_active'] as $view) {
        $conn->executeStatement("DROP VIEW IF EXISTS $view");
    }
    $conn->executeStatement('DROP TABLE IF EXISTS dbal_post, dbal_author, dbal_event, shop_card_payment, shop_transfer_payment, shop_payment, shop_order_tag, shop_order_line, shop_order, shop_customer, shop_tag CASCADE');
    foreach (['dbal_ticket_seq', 'shop_customer_seq', 'shop_order_line_id_seq', 'shop_tag_id_seq'] as $seq) {
        $conn->executeStatement("DROP SEQUENCE IF EXISTS $seq");
    }
    $conn->executeStatement('DROP TYPE IF EXISTS dbal_mood');
    $conn->executeStatement('DROP DOMAIN IF EXISTS dbal_positive');

    $sql = dbalSchema()->toSql($conn->getDatabasePlatform());
    foreach ($sql as $statement) {
        echo $statement, "\n";
        $conn->executeStatement($statement);
    }
    $sm->createView(new View('dbal_author_active', 'SELECT id, name, email FROM dbal_author WHERE active'));
    $conn->executeStatement("CREATE TYPE dbal_mood AS ENUM ('calm', 'busy')");
    $conn->executeStatement('CREATE DOMAIN dbal_positive AS integer CHECK (VALUE > 0)');
    $conn->executeStatement("CREATE TABLE dbal_event (id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, kind varchar(20) NOT NULL, at timestamp(0) without time zone, mood dbal_mood DEFAULT 'calm', weight dbal_positive, labels text[] DEFAULT '{}', note text COLLATE \"C\" DEFAULT 'it''s')");

    $em = entityManager($conn);
    $tool = new SchemaTool($em);
    $metadata = $em->getMetadataFactory()->getAllMetadata();
    usort($metadata, fn ($a, $b) => strcmp($a->getName(), $b->getName()));
    foreach ($tool->getCreateSchemaSql($metadata) as $statement) {
        echo $statement, "\n";
    }
    $tool->createSchema($metadata);

    $tags = [];
    foreach (['gift', 'rush', 'bulk'] as $name) {
        $em->persist($tags[$name] = new Tag($name));
    }
    $ada = new Customer('ada', new Address('1 Loop Rd', 'London'));
    $bob = new Customer('bob', new Address('2 Stack St', 'Paris'));
    $bob->vip = true;
    $cy = new Customer('cy', new Address('3 Heap Ave', 'Oslo'));
    foreach ([$ada, $bob, $cy] as $c) {
        $em->persist($c);
    }
    $o1 = new PurchaseOrder($ada, '2024-01-02 10:00:00');
    $o1->addLine('pen', 3, '1.50');
    $o1->addLine('ink', 1, '7.25');
    $o1->tags->add($tags['gift']);
    $o1->meta = ['channel' => 'web', 'coupon' => null];
    $o2 = new PurchaseOrder($ada, '2024-02-03 11:30:00');
    $o2->addLine('paper', 10, '0.99');
    $o2->tags->add($tags['rush']);
    $o2->tags->add($tags['bulk']);
    $o3 = new PurchaseOrder($bob, '2024-03-04 09:15:00');
    $o3->addLine('desk', 1, '120.00');
    $o3->status = 'paid';
    $o3->meta = ['channel' => 'shop', 'items' => [1, 2]];
    $o3->tags->add($tags['bulk']);
    foreach ([[$o1, CardPayment::class, '9.75', '4242', null], [$o1, TransferPayment::class, '5.00', 'DE89370400440532013000', '2024-03-30'], [$o3, CardPayment::class, '120.00', '0005', null], [$o2, TransferPayment::class, '9.90', 'FR1420041010050500013M02606', '2024-04-02']] as [$order, $class, $amount, $ref, $valueDate]) {
        $p = new $class();
        $p->order = $order;
        $p->amount = $amount;
        if ($p instanceof CardPayment) {
            $p->last4 = $ref;
        } else {
            $p->iban = $ref;
            $p->valueDate = new DateTimeImmutable($valueDate);
        }
        $em->persist($p);
    }
    $em->flush();
    out('orm ids', [$ada->id, $bob->id, $cy->id, $o1->id, $o2->id, $o3->id]);
}

function printTable(Table $t): void
{
    echo 'table ', $t->getName(), ' comment=', json_encode($t->getComment()), "\n";
    foreach ($t->getColumns() as $c) {
        printf(
            "  column %s %s length=%s precision=%s scale=%s fixed=%s notnull=%s default=%s autoincrement=%s comment=%s\n",
            $c->getName(),
            Type::getTypeRegistry()->lookupName($c->getType()),
            json_encode($c->getLength()),
            json_encode($c->getPrecision()),
            json_encode($c->getScale()),
            json_encode($c->getFixed()),
            json_encode($c->getNotnull()),
            json_encode($c->getDefault()),
            json_encode($c->getAutoincrement()),
            json_encode($c->getComment())
        );
    }
    $indexes = $t->getIndexes();
    ksort($indexes);
    foreach ($indexes as $i) {
        printf(
            "  index %s (%s) unique=%s primary=%s\n",
            $i->getName(),
            implode(', ', $i->getColumns()),
            json_encode($i->isUnique()),
            json_encode($i->isPrimary())
        );
    }
    $fks = $t->getForeignKeys();
    ksort($fks);
    foreach ($fks as $fk) {
        printf(
            "  fk %s (%s) -> %s (%s) %s\n",
            $fk->getName(),
            implode(', ', $fk->getLocalColumns()),
            $fk->getForeignTableName(),
            implode(', ', $fk->getForeignColumns()),
            json_encode($fk->getOptions())
        );
    }
}

function dbal(Connection $conn): void
{
    $sm = $conn->createSchemaManager();
    $platform = $conn->getDatabasePlatform();
    // The types DBAL has no mapping of its own for; a domain maps as its base type.
    $platform->registerDoctrineTypeMapping('dbal_mood', Types::STRING);
    $platform->registerDoctrineTypeMapping('_text', Types::SIMPLE_ARRAY);
    $names = $sm->listTableNames();
    sort($names);
    out('tables', $names);
    foreach (['dbal_author', 'dbal_post', 'dbal_event'] as $name) {
        printTable($sm->introspectTable($name));
    }
    $seqs = array_map(fn (Sequence $s) => sprintf('%s by %d from %d', $s->getName(), $s->getAllocationSize(), $s->getInitialValue()), $sm->listSequences());
    sort($seqs);
    out('sequences', $seqs);
    $views = array_map(fn (View $v) => $v->getName() . ': ' . $v->getSql(), array_filter($sm->listViews(), fn (View $v) => $v->getNamespaceName() === 'public'));
    sort($views);
    out('views', $views);
    $indexes = array_keys($sm->listTableIndexes('dbal_post'));
    sort($indexes);
    out('indexes of dbal_post', $indexes);
    out('foreign keys of dbal_post', array_map(fn ($fk) => $fk->getName(), $sm->listTableForeignKeys('dbal_post')));
    out('columns of dbal_event', array_keys($sm->listTableColumns('dbal_event')));

    // The schema as built in code and as introspected agree.
    $comparator = $sm->createComparator();
    $live = $sm->introspectSchema();
    foreach (dbalSchema()->getTables() as $t) {
        out('diff of code and database for ' . $t->getName(), $platform->getAlterTableSQL($comparator->compareTables($live->getTable($t->getName()), $t)));
    }

    // A migration: an added column, a changed type, a new index, a dropped foreign key.
    $to = clone $live;
    $author = $to->getTable('dbal_author');
    $author->addColumn('nickname', Types::STRING, ['length' => 40, 'notnull' => false, 'comment' => 'short name']);
    $author->changeColumn('score', ['precision' => 12, 'scale' => 3]);
    $post = $to->getTable('dbal_post');
    $post->changeColumn('rating', ['type' => Type::getType(Types::INTEGER)]);
    $post->changeColumn('title', ['length' => 250]);
    $post->addIndex(['title'], 'dbal_post_title');
    $post->removeForeignKey('dbal_post_author_fk');
    $alter = $platform->getAlterSchemaSQL($comparator->compareSchemas($live, $to));
    sort($alter);
    foreach ($alter as $statement) {
        echo 'alter: ', $statement, "\n";
        $conn->executeStatement($statement);
    }
    printTable($sm->introspectTable('dbal_author'));
    printTable($sm->introspectTable('dbal_post'));
    out('after migration', $platform->getAlterSchemaSQL($comparator->compareSchemas($sm->introspectSchema(), $to)));

    // Rows through the query builder with typed parameters.
    $conn->insert('dbal_author', ['name' => 'ada', 'email' => 'ada@example.com', 'active' => true, 'score' => '12.5', 'joined' => new DateTime('2024-01-02 03:04:05'), 'prefs' => ['theme' => 'dark', 'size' => 12], 'born' => new DateTimeImmutable('1815-12-10'), 'ref' => 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'], ['active' => Types::BOOLEAN, 'joined' => Types::DATETIME_MUTABLE, 'prefs' => Types::JSON, 'born' => Types::DATE_IMMUTABLE]);
    out('lastInsertId', $conn->lastInsertId());
    $conn->insert('dbal_author', ['name' => 'bob', 'email' => null, 'active' => false, 'joined' => new DateTime('2023-06-07 08:09:10')], ['active' => Types::BOOLEAN, 'joined' => Types::DATETIME_MUTABLE]);
    out('lastInsertId', $conn->lastInsertId());
    $conn->insert('dbal_author', ['name' => 'cy', 'email' => 'cy@example.com', 'joined' => new DateTime('2024-05-06 07:08:09')], ['joined' => Types::DATETIME_MUTABLE]);
    $ids = $conn->fetchFirstColumn('SELECT id FROM dbal_author ORDER BY id');
    foreach ([[0, 'intro', '2024-01-10', ['a', 'b'], 1.5], [0, 'sequel', null, [], null], [1, 'notes', '2023-07-01', ['c'], 0.25], [2, 'draft', null, null, 2.0]] as [$a, $title, $published, $tags, $weight]) {
        $conn->insert('dbal_post', ['author_id' => $ids[$a], 'title' => $title, 'published' => $published === null ? null : new DateTime($published), 'tags' => $tags, 'weight' => $weight], ['published' => Types::DATE_MUTABLE, 'tags' => Types::SIMPLE_ARRAY]);
    }
    out('post lastInsertId', $conn->lastInsertId());
    out('ticket', [$conn->fetchOne($platform->getSequenceNextValSQL('dbal_ticket_seq')), $conn->fetchOne($platform->getSequenceNextValSQL('dbal_ticket_seq')), $conn->lastInsertId('dbal_ticket_seq')]);
    $conn->insert('dbal_event', ['kind' => 'boot', 'at' => new DateTime('2024-01-01 00:00:00')], ['at' => Types::DATETIME_MUTABLE]);
    $conn->insert('dbal_event', ['kind' => 'tick', 'mood' => 'busy', 'weight' => 3]);
    try {
        $conn->insert('dbal_event', ['kind' => 'bad', 'weight' => 0]);
    } catch (\Doctrine\DBAL\Exception\DriverException $e) {
        out('domain check', $e->getSQLState());
    }
    out('identity lastInsertId', $conn->lastInsertId());
    out('events', $conn->fetchAllNumeric('SELECT id, kind, at, mood, weight, labels, note FROM dbal_event ORDER BY id'));

    // The same selects with server-side prepared statements (PDO's default) and with prepares PDO emulates, which
    // sends simple queries with the values inlined.
    selects($conn, $ids, 'prepared');
    $conn->getNativeConnection()->setAttribute(PDO::ATTR_EMULATE_PREPARES, true);
    selects($conn, $ids, 'emulated');
    $conn->getNativeConnection()->setAttribute(PDO::ATTR_EMULATE_PREPARES, false);

    // Nested transactions become savepoints.
    $conn->setNestTransactionsWithSavepoints(true);
    $conn->beginTransaction();
    $conn->update('dbal_author', ['score' => '1.000'], ['name' => 'bob']);
    $conn->beginTransaction();
    $conn->delete('dbal_author', ['name' => 'cy']);
    out('nesting level', $conn->getTransactionNestingLevel());
    $conn->rollBack();
    $conn->beginTransaction();
    $conn->update('dbal_author', ['active' => true], ['name' => 'bob'], [Types::BOOLEAN]);
    $conn->commit();
    $conn->commit();
    out('after savepoints', $conn->fetchAllNumeric('SELECT name, score, active FROM dbal_author ORDER BY name'));
    try {
        $conn->transactional(function (Connection $c) {
            $c->insert('dbal_author', ['name' => 'dup', 'email' => 'ada@example.com']);
        });
    } catch (\Doctrine\DBAL\Exception\UniqueConstraintViolationException $e) {
        out('unique violation', $e->getSQLState());
    }
    try {
        $conn->insert('dbal_post', ['author_id' => 999, 'title' => 'orphan']);
        out('orphan post', 'accepted: the foreign key was dropped');
    } catch (\Doctrine\DBAL\Exception\ForeignKeyConstraintViolationException $e) {
        out('foreign key violation', $e->getSQLState());
    }
    try {
        $conn->insert('dbal_author', ['name' => null]);
    } catch (\Doctrine\DBAL\Exception\NotNullConstraintViolationException $e) {
        out('not null violation', $e->getSQLState());
    }
    out('count', $conn->fetchOne('SELECT count(*) FROM dbal_author'));
}

// selects runs query builder and SQL selects with parameters of several types.
function selects(Connection $conn, array $ids, string $how): void
{
    $qb = $conn->createQueryBuilder()
        ->select('a.name', 'a.active', 'a.score', 'a.joined', 'a.prefs', 'count(p.id) AS posts', 'max(p.published) AS latest')
        ->from('dbal_author', 'a')
        ->leftJoin('a', 'dbal_post', 'p', 'p.author_id = a.id')
        ->where('a.joined >= :since')
        ->andWhere('a.name <> :skip')
        ->groupBy('a.id')
        ->having('count(p.id) >= :min')
        ->orderBy('a.name')
        ->setParameter('since', new DateTime('2023-01-01'), Types::DATETIME_MUTABLE)
        ->setParameter('skip', 'nobody')
        ->setParameter('min', 0, ParameterType::INTEGER);
    foreach ($qb->executeQuery()->fetchAllAssociative() as $row) {
        $row['prefs'] = $row['prefs'] === null ? null : $conn->convertToPHPValue($row['prefs'], Types::JSON);
        out("$how author", $row);
    }
    $qb = $conn->createQueryBuilder()->select('p.title', 'p.tags', 'p.weight', 'p.rating', 'p.published')->from('dbal_post', 'p')
        ->where('p.author_id IN (:authors)')->andWhere('p.title NOT IN (:titles)')
        ->orderBy('p.title', 'DESC')->setFirstResult(1)->setMaxResults(2)
        ->setParameter('authors', $ids, ArrayParameterType::INTEGER)
        ->setParameter('titles', ['x', 'y'], ArrayParameterType::STRING);
    foreach ($qb->executeQuery()->fetchAllAssociative() as $row) {
        $row['tags'] = $conn->convertToPHPValue($row['tags'], Types::SIMPLE_ARRAY);
        out("$how post", $row);
    }
    out("$how active", $conn->fetchAllAssociative('SELECT name FROM dbal_author WHERE active = ? AND email LIKE ? ORDER BY name', [true, '%@example.com'], [ParameterType::BOOLEAN, ParameterType::STRING]));
    out("$how prefs", $conn->fetchAllNumeric('SELECT name, prefs ->> ? FROM dbal_author WHERE prefs IS NOT NULL AND CAST(prefs AS jsonb) @> CAST(? AS jsonb)', ['theme', json_encode(['size' => 12])]));
    out("$how view", $conn->fetchAllAssociative('SELECT name, email FROM dbal_author_active ORDER BY name'));
    out("$how born", $conn->convertToPHPValue($conn->fetchOne('SELECT born FROM dbal_author WHERE born < ?', [new DateTimeImmutable('1900-01-01')], [Types::DATE_IMMUTABLE]), Types::DATE_IMMUTABLE)->format('Y-m-d'));

}

function orm(Connection $conn): void
{
    $em = entityManager($conn);
    $tool = new SchemaTool($em);
    $metadata = $em->getMetadataFactory()->getAllMetadata();
    out('update sql after create', $tool->getUpdateSchemaSql($metadata, true));
    $validator = new SchemaValidator($em);
    out('mapping errors', $validator->validateMapping());
    out('in sync', $validator->schemaInSyncWithMetadata());
    // A column lost outside the ORM comes back with updateSchema.
    $conn->executeStatement('ALTER TABLE shop_customer DROP COLUMN vip');
    $conn->executeStatement('DROP INDEX shop_order_status');
    $update = $tool->getUpdateSchemaSql($metadata, true);
    sort($update);
    out('update sql', $update);
    $tool->updateSchema($metadata, true);
    out('in sync after update', $validator->schemaInSyncWithMetadata());
    $conn->executeStatement("UPDATE shop_customer SET vip = true WHERE name = 'bob'");

    // DQL: joins, aggregates, parameters.
    $rows = $em->createQuery('SELECT c.name, COUNT(DISTINCT o.id) AS orders, SUM(l.quantity * l.price) AS total, MAX(o.placedAt) AS last FROM Shop\Customer c LEFT JOIN c.orders o LEFT JOIN o.lines l GROUP BY c.id, c.name ORDER BY c.name')->getArrayResult();
    foreach ($rows as $r) {
        $r['last'] = $r['last'] === null ? null : (string) $r['last'];
        out('totals', $r);
    }
    $q = $em->createQuery('SELECT o FROM Shop\PurchaseOrder o JOIN o.customer c JOIN o.tags t WHERE c.name = :name AND o.placedAt >= :since AND t.name IN (:tags) AND c.vip = :vip ORDER BY o.id')
        ->setParameter('name', 'ada')
        ->setParameter('since', new DateTimeImmutable('2024-01-01'), Types::DATETIME_IMMUTABLE)
        ->setParameter('tags', ['gift', 'bulk'])
        ->setParameter('vip', false);
    out('ada orders tagged gift or bulk', array_map(fn (PurchaseOrder $o) => [$o->id, $o->placedAt->format('Y-m-d H:i'), $o->status], $q->getResult()));
    $ada = $em->getRepository(Customer::class)->findOneBy(['name' => 'ada']);
    out('orders of customer', $em->createQuery('SELECT COUNT(o) FROM Shop\PurchaseOrder o WHERE o.customer = :c')->setParameter('c', $ada)->getSingleScalarResult());
    out('by city', $em->createQuery("SELECT c.name FROM Shop\Customer c WHERE c.address.city LIKE :p OR c.vip = true ORDER BY c.name")->setParameter('p', 'L%')->getSingleColumnResult());
    out('tag usage', $em->createQuery('SELECT t.name, COUNT(o.id) AS n FROM Shop\Tag t LEFT JOIN t.orders o GROUP BY t.id, t.name HAVING COUNT(o.id) > :min ORDER BY n DESC, t.name')->setParameter('min', 0)->getArrayResult());
    out('lines over', $em->createQuery('SELECT l.product FROM Shop\OrderLine l WHERE l.price > :p AND l.quantity BETWEEN :lo AND :hi ORDER BY l.product')->setParameters(['p' => '1.00', 'lo' => 1, 'hi' => 5])->getSingleColumnResult());
    out('channels', $em->createQuery('SELECT o.id, o.meta FROM Shop\PurchaseOrder o WHERE o.meta IS NOT NULL ORDER BY o.id')->getArrayResult());
    out('functions', $em->createQuery("SELECT c.name, CONCAT(c.name, '@', c.address.city) AS label, UPPER(c.name) AS up, LENGTH(c.address.street) AS len, SUBSTRING(c.address.street, 3, 4) AS sub, LOCATE('o', c.address.street) AS pos, MOD(c.id, 2) AS odd, CASE WHEN c.vip = true THEN 'vip' ELSE 'regular' END AS tier, COALESCE(NULLIF(c.address.city, 'Oslo'), 'north') AS city, SIZE(c.orders) AS orders FROM Shop\Customer c ORDER BY c.name")->getArrayResult());
    out('subqueries', $em->createQuery('SELECT c.name FROM Shop\Customer c WHERE EXISTS (SELECT o.id FROM Shop\PurchaseOrder o JOIN o.lines l WHERE o.customer = c AND l.price > :p) OR c.id NOT IN (SELECT IDENTITY(o2.customer) FROM Shop\PurchaseOrder o2) ORDER BY c.name')->setParameter('p', '100')->getSingleColumnResult());
    out('date arithmetic', array_map(fn ($r) => [$r['id'], (string) $r['next'], $r['days']], $em->createQuery("SELECT o.id, DATE_ADD(o.placedAt, 1, 'month') AS next, DATE_DIFF(o.placedAt, '2024-01-01') AS days FROM Shop\PurchaseOrder o ORDER BY o.id")->getArrayResult()));
    $rsm = new ResultSetMappingBuilder($em);
    $rsm->addRootEntityFromClassMetadata(Tag::class, 't');
    $rsm->addScalarResult('uses', 'uses', 'integer');
    $native = $em->createNativeQuery('SELECT ' . $rsm->generateSelectClause() . ', (SELECT count(*) FROM shop_order_tag ot WHERE ot.tag_id = t.id) AS uses FROM shop_tag t WHERE t.name <> ? ORDER BY t.name', $rsm);
    out('native', array_map(fn ($r) => [$r[0]->name, $r['uses']], $native->setParameter(1, 'none')->getResult()));
    // A page of a fetch-joined query: the paginator's count and its limit subquery.
    $page = new Paginator($em->createQuery('SELECT c, o FROM Shop\Customer c LEFT JOIN c.orders o ORDER BY c.name DESC')->setFirstResult(1)->setMaxResults(2));
    out('page', [count($page), array_map(fn (Customer $c) => [$c->name, count($c->orders)], iterator_to_array($page))]);
    $em->clear();

    // Class-table inheritance: polymorphic reads, INSTANCE OF, and bulk DQL over several tables (through a temporary
    // table).
    out('payments', array_map(fn (Payment $p) => [(new ReflectionClass($p))->getShortName(), $p->order->id, $p->amount], $em->createQuery('SELECT p FROM Shop\Payment p ORDER BY p.amount')->getResult()));
    out('card payments', $em->createQuery('SELECT p.amount FROM Shop\Payment p WHERE p INSTANCE OF Shop\CardPayment ORDER BY p.amount')->getSingleColumnResult());
    out('transfers by value date', array_map(fn ($r) => [$r['iban'], $r['valueDate']->format('Y-m-d')], $em->createQuery('SELECT t.iban, t.valueDate FROM Shop\TransferPayment t WHERE t.valueDate >= :d ORDER BY t.valueDate')->setParameter('d', new DateTimeImmutable('2024-04-01'), Types::DATE_IMMUTABLE)->getArrayResult()));
    out('settle transfers', $em->createQuery('UPDATE Shop\TransferPayment t SET t.settled = true, t.iban = LOWER(t.iban) WHERE t.amount > :a')->setParameter('a', '6.00')->execute());
    out('delete small cards', $em->createQuery('DELETE FROM Shop\CardPayment c WHERE c.amount < :a')->setParameter('a', '10')->execute());
    out('payments after', $conn->fetchAllNumeric('SELECT p.method, p.amount, p.settled, t.iban FROM shop_payment p LEFT JOIN shop_transfer_payment t USING (id) ORDER BY p.id'));
    out('card rows', $conn->fetchOne('SELECT count(*) FROM shop_card_payment'));
    $em->clear();

    // Lazy loading: the customer is a proxy until read, the lines a collection loaded on first use.
    $order = $em->find(PurchaseOrder::class, 1);
    out('customer before reading', $order->customer instanceof \Doctrine\Persistence\Proxy && !$order->customer->__isInitialized() ? 'uninitialized proxy' : 'loaded');
    out('lazy customer', [$order->customer->name, $order->customer->address->street, $order->customer->address->city]);
    out('lazy lines', array_map(fn (OrderLine $l) => [$l->product, $l->quantity, $l->price], $order->lines->toArray()));
    out('lazy tags', array_map(fn (Tag $t) => $t->name, $order->tags->toArray()));
    $em->clear();
    // Fetch joins: one query loads orders, lines and tags.
    $orders = $em->createQuery('SELECT o, c, l, t FROM Shop\PurchaseOrder o JOIN o.customer c JOIN o.lines l LEFT JOIN o.tags t ORDER BY o.id, l.product, t.name')->getResult();
    foreach ($orders as $o) {
        out('fetch join', [$o->id, $o->customer->name, $o->lines->isInitialized(), count($o->lines), array_map(fn (Tag $t) => $t->name, $o->tags->toArray())]);
    }
    $em->clear();

    // Change sets: the unit of work updates only the changed columns.
    $order = $em->find(PurchaseOrder::class, 2);
    $order->status = 'shipped';
    $order->meta = ['carrier' => 'post'];
    $order->lines[0]->quantity = 12;
    $uow = $em->getUnitOfWork();
    $uow->computeChangeSets();
    $set = $uow->getEntityChangeSet($order);
    ksort($set);
    out('order change set', array_map(fn ($pair) => array_map(fn ($v) => $v instanceof DateTimeInterface ? $v->format('c') : $v, $pair), $set));
    out('line change set', $uow->getEntityChangeSet($order->lines[0]));
    $order->lines->removeElement($order->lines[0]);
    $order->addLine('stapler', 2, '4.40');
    $order->tags->removeElement($order->tags->filter(fn (Tag $t) => $t->name === 'rush')->first());
    $em->flush();
    out('version after flush', $order->version);
    $em->clear();
    out('order 2', $conn->fetchAllNumeric('SELECT o.status, o.meta::text, o.version, string_agg(l.product || \'x\' || l.quantity, \',\' ORDER BY l.product) FROM shop_order o JOIN shop_order_line l ON l.order_id = o.id WHERE o.id = 2 GROUP BY o.id'));
    out('order 2 tags', $conn->fetchFirstColumn('SELECT t.name FROM shop_order_tag ot JOIN shop_tag t ON t.id = ot.tag_id WHERE ot.purchaseorder_id = 2 ORDER BY 1'));

    // Optimistic locking: another connection bumps the version between read and flush.
    $order = $em->find(PurchaseOrder::class, 3);
    $em->lock($order, LockMode::OPTIMISTIC, $order->version);
    try {
        $em->lock($order, LockMode::OPTIMISTIC, $order->version + 5);
    } catch (OptimisticLockException $e) {
        out('lock with a stale version', get_class($e));
    }
    $other = connect();
    out('other connection updates', $other->executeStatement("UPDATE shop_order SET version = version + 1, status = 'cancelled' WHERE id = 3"));
    $order->status = 'refunded';
    try {
        $em->flush();
        out('conflicting flush', 'succeeded');
    } catch (OptimisticLockException $e) {
        out('conflicting flush', get_class($e));
    }
    out('em open', $em->isOpen());
    // The retry reloads the order under a row lock, which reads the newest version whoever wrote it.
    $em = entityManager($conn);
    $order = $em->wrapInTransaction(function (EntityManager $em) {
        $order = $em->find(PurchaseOrder::class, 3, LockMode::PESSIMISTIC_WRITE);
        out('order 3 reloaded', [$order->status, $order->version]);
        $order->status = 'refunded';
        return $order;
    });
    out('order 3 after retry', [$order->status, $order->version]);
    $em->clear();

    // Pessimistic locking: SELECT ... FOR UPDATE in a transaction keeps another connection's NOWAIT lock out.
    $em->beginTransaction();
    $order = $em->find(PurchaseOrder::class, 3, LockMode::PESSIMISTIC_WRITE);
    try {
        $other->fetchOne('SELECT id FROM shop_order WHERE id = 3 FOR UPDATE NOWAIT');
        out('other lock', 'granted');
    } catch (\Doctrine\DBAL\Exception\DriverException $e) {
        out('other lock', [get_class($e), $e->getSQLState()]);
    }
    $order->status = 'locked';
    $em->flush();
    $em->commit();
    out('other lock after commit', $other->fetchOne('SELECT status FROM shop_order WHERE id = 3 FOR UPDATE NOWAIT'));
    $em->clear();
    try {
        $em->find(PurchaseOrder::class, 3, LockMode::PESSIMISTIC_WRITE);
    } catch (\Doctrine\ORM\TransactionRequiredException $e) {
        out('pessimistic lock outside a transaction', get_class($e));
    }
    $em->clear();
    $em->wrapInTransaction(function (EntityManager $em) {
        $tags = $em->createQuery('SELECT t FROM Shop\Tag t ORDER BY t.name')->setLockMode(LockMode::PESSIMISTIC_READ)->getResult();
        out('tags shared lock', array_map(fn (Tag $t) => $t->name, $tags));
    });

    // Removal with cascades: the customer's orders and their lines go with it, and the orders' tag links.
    $ada = $em->getRepository(Customer::class)->findOneBy(['name' => 'ada']);
    $em->remove($ada);
    $em->flush();
    $em->clear();
    out('after removing ada', $conn->fetchAllNumeric('SELECT (SELECT count(*) FROM shop_customer), (SELECT count(*) FROM shop_order), (SELECT count(*) FROM shop_order_line), (SELECT count(*) FROM shop_order_tag), (SELECT count(*) FROM shop_tag), (SELECT count(*) FROM shop_payment), (SELECT count(*) FROM shop_transfer_payment)'));
    $bob = $em->getRepository(Customer::class)->findOneBy(['name' => 'bob']);
    $bob->orders[0]->lines->clear();
    $em->flush();
    out('orphans removed', $conn->fetchOne('SELECT count(*) FROM shop_order_line'));
    $conn->executeStatement("DELETE FROM shop_customer WHERE name = 'bob'");
    out('database cascade', $conn->fetchAllNumeric('SELECT (SELECT count(*) FROM shop_customer), (SELECT count(*) FROM shop_order)'));
    $em->clear();
    $dee = new Customer('dee', new Address('4 Queue Ln', 'Rome'));
    $order = new PurchaseOrder($dee, '2024-06-01 12:00:00');
    $order->addLine('lamp', 1, '30.00');
    $em->persist($dee);
    $em->flush();
    out('new ids', [$dee->id, $order->id, $order->lines[0]->id]);
}

match ($argv[1]) {
    'schema' => schema(),
    'app' => (function () {
        $conn = connect();
        dbal($conn);
        orm($conn);
    })(),
};
