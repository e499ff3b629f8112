// A node-postgres pool increments one balance concurrently, the way an
// application fixes a lost update: BEGIN; SELECT ... FOR UPDATE; UPDATE with
// the value read plus one; COMMIT, retried on 40001 and 40P01. Then the same
// number of atomic UPDATE ... SET bal = bal + 1. Prints the balance after
// each phase as JSON.
//
// usage: node lock_increments.js DSN BEGIN_STATEMENT POOL_SIZE COUNT
const { Pool } = require('pg');

const [dsn, begin, poolSize, count] = process.argv.slice(2);
const pool = new Pool({ connectionString: dsn, max: Number(poolSize) });

async function retried(body) {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    try {
      await client.query(begin);
      await body(client);
      await client.query('COMMIT');
      return;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      if (!['40001', '40P01'].includes(err.code) || attempt >= 1000) throw err;
    } finally {
      client.release();
    }
  }
}

async function balance() {
  const res = await pool.query('SELECT bal FROM acct WHERE id = 1 FOR SHARE');
  return res.rows[0].bal;
}

async function main() {
  const n = Number(count);
  await Promise.all(Array.from({ length: n }, () => retried(async (c) => {
    const res = await c.query('SELECT bal FROM acct WHERE id = $1 FOR UPDATE', [1]);
    if (res.rows.length !== 1) throw new Error(`FOR UPDATE of one key returned ${res.rows.length} rows`);
    await c.query('UPDATE acct SET bal = $1 WHERE id = $2', [res.rows[0].bal + 1, 1]);
  })));
  const forUpdate = await balance();
  await Promise.all(Array.from({ length: n }, () => retried(async (c) => {
    await c.query('UPDATE acct SET bal = bal + 1 WHERE id = 1');
  })));
  const atomic = await balance();
  console.log(JSON.stringify({ forUpdate, atomic }));
  await pool.end();
}

main().catch((err) => { console.error(err); process.exit(1); });
