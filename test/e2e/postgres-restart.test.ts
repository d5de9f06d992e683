/**
 * Two real service processes on a real Postgres server of this file alone, which is stopped
 * (fast shutdown: every connection terminated) and started again while turns run: no process
 * crashes, /readyz answers 503 `database_unavailable` while the database is away and 200 again
 * once it is back (nothing restarted by hand), and the running turns complete with a gapless
 * event log streamed from either instance.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres.js';
import { describePostgres } from '../support/postgres.js';
import { usePgInstances, type PgInstance } from './support/pg-instances.js';
import { lastUserText, slowTodoThenAnswer } from './support/scripts.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

const TURNS = 4;

/** First round: a `todo` call streamed slowly (so the database goes away mid-round); then the answer. */
const slowTodo = slowTodoThenAnswer(300);

describePostgres('two instances while their Postgres server restarts', () => {
  let db: OwnPostgres;
  const pg = usePgInstances({
    name: 'restart',
    env: { TURN_LEASE_MS: '3000' },
    databaseUrl: async () => {
      db = await startOwnPostgres();
      return db.url;
    },
  });
  const children = pg.children;
  let instances: PgInstance[];

  beforeAll(async () => {
    instances = await Promise.all([pg.start('a'), pg.start('b')]);
  }, 200_000);

  afterAll(async () => {
    // Runs before the set-up's own clean-up (after-hooks run last-registered first): the instances
    // are SIGKILLed right after.
    await db?.stop();
  });

  const ready = async (x: { url: string }) => {
    try {
      return await api(x.url, 'GET', '/readyz');
    } catch (err) {
      return { status: 0, body: { error: String(err) } };
    }
  };
  async function until(what: string, ok: () => Promise<boolean>, ms = 90_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${children.map((c) => c.output()).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('running turns complete, /readyz goes 503 database_unavailable and back, no instance crashes', async () => {
    // A round cut by the outage runs again when its turn resumes (from its last checkpoint): room for that.
    pg.model.push(...Array.from({ length: TURNS * 4 }, () => slowTodo));
    const ids: string[] = [];
    for (let i = 0; i < TURNS; i++) {
      const r = await api(instances[i % 2].url, 'POST', '/v1/turns', { input: `through a restart ${i}`, tools: ['todo'] });
      expect(r.status).toBe(202);
      ids.push(r.body.id as string);
    }
    // Every turn is mid-round (its first model request is streaming) when the server goes away.
    await until('every turn to reach the model', async () => ids.every((_, i) => pg.model.requests.some((q) => lastUserText(q.body) === `through a restart ${i}`)));
    await db.pause();
    for (const x of instances) {
      await until('/readyz to answer 503', async () => (await ready(x)).status === 503);
      const r = await ready(x);
      expect(r.body.error).toMatchObject({ code: 'database_unavailable', details: { checks: { database: 'unavailable', engine: 'postgres' } } });
      expect((await api(x.url, 'GET', `/v1/turns/${ids[0]}`)).body.error.code).toBe('database_unavailable');
      expect((await api(x.url, 'GET', '/healthz')).status).toBe(200);
    }
    await db.resume();
    for (const x of instances) {
      // The pool reconnects on the next query, the LISTEN connection on its own retry.
      await until('/readyz to answer 200 with LISTEN back', async () => {
        const r = await ready(x);
        return r.status === 200 && r.body.checks.listen === 'ok';
      });
      expect((await ready(x)).body.checks).toMatchObject({ database: 'ok', engine: 'postgres', listen: 'ok' });
    }
    for (const [i, id] of ids.entries()) {
      for (const x of instances) {
        const s = await readSse(`${x.url}/v1/turns/${id}/events`, { timeoutMs: 90_000 });
        expect(s.events.map((e) => Number(e.id))).toEqual(s.events.map((_, k) => k + 1));
        expect(s.events.at(-1)!.event, JSON.stringify(s.events.map((e) => e.data))).toBe('turn.completed');
        expect(JSON.parse(s.events.at(-1)!.data).output_text).toBe(`done: through a restart ${i}`);
      }
    }
    for (const c of children) expect(c.proc.exitCode).toBeNull();
  }, 300_000);
});
