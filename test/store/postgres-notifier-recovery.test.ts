/**
 * A live reader on another instance sees every stored event soon after the database answers again,
 * whatever failed on the way while its LISTEN connection stayed up: the NOTIFY of the writer (the
 * event itself was stored), the reader's catch-up read after the wake-up, or the LISTEN
 * connection's own backend (alive to the client, delivering nothing). Real Postgres; failures are
 * real — connections cut by a loopback proxy, a backend stopped with SIGSTOP.
 */
import { afterEach, expect, it } from 'vitest';
import pg from 'pg';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { PgEventLog } from '../../src/store/postgres/pg-event-log.js';
import { PgEventNotifier } from '../../src/store/postgres/pg-notifier.js';
import { PublishedEventLog } from '../../src/store/published-event-log.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

type Ev = { type: string; n: number };

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** `url` reached through a loopback proxy that the test can cut and restore. */
async function proxied(url: string): Promise<{ url: string; proxy: TcpProxy }> {
  const u = new URL(url);
  const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
  closers.push(() => proxy.close());
  u.host = `127.0.0.1:${proxy.port}`;
  return { url: u.toString(), proxy };
}

/**
 * One "instance": the log's statements on `storeUrl`, NOTIFYs sent on `sendUrl`, LISTEN on
 * `listenUrl` (each its own connection(s), so the test can cut one and keep the others).
 */
async function instance(urls: { store: string; send?: string; listen?: string }) {
  const db = new PgDatabase({ url: urls.store, max: 4 });
  const sendDb = urls.send ? new PgDatabase({ url: urls.send, max: 2 }) : db;
  const store = new PgEventLog<Ev>(db);
  const errors: string[] = [];
  const notifier = new PgEventNotifier<Ev>({
    url: urls.listen ?? urls.store,
    send: (sql, p) => sendDb.query(sql, p),
    log: store as never,
    onError: (_err, what) => errors.push(what),
  });
  await notifier.start();
  closers.push(() => db.close(), async () => sendDb !== db && sendDb.close(), () => notifier.close());
  return { log: new PublishedEventLog(store, notifier), notifier, errors };
}

const until = async (what: string, fn: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describePostgres('a live reader recovers from failures while LISTEN stays up', () => {
  it('a NOTIFY that failed (the event was stored) still reaches the other instance once the database answers', async () => {
    const { url } = await migratedSchema();
    const send = await proxied(url);
    const a = await instance({ store: url, send: send.url });
    const b = await instance({ store: url });
    const seen: number[] = [];
    b.log.subscribe('s', (e) => seen.push(e.seq));
    await b.notifier.following('s');
    await send.proxy.stop(); // a's NOTIFYs fail; its INSERTs do not
    await a.log.append('s', { type: 'e', n: 1 });
    await until('the failed NOTIFY to be reported', () => a.errors.includes('notify'), 5000);
    expect(seen).toEqual([]);
    await send.proxy.start();
    await until('b to see the event', () => seen.includes(1), 8000);
    expect(b.notifier.listenState).toBe('ok');
    expect(seen).toEqual([1]);
  }, 30_000);

  it('a catch-up read that failed after a wake-up is tried again', async () => {
    const { url } = await migratedSchema();
    const reads = await proxied(url);
    const a = await instance({ store: url });
    const b = await instance({ store: reads.url, listen: url }); // b reads through the proxy, LISTENs directly
    const seen: number[] = [];
    b.log.subscribe('s', (e) => seen.push(e.seq));
    await b.notifier.following('s');
    await reads.proxy.stop();
    await a.log.append('s', { type: 'e', n: 1 }); // b is woken; its read fails
    await until('the failed catch-up read to be reported', () => b.errors.includes('catch-up read'), 5000);
    await reads.proxy.start();
    await until('b to see the event', () => seen.includes(1), 8000);
    expect(seen).toEqual([1]);
  }, 30_000);

  it('a LISTEN connection that delivers nothing (its backend stopped) is made up for by polling', async () => {
    const { url } = await migratedSchema();
    const a = await instance({ store: url });
    const b = await instance({ store: url });
    const seen: number[] = [];
    b.log.subscribe('s', (e) => seen.push(e.seq));
    await b.notifier.following('s');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    closers.push(() => admin.end());
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'turn-service-listen' AND query ILIKE 'LISTEN%'`,
    );
    expect(rows.length).toBe(2); // a's and b's (this file's database; other files' connections are not touched)
    // Stop both LISTEN backends: a NOTIFY is queued for them, never delivered while they stand still.
    for (const r of rows) process.kill(r.pid, 'SIGSTOP');
    closers.push(async () => {
      for (const r of rows) process.kill(r.pid, 'SIGCONT');
    });
    await a.log.append('s', { type: 'e', n: 1 });
    await until('b to see the event', () => seen.includes(1), 12_000);
    expect(b.notifier.listenState).toBe('ok'); // nothing told b its LISTEN was stuck
    expect(seen).toEqual([1]);
  }, 30_000);
});
