/**
 * Two real service processes on a real Postgres server of this file alone, which is stopped for a
 * few seconds and started again:
 * - each instance holds ONE LISTEN connection (the turn, workflow and job notifiers share it;
 *   counted in pg_stat_activity);
 * - a request during the outage gets 503 `database_unavailable` with `Retry-After`;
 * - the log stays short: each retried task (LISTEN reconnects, approval sweep, scheduler, job
 *   pass, turn claims, the heartbeat of a turn running through the outage — a command that does
 *   not touch the database —, webhook dispatcher, workflow leases) logs its failure once (again
 *   only for a different error), not once per retry, and `… recovered` once when the database is back.
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres.js';
import { describePostgres } from '../support/postgres.js';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { usePgInstances, type PgInstance } from './support/pg-instances.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

interface Line { level: string; msg: string }
const lines = (out: string): Line[] =>
  out.split('\n').flatMap((l) => {
    try {
      const j = JSON.parse(l);
      return typeof j.msg === 'string' ? [{ level: j.level, msg: j.msg }] : [];
    } catch {
      return [];
    }
  });

describePostgres('an instance while its Postgres server is down', () => {
  let db: OwnPostgres;
  const pgi = usePgInstances({
    name: 'outage-logs',
    env: { LOG_LEVEL: 'info' },
    databaseUrl: async () => {
      db = await startOwnPostgres();
      return db.url;
    },
  });

  it('one LISTEN connection per instance; 503 with Retry-After; failures logged once, recoveries once', async () => {
    let instances: PgInstance[] = [];
    try {
      instances = await Promise.all([pgi.start('a'), pgi.start('b')]);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'turn-service-listen'`);
        expect(rows[0].n).toBe(2);
      } finally {
        await client.end();
      }

      // A turn on A whose command outlasts the outage: A's heartbeat fails once a second meanwhile.
      pgi.model.push({ output: [functionCall('command', { command: 'sleep 14' }, { callId: 'call_outlast' })] }, { output: [message('slept through it')] });
      const created = await api(instances[0].url, 'POST', '/v1/turns', { input: 'sleep through the outage', tools: ['computer'] });
      expect(created.status).toBe(202);
      await readSse(`${instances[0].url}/v1/turns/${created.body.id}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 60_000 });

      const before = instances.map((x) => x.child.output().length);
      await db.pause();
      const r = await fetch(`${instances[0].url}/v1/turns`);
      expect(r.status).toBe(503);
      expect((await r.json()).error.code).toBe('database_unavailable');
      expect(r.headers.get('retry-after')).toBe('5');
      await new Promise((res) => setTimeout(res, 6000));
      const during = instances.map((x, i) => lines(x.child.output().slice(before[i])));
      for (const l of during) {
        // Old behaviour: ~12 LISTEN retries and 5 passes failing once a second → 40+ lines.
        expect(l.length, JSON.stringify(l, null, 1)).toBeLessThanOrEqual(20);
        const counts = new Map<string, number>();
        for (const x of l) counts.set(x.msg, (counts.get(x.msg) ?? 0) + 1);
        // One line per idle pooled connection the outage broke (more with a turn running): bounded by the pool (DATABASE_POOL_MAX 10), not by retries.
        const perConnection = 'an idle Postgres connection failed; the pool reconnects on next use';
        for (const [msg, n] of counts) expect(n, msg).toBeLessThanOrEqual(msg === perConnection ? 10 : 3);
        expect(l.filter((x) => x.msg === 'Postgres listen connection failed').length).toBeGreaterThanOrEqual(1);
        expect(l.filter((x) => x.msg === 'claiming turns failed').length).toBeGreaterThanOrEqual(1);
      }
      // Old behaviour: `turn heartbeat failed` once a second (about six times here); now once per distinct error.
      const beatFailures = (l: Line[]) => l.filter((x) => x.msg === 'turn heartbeat failed').length;
      expect(beatFailures(during[0])).toBeGreaterThanOrEqual(1);
      expect(beatFailures(during[0])).toBeLessThanOrEqual(2);

      await db.resume();
      for (const x of instances) {
        await expect
          .poll(async () => {
            const res = await fetch(`${x.url}/readyz`);
            return ((await res.json()) as { checks?: { listen?: string }; error?: { details?: { checks?: { listen?: string } } } });
          }, { timeout: 40_000, interval: 250 })
          .toSatisfy((b: { checks?: { listen?: string }; error?: { details?: { checks?: { listen?: string } } } }) => (b.checks ?? b.error?.details?.checks)?.listen === 'ok');
        await expect.poll(() => lines(x.child.output()).filter((l) => l.msg.startsWith('claiming turns recovered')).length, { timeout: 10_000 }).toBe(1);
        const after = lines(x.child.output());
        expect(after.filter((l) => l.msg.startsWith('Postgres listen connection recovered')).length).toBe(1);
      }
      await expect.poll(() => lines(instances[0].child.output()).filter((l) => l.msg.startsWith('turn heartbeat recovered after')).length, { timeout: 10_000 }).toBe(1);
      expect(beatFailures(lines(instances[0].child.output()))).toBe(beatFailures(during[0])); // none after the outage
      const done = await readSse(`${instances[0].url}/v1/turns/${created.body.id}/events`, { timeoutMs: 60_000 });
      expect(done.events.at(-1)?.json).toMatchObject({ type: 'turn.completed', output_text: 'slept through it' });
    } finally {
      await db?.stop();
    }
  }, 180_000);
});
