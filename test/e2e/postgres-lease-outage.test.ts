/**
 * A database outage longer than TURN_LEASE_MS while a turn's model request streams: no heartbeat
 * can renew the turn's lease meanwhile, so once Postgres is back the instance's own claim finds the
 * turn claimable again. The run that is still going on keeps it — each turn runs once: one model
 * request per round, no `turn.resumed`, one terminal event, the last one stored. (Two runs of one
 * turn in one process asked the model and ran the tools twice, stored events after the terminal
 * one, and the first to end dropped the other's heartbeat.) One real service process on a real
 * Postgres server of this file alone, stopped (fast shutdown) and started again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres.js';
import { describePostgres } from '../support/postgres.js';
import { usePgInstances, type PgInstance } from './support/pg-instances.js';
import { lastUserText, slowTodoThenAnswer } from './support/scripts.js';
import { api } from './support/service.js';

const LEASE_MS = 1000;

/** A `todo` call streamed slowly (~4 s: the outage fits inside it), then the answer at once. */
const slowTodo = slowTodoThenAnswer(250);

describePostgres('a Postgres outage longer than the turn lease while the turn runs', () => {
  let db: OwnPostgres;
  const pg_ = usePgInstances({
    name: 'lease-outage',
    env: { TURN_LEASE_MS: String(LEASE_MS) },
    databaseUrl: async () => {
      db = await startOwnPostgres();
      return db.url;
    },
  });
  let instance: PgInstance;

  beforeAll(async () => {
    instance = await pg_.start('a');
  }, 200_000);

  afterAll(async () => {
    await db?.stop();
  });

  async function until(what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await ok().catch(() => false))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${pg_.children.map((c) => c.output()).join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The stored event types of a turn, in seq order (read from the database itself). */
  async function storedTypes(id: string): Promise<string[]> {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query<{ type: string }>('SELECT type FROM event_log WHERE stream_id = $1 ORDER BY seq', [id])).rows.map((r) => r.type);
    } finally {
      await c.end();
    }
  }

  it('runs each turn once: one model request per round, no turn.resumed, its terminal event last', async () => {
    // Two rounds: whether a claim meets an expired lease before a heartbeat tick renews it is a
    // race (lost about one time in four with the claim fired the moment the database answers).
    const TURNS = 3;
    pg_.model.push(...Array.from({ length: 40 }, () => slowTodo));
    for (const round of [1, 2]) {
      const before = pg_.model.requests.length;
      const ids: string[] = [];
      for (let i = 0; i < TURNS; i++) {
        const r = await api(instance.url, 'POST', '/v1/turns', { input: `through a long outage ${round}.${i}`, tools: ['todo'] });
        expect(r.status).toBe(202);
        ids.push(r.body.id as string);
      }
      await until('every turn to reach the model', async () => pg_.model.requests.length === before + TURNS);
      await db.pause();
      await new Promise((res) => setTimeout(res, LEASE_MS * 2.5)); // the leases run out meanwhile
      // A new turn, created the moment the database answers again, wakes the runner at once: its
      // claims (oldest first) meet the expired leases before a heartbeat tick renews them.
      const resumed = db.resume();
      let other: Awaited<ReturnType<typeof api>>;
      for (;;) {
        other = await api(instance.url, 'POST', '/v1/turns', { input: `after the outage ${round}`, tools: ['todo'] });
        if (other.status === 202) break;
        expect(other.body.error.code).toBe('database_unavailable');
        await new Promise((res) => setTimeout(res, 10));
      }
      await resumed;
      for (const t of [...ids, other.body.id as string]) {
        await until(`turn ${t} to finish`, async () => (await api(instance.url, 'GET', `/v1/turns/${t}`)).body.status === 'completed');
      }
      // Room for a second run of a turn, had one started, to finish its own slow request.
      await new Promise((res) => setTimeout(res, 5000));
      for (const [i, id] of ids.entries()) {
        const types = await storedTypes(id);
        expect(types.filter((t) => t === 'turn.completed' || t === 'turn.failed' || t === 'turn.cancelled'), types.join(' ')).toEqual(['turn.completed']);
        expect(types.at(-1)).toBe('turn.completed');
        expect(types).not.toContain('turn.resumed');
        const mine = pg_.model.requests.filter((q) => lastUserText(q.body) === `through a long outage ${round}.${i}`);
        expect(mine).toHaveLength(2); // the todo call, then the answer
      }
    }
    expect(instance.child.proc.exitCode).toBeNull();
  }, 180_000);
});
