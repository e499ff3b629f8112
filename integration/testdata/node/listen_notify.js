// LISTEN / NOTIFY through node-postgres, the way job queues and cache
// invalidation use it: a listener connection idles on its channels and
// prints each notification as it arrives; a sender notifies inside and
// outside transactions, rolls some back, and the listener also sits in a
// transaction block while notifications come. The transcript (no process
// IDs: they differ between servers) must be the same on fickle and on
// PostgreSQL. Usage: node listen_notify.js URL
const { Client } = require('pg');

const url = process.argv[2];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const listener = new Client({ connectionString: url });
  const sender = new Client({ connectionString: url });
  await listener.connect();
  await sender.connect();
  const senderPid = (await sender.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const listenerPid = (await listener.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const received = [];
  listener.on('notification', (n) => {
    const from = n.processId === senderPid ? 'sender' : n.processId === listenerPid ? 'listener' : 'other';
    received.push(`${n.channel}:${n.payload} from ${from}`);
  });
  const out = [];
  // waitFor waits until n notifications arrived (or a second passed) and
  // logs them; idle waits that little to show none arrived.
  async function waitFor(step, n) {
    for (let i = 0; i < 100 && received.length < n; i++) await sleep(10);
    if (n === 0) await sleep(150);
    out.push(`${step}: ${JSON.stringify(received.splice(0))}`);
  }

  await listener.query('LISTEN jobs');
  await listener.query('LISTEN "Mixed Case"');
  await listener.query('LISTEN jobs');
  out.push(`channels: ${JSON.stringify((await listener.query('SELECT * FROM pg_listening_channels()')).rows)}`);

  await sender.query('BEGIN');
  await sender.query("SELECT pg_notify('jobs', 'a')");
  await sender.query("NOTIFY jobs, 'b'");
  await sender.query("SELECT pg_notify('jobs', 'a')");
  await sender.query('NOTIFY "Mixed Case"');
  await sender.query("NOTIFY nobody, 'c'");
  await waitFor('before commit', 0);
  await sender.query('COMMIT');
  await waitFor('after commit', 3);

  await sender.query("BEGIN; NOTIFY jobs, 'rolled back'; ROLLBACK");
  await sender.query("BEGIN; NOTIFY jobs, 'kept 1'; SAVEPOINT s; NOTIFY jobs, 'undone'; ROLLBACK TO s; NOTIFY jobs, 'kept 2'; COMMIT");
  await waitFor('savepoints', 2);

  await listener.query('BEGIN');
  await sender.query("NOTIFY jobs, 'while in a block'");
  await waitFor('listener in a block', 0);
  await listener.query('COMMIT');
  await waitFor('block ended', 1);

  await listener.query("NOTIFY jobs, 'to myself'");
  await waitFor('own notification', 1);

  for (const [label, sql] of [
    ['empty channel', "SELECT pg_notify('', 'x')"],
    ['long channel', "SELECT pg_notify(repeat('x', 64), 'x')"],
    ['long payload', "SELECT pg_notify('jobs', repeat('x', 8000))"],
  ]) {
    try {
      await sender.query(sql);
      out.push(`${label}: ok`);
    } catch (e) {
      out.push(`${label}: ${e.code} ${e.message}`);
    }
  }

  await listener.query('UNLISTEN jobs');
  await sender.query("NOTIFY jobs, 'after unlisten'; NOTIFY \"Mixed Case\", 'still'");
  await waitFor('after UNLISTEN jobs', 1);
  await listener.query('UNLISTEN *');
  out.push(`channels: ${JSON.stringify((await listener.query('SELECT * FROM pg_listening_channels()')).rows)}`);

  await listener.end();
  await sender.end();
  console.log(out.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
