/** The event log contract against Postgres (batched multi-row inserts) and SQLite, and LISTEN/NOTIFY wake-ups across instances. */
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import type { LoggedEvent } from '../../src/store/event-log.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { PgEventLog } from '../../src/store/postgres/pg-event-log.js';
import { PgEventNotifier } from '../../src/store/postgres/pg-notifier.js';
import { PublishedEventLog } from '../../src/store/published-event-log.js';
import { SqliteEventLog } from '../../src/store/sqlite-event-log.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { describeEventLogContract } from './contracts/event-log.contract.js';
import { describeEventLogWritersContract } from './contracts/event-log-writers.contract.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Several connections on one file (as several processes would be): opened without the service's exclusive lock. */
const SHARED = { exclusive: false };

describeEventLogWritersContract('sqlite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evlog-'));
  const [da, db] = [openDatabase(dir, SHARED), openDatabase(dir, SHARED)];
  return {
    a: new SqliteEventLog(da),
    b: new SqliteEventLog(db),
    close: async () => {
      da.close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describePostgres('postgres event log', () => {
  describeEventLogWritersContract('postgres', async () => {
    const { db, url } = await migratedSchema();
    const other = new PgDatabase({ url, max: 4 });
    return { a: new PgEventLog(db), b: new PgEventLog(other), close: async () => (await db.close(), await other.close()) };
  });
  describeEventLogContract('postgres', async () => {
    const { db } = await migratedSchema();
    return { log: new PgEventLog(db), close: () => db.close() };
  });
});

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

type Ev = { type: string; n: number };

/** One "instance": a pool, the log, a notifier listening on `listenUrl`. */
async function instance(url: string, listenUrl = url) {
  const db = new PgDatabase({ url, max: 4 });
  const store = new PgEventLog<Ev>(db);
  const notifier = new PgEventNotifier<Ev>({ url: listenUrl, send: (sql, p) => db.query(sql, p), log: store as never });
  await notifier.start();
  closers.push(() => db.close(), () => notifier.close());
  return { log: new PublishedEventLog(store, notifier), notifier };
}

const until = async (fn: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describePostgres('LISTEN/NOTIFY wake-ups', () => {
  it('wakes a subscriber on another instance for every stored event, in order', async () => {
    const { url } = await migratedSchema();
    const a = await instance(url);
    const b = await instance(url);
    const seen: LoggedEvent<Ev>[] = [];
    await a.log.append('s', { type: 'e', n: 0 });
    b.log.subscribe('s', (e) => seen.push(e));
    await b.notifier.following('s');
    for (let n = 1; n <= 50; n++) await a.log.append('s', { type: 'e', n });
    await until(() => seen.at(-1)?.seq === 51);
    const seqs = seen.map((e) => e.seq);
    expect(seqs).toEqual([...new Set(seqs)].sort((x, y) => x - y));
    expect(seqs.at(-1)).toBe(51);
  });

  it('falls back to polling while the LISTEN connection is down and misses nothing', async () => {
    const { url } = await migratedSchema();
    const u = new URL(url);
    const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
    closers.push(() => proxy.close());
    const listenUrl = new URL(url);
    listenUrl.host = `127.0.0.1:${proxy.port}`;
    const a = await instance(url);
    const b = await instance(url, listenUrl.toString());
    expect(b.notifier.listenState).toBe('ok');
    const seen: number[] = [];
    await a.log.append('s', { type: 'e', n: 0 });
    b.log.subscribe('s', (e) => seen.push(e.seq));
    await b.notifier.following('s');
    await a.log.append('s', { type: 'e', n: 1 });
    await until(() => seen.includes(2));
    await proxy.stop(); // the LISTEN connection drops; NOTIFYs no longer reach b
    await until(() => b.notifier.listenState === 'reconnecting');
    for (let n = 2; n <= 5; n++) await a.log.append('s', { type: 'e', n });
    await until(() => seen.includes(6), 3000); // by polling
    await proxy.start();
    await until(() => b.notifier.listenState === 'ok', 5000);
    await a.log.append('s', { type: 'e', n: 6 });
    await until(() => seen.includes(7));
    expect(seen).toEqual([2, 3, 4, 5, 6, 7]);
  });
});
