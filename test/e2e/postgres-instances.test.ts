/**
 * Two real service processes (src/main.ts) on one real Postgres, one scripted Responses server:
 * turns are claimed once across instances, events stream from the OTHER instance in order and
 * equal the stored log, a SIGKILLed instance's turn is taken over and completed by the other, a
 * cancel sent to one instance stops a turn running on the other, a schedule fires once, and one
 * Idempotency-Key sent to both instances at once makes one turn (one workflow).
 */
import { beforeAll, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { describePostgres } from '../support/postgres.js';
import { usePgInstances, type PgInstance } from './support/pg-instances.js';
import { hasToolOutput, lastUserText, todoThenAnswer } from './support/scripts.js';
import { readSse } from './support/sse-client.js';
import { api } from './support/service.js';

const TURNS = 200;

describePostgres('two instances on one Postgres', () => {
  const pg = usePgInstances({ name: 'instance', env: { TURN_LEASE_MS: '3000', SCHEDULER_TICK_MS: '200', MAX_CONCURRENT_TURNS: '8' } });
  let a: PgInstance;
  let b: PgInstance;

  beforeAll(async () => {
    [a, b] = await Promise.all([pg.start('a'), pg.start('b')]);
  }, 200_000);

  it(`runs ${TURNS} turns posted alternately to A and B exactly once, streaming each from the other instance`, async () => {
    pg.model.push(...Array.from({ length: TURNS * 2 }, () => todoThenAnswer));
    const created = await Promise.all(
      Array.from({ length: TURNS }, async (_, i) => {
        const [to, from] = i % 2 ? [a, b] : [b, a];
        const r = await api(to.url, 'POST', '/v1/turns', { input: `job ${i}`, tools: ['todo'] });
        expect(r.status).toBe(202);
        return { id: r.body.id as string, input: `job ${i}`, other: from.url, creator: to.url };
      }),
    );
    const streamed = await Promise.all(created.map((t) => readSse(`${t.other}/v1/turns/${t.id}/events`, { timeoutMs: 60_000 })));
    for (const [i, s] of streamed.entries()) {
      expect(s.serverClosed).toBe(true);
      expect(s.events.map((e) => Number(e.id))).toEqual(s.events.map((_, k) => k + 1));
      expect(s.events.at(-1)!.event).toBe('turn.completed');
      const stored = await readSse(`${created[i].creator}/v1/turns/${created[i].id}/events`, { timeoutMs: 10_000 });
      expect(s.events.map((e) => e.data)).toEqual(stored.events.map((e) => e.data));
    }
    // Each turn's first round reached the model once, its second round once.
    for (const t of created) {
      const mine = pg.model.requests.filter((r) => lastUserText(r.body) === t.input);
      expect([mine.filter((r) => !hasToolOutput(r.body)).length, mine.filter((r) => hasToolOutput(r.body)).length]).toEqual([1, 1]);
    }
  }, 120_000);

  it('cancels from B a turn running on A long before its model stream would end', async () => {
    // 40 deltas 500 ms apart: uncancelled, the stream runs 20 s. B broadcasts the cancel (NOTIFY), so
    // A's runner renews its claims at once and reads it, and B's answer waits for the turn's terminal
    // event, not for a poll: B answers the cancelled turn in tens of ms. Waiting for A's next heartbeat
    // and B's next poll (1 s each) took 1–2 s; 800 ms leaves room for a loaded machine.
    pg.model.push({ output: [message('slow '.repeat(40).trim(), { chunks: 'slow '.repeat(40).trim().split(' ') })], delayMs: 500 });
    const r = await api(a.url, 'POST', '/v1/turns', { input: 'cancel me' });
    const id = r.body.id as string;
    await readSse(`${b.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'message.delta', timeoutMs: 20_000 });
    const t0 = Date.now();
    const cancelled = await api(b.url, 'POST', `/v1/turns/${id}/cancel`);
    expect(Date.now() - t0).toBeLessThan(800);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const end = await readSse(`${a.url}/v1/turns/${id}/events`, { timeoutMs: 10_000 });
    expect(end.events.at(-1)!.event).toBe('turn.cancelled');
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(end.events.filter((e) => e.event === 'message.delta').length).toBeLessThan(20);
  }, 60_000);

  it('fires a schedule due once exactly once with both instances ticking', async () => {
    pg.model.push(todoThenAnswer, todoThenAnswer);
    const at = new Date(Date.now() + 1500).toISOString();
    const s = await api(a.url, 'POST', '/v1/schedules', { name: 'once', when: { at }, input: 'scheduled once', tools: ['todo'] });
    expect(s.status).toBe(201);
    const deadline = Date.now() + 15_000;
    let runs: { turn_id: string | null }[] = [];
    while (Date.now() < deadline) {
      runs = (await api(b.url, 'GET', `/v1/schedules/${s.body.id}/runs`)).body.data;
      if (runs[0]?.turn_id) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(runs).toHaveLength(1);
    const done = await readSse(`${b.url}/v1/turns/${runs[0].turn_id}/events`, { timeoutMs: 20_000 });
    expect(done.events.at(-1)!.event).toBe('turn.completed');
    await new Promise((r) => setTimeout(r, 1000)); // a second firing would show up by now
    expect((await api(a.url, 'GET', `/v1/schedules/${s.body.id}/runs`)).body.data).toHaveLength(1);
    expect(pg.model.requests.filter((q) => lastUserText(q.body) === 'scheduled once' && !hasToolOutput(q.body))).toHaveLength(1);
  }, 60_000);

  it('one Idempotency-Key sent to A and B at the same moment makes one turn, replayed to the other', async () => {
    const KEYS = 20;
    pg.model.push(...Array.from({ length: KEYS * 2 }, () => todoThenAnswer));
    const pairs = await Promise.all(
      Array.from({ length: KEYS }, (_, i) => {
        const body = { input: `keyed ${i}`, tools: ['todo'] };
        const key = { 'idempotency-key': `race-${i}` };
        return Promise.all([api(a.url, 'POST', '/v1/turns', body, key), api(b.url, 'POST', '/v1/turns', body, key)]);
      }),
    );
    for (const [x, y] of pairs) {
      expect([x.status, y.status]).toEqual([202, 202]);
      expect(x.body.id).toBe(y.body.id);
      expect([x.headers.get('idempotent-replayed'), y.headers.get('idempotent-replayed')].sort()).toEqual([null, 'true'].sort());
    }
    await Promise.all(pairs.map(([x]) => readSse(`${b.url}/v1/turns/${x.body.id}/events`, { timeoutMs: 60_000 })));
    for (let i = 0; i < KEYS; i++) {
      expect(pg.model.requests.filter((q) => lastUserText(q.body) === `keyed ${i}` && !hasToolOutput(q.body))).toHaveLength(1);
    }
    const listed = await api(a.url, 'GET', '/v1/turns?limit=100');
    expect(listed.body.data.filter((t: { input_preview?: string }) => t.input_preview?.startsWith('keyed '))).toHaveLength(KEYS);
  }, 120_000);

  it('one Idempotency-Key sent to A and B at the same moment makes one workflow', async () => {
    const body = {
      title: 'raced across instances',
      agent_id: 'idem-instances',
      tasks: [{ label: 'a', prompt: 'p', result_schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false } }],
    };
    pg.model.push({ output: [functionCall('submit_result', { result: { ok: true } })] });
    const key = { 'idempotency-key': 'workflow-across-instances' };
    const [x, y] = await Promise.all([api(a.url, 'POST', '/v1/workflows', body, key), api(b.url, 'POST', '/v1/workflows', body, key)]);
    expect([x.status, y.status]).toEqual([201, 201]);
    expect(x.body.id).toBe(y.body.id);
    expect([x.headers.get('idempotent-replayed'), y.headers.get('idempotent-replayed')].sort()).toEqual([null, 'true'].sort());
    const listed = await api(b.url, 'GET', '/v1/workflows?agent_id=idem-instances');
    expect(listed.body.data).toHaveLength(1);
    // Its one task turn ends before the next test scripts the model.
    const deadline = Date.now() + 30_000;
    while ((await api(a.url, 'GET', `/v1/workflows/${x.body.id}`)).body.status === 'running' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect((await api(a.url, 'GET', `/v1/workflows/${x.body.id}`)).body.status).toBe('completed');
  }, 60_000);

  it('the other instance takes over a turn of a SIGKILLed instance within the lease, and a client resuming there misses nothing', async () => {
    const text = 'one two three four five six seven eight nine ten';
    pg.model.push({ output: [message(text, { chunks: text.split(' ') })], delayMs: 400 });
    pg.model.push({ output: [message(text, { chunks: text.split(' ') })] });
    const r = await api(a.url, 'POST', '/v1/turns', { input: 'survive a crash' });
    const id = r.body.id as string;
    const before = await readSse(`${a.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'message.delta', timeoutMs: 20_000 });
    // Whichever instance claimed it (A is woken at once, B polls every second) is killed.
    const running = async (x: { url: string }) => (await api(x.url, 'GET', '/readyz')).body.turns.running as number;
    const [victim, survivor] = (await running(a)) === 1 ? [a, b] : [b, a];
    expect(await running(victim)).toBe(1);
    victim.child.proc.kill('SIGKILL');
    await victim.child.exited;
    const other = survivor;
    const t0 = Date.now();
    let resumedAfterMs: number | undefined;
    const lastId = before.events.at(-1)!.id!;
    const after = await readSse(`${other.url}/v1/turns/${id}/events`, {
      headers: { 'last-event-id': lastId },
      timeoutMs: 30_000,
      onEvent: (e) => {
        if (e.event === 'turn.resumed') resumedAfterMs ??= Date.now() - t0;
      },
    });
    expect(after.events.at(-1)!.event).toBe('turn.completed');
    // Taken over once the dead owner's lease (TURN_LEASE_MS=3000) ran out, plus B's 1 s claim poll.
    expect(resumedAfterMs).toBeDefined();
    expect(resumedAfterMs!).toBeLessThan(3000 + 2000);
    const all = [...before.events, ...after.events].map((e) => Number(e.id));
    expect(all).toEqual(all.map((_, k) => k + 1));
    expect(pg.model.requests.filter((q) => lastUserText(q.body) === 'survive a crash' && !hasToolOutput(q.body))).toHaveLength(2); // the cut round, once more
  }, 60_000);
});
