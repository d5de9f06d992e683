/**
 * Event-log benchmark across instances (`npm run bench:events`; needs a Postgres:
 * BENCH_DATABASE_URL or TEST_DATABASE_URL, e.g. `eval "$(scripts/test-postgres.sh start)"`).
 *
 * 50 streams (turns) each emit 200 events/s for 10 s on instance A (pool + batched PgEventLog +
 * PgEventNotifier); instance B (its own pool and LISTEN connection, in the same process) follows
 * every stream through its notifier, as an SSE subscriber on another instance would. Printed:
 * events/s stored, emit→receive latency p50/p99 on B, lost and reordered events — and the same
 * load on SQLite with the in-process notifier (one instance) side by side.
 * The paced load offers exactly 10,000 events/s, so its stored rate cannot exceed that; the
 * capacity the target asks for is measured by a second run that appends the same 100,000 events
 * as fast as the log takes them (`capacity`: events/s from the first append to the last stored),
 * with the follower on B still checked for loss and order. The machine's load average is printed
 * with the figures (other processes share the 2 cores).
 * Targets (2-core machine): ≥ 10,000 events/s sustained (capacity), p99 ≤ 100 ms across
 * instances at the paced load, 0 lost or reordered. Ends with `verdict: PASS|FAIL <figures>`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { openDatabase } from '../src/store/database.js';
import type { EventLog, EventNotifier } from '../src/store/event-log.js';
import { InProcessEventNotifier } from '../src/store/in-process-notifier.js';
import { migrate } from '../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../src/store/postgres/migrations/index.js';
import { PgDatabase } from '../src/store/postgres/pg-database.js';
import { PgEventLog } from '../src/store/postgres/pg-event-log.js';
import { PgEventNotifier } from '../src/store/postgres/pg-notifier.js';
import { PublishedEventLog } from '../src/store/published-event-log.js';
import { SqliteEventLog } from '../src/store/sqlite-event-log.js';

const STREAMS = 50;
const RATE = 200; // events/s per stream
const SECONDS = 10;
const TICK_MS = 10;

type Ev = { type: string; at: number; pad: string };

interface Result {
  stored: number;
  storedPerSec: number;
  p50: number;
  p99: number;
  lost: number;
  reordered: number;
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function run(
  writer: PublishedEventLog<Ev>,
  reader: Pick<EventNotifier<Ev>, 'subscribe'>,
  count: () => Promise<number>,
  ready: (streamId: string) => Promise<void> = async () => undefined,
  paced = true,
): Promise<Result> {
  const streams = Array.from({ length: STREAMS }, () => `bench-${randomBytes(6).toString('hex')}`);
  const latencies: number[] = [];
  let reordered = 0;
  let received = 0;
  const lastSeq = new Map<string, number>();
  for (const s of streams) {
    reader.subscribe(s, (e) => {
      received++;
      latencies.push(performance.now() - e.event.at);
      const prev = lastSeq.get(s) ?? 0;
      if (e.seq !== prev + 1) reordered++;
      lastSeq.set(s, e.seq);
    });
  }
  // A follower starts at the stream's position when it subscribed (read asynchronously); let
  // those reads land before emitting, as an SSE client would have read the log by then.
  await Promise.all(streams.map((s) => ready(s)));
  const total = STREAMS * RATE * SECONDS;
  const pending: Promise<unknown>[] = [];
  const t0 = performance.now();
  let emitted = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      // Paced: what is due by now; capacity: another 2,000 per tick, as fast as the loop turns.
      const due = Math.min(total, paced ? Math.round(((performance.now() - t0) / 1000) * RATE * STREAMS) : emitted + 2000);
      while (emitted < due) {
        const s = streams[emitted % STREAMS];
        pending.push(writer.append(s, { type: 'message.delta', at: performance.now(), pad: 'x'.repeat(60) }));
        emitted++;
      }
      if (emitted >= total) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  await Promise.all(pending);
  const storedIn = (performance.now() - t0) / 1000;
  const drainUntil = performance.now() + 10_000;
  while (received < total && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 20));
  const stored = await count();
  return {
    stored,
    storedPerSec: stored / storedIn,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    lost: total - received,
    reordered,
  };
}

async function postgres(url: string, paced = true): Promise<Result> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  const schemaUrl = u.toString();
  const a = new PgDatabase({ url: schemaUrl, max: 10 });
  const b = new PgDatabase({ url: schemaUrl, max: 10 });
  try {
    await migrate(a, MIGRATIONS);
    const logA = new PgEventLog<Ev>(a);
    const notifierA = new PgEventNotifier<Ev>({ url: schemaUrl, send: (sql, p) => a.query(sql, p), log: logA as unknown as EventLog });
    const logB = new PgEventLog<Ev>(b);
    const notifierB = new PgEventNotifier<Ev>({ url: schemaUrl, send: (sql, p) => b.query(sql, p), log: logB as unknown as EventLog });
    await Promise.all([notifierA.start(), notifierB.start()]);
    try {
      return await run(new PublishedEventLog(logA, notifierA), notifierB, async () => (await a.query<{ n: number }>('SELECT count(*)::int AS n FROM event_log')).rows[0].n, (id) => notifierB.following(id), paced);
    } finally {
      await Promise.all([notifierA.close(), notifierB.close()]);
    }
  } finally {
    await a.close();
    await b.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
  }
}

async function sqlite(): Promise<Result> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-events-'));
  const db = openDatabase(dir);
  try {
    const notifier = new InProcessEventNotifier<Ev>();
    return await run(new PublishedEventLog(new SqliteEventLog<Ev>(db), notifier), notifier, async () =>
      (db.prepare('SELECT count(*) AS n FROM event_log').get() as { n: number }).n,
    );
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!url) {
  console.error('bench:events needs a Postgres: set BENCH_DATABASE_URL or TEST_DATABASE_URL (eval "$(scripts/test-postgres.sh start)")');
  process.exit(2);
}
const fmt = (r: Result) =>
  `stored ${r.stored} (${Math.round(r.storedPerSec)}/s), latency p50 ${r.p50.toFixed(1)} ms p99 ${r.p99.toFixed(1)} ms, lost ${r.lost}, reordered ${r.reordered}`;
console.log(`load: ${STREAMS} streams × ${RATE} events/s × ${SECONDS} s = ${STREAMS * RATE * SECONDS} events`);
const lite = await sqlite();
console.log(`sqlite   (one instance, in-process wake-ups):     ${fmt(lite)}`);
const pgr = await postgres(url);
console.log(`postgres (A writes, B follows via LISTEN/NOTIFY): ${fmt(pgr)}`);
console.log(`ratio postgres/sqlite events/s: ${(pgr.storedPerSec / lite.storedPerSec).toFixed(2)}`);
const cap = await postgres(url, false);
console.log(`postgres capacity (the same events as fast as stored): ${fmt(cap)}`);
const loadavg = os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`load average (1/5/15 min): ${loadavg} on ${os.cpus().length} cores`);
const pass = cap.storedPerSec >= 10_000 && pgr.p99 <= 100 && pgr.lost + cap.lost === 0 && pgr.reordered + cap.reordered === 0;
console.log(
  `verdict: ${pass ? 'PASS' : 'FAIL'} postgres capacity ${Math.round(cap.storedPerSec)} events/s (target ≥ 10000), paced ${Math.round(pgr.storedPerSec)} events/s with p99 ${pgr.p99.toFixed(1)} ms (≤ 100), lost ${pgr.lost + cap.lost}, reordered ${pgr.reordered + cap.reordered}, load average ${loadavg}`,
);
