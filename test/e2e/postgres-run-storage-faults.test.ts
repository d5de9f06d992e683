/**
 * A turn whose own storage fails at an awkward moment on Postgres never goes on without its
 * checkpoints and is never reported finished unfinished: its run stops, releases the turn, and the
 * turn resumes from what is stored and ends once, with a continuation (`previous_turn_id`) seeing
 * the whole conversation. The real service (in process, on a loopback port) on a real Postgres
 * reached through a proxy that reads the wire protocol and cuts the connection at the chosen
 * moment (test/support/pg-fault-proxy.ts); a scripted model.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer, type ScriptEntry } from '../support/scripted-responses-server.js';
import { startPgFaultProxy, type PgFaultProxy } from '../support/pg-fault-proxy.js';
import { describePostgres, freshSchema } from '../support/postgres.js';
import { hasToolOutput, lastUserText } from './support/scripts.js';
import { readSse } from './support/sse-client.js';
import { api, startTestService, type TestService } from './support/service.js';

/**
 * A `todo` call, then the answer; `onCall` / `onAnswer` run when the model is asked for either
 * (before anything of the response is sent), e.g. to arm a fault for what follows.
 */
const todoThenAnswer =
  (hooks: { onCall?: () => void; onAnswer?: () => void } = {}): ScriptEntry =>
  (body) => {
    if (hasToolOutput(body)) {
      hooks.onAnswer?.();
      return { output: [message(`done: ${lastUserText(body)}`)], delayMs: 10 };
    }
    hooks.onCall?.();
    return { output: [functionCall('todo', { todos: [{ id: '1', content: lastUserText(body), status: 'in_progress' }] })], delayMs: 10 };
  };

describePostgres('storage faults of a running turn on Postgres', () => {
  let model: ScriptedResponsesServer;
  let proxy: PgFaultProxy;
  let svc: TestService;
  const logs: { msg?: string; turn_id?: string; previous_run?: string }[] = [];

  beforeAll(async () => {
    model = await startScriptedResponsesServer();
    proxy = await startPgFaultProxy((await freshSchema()).url);
    svc = await startTestService({
      modelBaseURL: model.baseURL,
      env: { DATABASE_URL: proxy.url, STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters', LOG_LEVEL: 'info', TURN_LEASE_MS: '3000' },
      logDestination: { write: (line) => void logs.push(JSON.parse(line)) },
    });
  }, 60_000);

  afterAll(async () => {
    await svc?.close();
    await proxy?.close();
    await model?.close();
  });

  afterEach(() => {
    expect(model.remaining(), 'script entries left over').toBe(0);
  });

  async function finished(id: string): Promise<Record<string, unknown>> {
    const end = Date.now() + 30_000;
    for (;;) {
      const r = await api(svc.url, 'GET', `/v1/turns/${id}`);
      if (r.status === 200 && ['completed', 'failed', 'cancelled'].includes(r.body.status)) return r.body;
      if (Date.now() > end) throw new Error(`turn ${id} did not finish: ${JSON.stringify(r.body)}\n${JSON.stringify(logs.filter((l) => l.turn_id === id))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The turn's stream from the start: gapless, exactly one terminal event, the last one. */
  async function stream(id: string) {
    const s = await readSse(`${svc.url}/v1/turns/${id}/events`, { timeoutMs: 20_000 });
    expect(s.events.map((e) => Number(e.id))).toEqual(s.events.map((_, k) => k + 1));
    const types = s.events.map((e) => e.event);
    expect(types.filter((t) => t === 'turn.completed' || t === 'turn.failed' || t === 'turn.cancelled'), types.join(' ')).toEqual(['turn.completed']);
    expect(types.at(-1)).toBe('turn.completed');
    return types;
  }

  it('a checkpoint whose COMMIT went through but whose answer was lost: the run stops and resumes from it; the continuation sees every item', async () => {
    // Asked for the first response, the next checkpoint that stores transcript items is the final
    // one (the call, its output and the answer: a round the event log rebuilds is not checkpointed
    // again after it): its COMMIT is carried out, its answer lost. (The mid-round checkpoint
    // before it stores no items: losing its answer changes no count.)
    let fired: Promise<void> | undefined;
    const entry = todoThenAnswer({ onCall: () => (fired ??= proxy.loseCommitReply(/INSERT INTO turn_items/)) });
    model.push(entry, entry, { output: [message('ok')] });
    const before = model.requests.length;
    const r = await api(svc.url, 'POST', '/v1/turns', { input: 'lost commit answer', tools: ['todo'] });
    expect(r.status).toBe(202);
    const id = r.body.id as string;
    const rec = await finished(id);
    await fired;
    expect(rec.status).toBe('completed');
    expect(rec.output_text).toBe('done: lost commit answer');
    // A continuation starts from the stored transcript: the call, its output and the answer.
    const next = await api(svc.url, 'POST', '/v1/turns', { input: 'and then?', previous_turn_id: id });
    expect(next.status).toBe(202);
    expect((await finished(next.body.id as string)).status).toBe('completed');
    const input = JSON.stringify(model.requests.at(-1)!.body.input);
    expect(input).toContain('function_call_output');
    expect(input).toContain('done: lost commit answer');
    // The run stopped at the failed save and the turn resumed from what was stored — the lost
    // save itself: neither the round nor the answer was run or requested again.
    const types = await stream(id);
    expect(types).toContain('turn.resumed');
    expect(types.filter((t) => t === 'tool.started')).toHaveLength(1);
    expect(model.requests.length - before).toBe(3);
  }, 60_000);

  it('the first checkpoint of a new turn is lost with its connection: the turn resumes instead of failing', async () => {
    model.push(todoThenAnswer(), todoThenAnswer());
    const fired = proxy.loseCommitReply(/INSERT INTO turn_checkpoints/);
    const r = await api(svc.url, 'POST', '/v1/turns', { input: 'first checkpoint lost', tools: ['todo'] });
    expect(r.status).toBe(202);
    const id = r.body.id as string;
    await fired;
    const rec = await finished(id);
    expect(rec.status, JSON.stringify(rec.error)).toBe('completed');
    expect(rec.output_text).toBe('done: first checkpoint lost');
    await stream(id);
  }, 60_000);

  it('a turn-record read that fails as the turn ends: the run releases the turn (never reports it finished), which resumes and ends once', async () => {
    // Asked for the answer, the next read of the whole turn record is the one the ending makes
    // (after the final checkpoint): its connection is cut before it reaches the server.
    let cut: Promise<string> | undefined;
    const entry = todoThenAnswer({ onAnswer: () => (cut ??= proxy.cutBefore(/^SELECT id, agent_id, status, .* FROM turns WHERE id = \$1$/s)) });
    model.push(entry, entry);
    const before = model.requests.length;
    const r = await api(svc.url, 'POST', '/v1/turns', { input: 'failed final read', tools: ['todo'] });
    expect(r.status).toBe(202);
    const id = r.body.id as string;
    // (Nothing else reads the turn meanwhile: the test polls its record only once the cut is done.)
    while (!cut) await new Promise((res) => setTimeout(res, 5));
    expect(await cut).toContain('FROM turns');
    const rec = await finished(id);
    expect(rec.status).toBe('completed');
    expect(rec.output_text).toBe('done: failed final read');
    await stream(id);
    expect(model.requests.length - before).toBe(2);
    // The stopped run released the turn: it resumed as released, not as a lost (crashed) run
    // whose lease was dropped by a run that said it had finished.
    const resumed = logs.filter((l) => l.turn_id === id && l.msg === 'turn resumed');
    expect(resumed.map((l) => l.previous_run)).toEqual(['released']);
    expect(logs.some((l) => l.turn_id === id && /finishing the turn record failed/.test(l.msg ?? ''))).toBe(true);
  }, 60_000);
});

describePostgres('a statement of a running turn that the database holds past DATABASE_STATEMENT_TIMEOUT_MS', () => {
  let model: ScriptedResponsesServer;
  let svc: TestService;
  let url: string;
  const logs: { msg?: string; turn_id?: string; err?: { message?: string; code?: string } }[] = [];

  beforeAll(async () => {
    model = await startScriptedResponsesServer();
    url = (await freshSchema()).url;
    svc = await startTestService({
      modelBaseURL: model.baseURL,
      env: { DATABASE_URL: url, STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters', LOG_LEVEL: 'info', DATABASE_STATEMENT_TIMEOUT_MS: '1000' },
      logDestination: { write: (line) => void logs.push(JSON.parse(line)) },
    });
  }, 60_000);

  afterAll(async () => {
    await svc?.close();
    await model?.close();
  });

  it('stops the run (its heartbeat would keep the lease forever) and the turn resumes and completes once the database lets go', async () => {
    // Once the turn is under way (asked for its first response), another session blocks every
    // INSERT into turn_items (reads still pass): the next checkpoint that stores items — the
    // final one, after the answer (a round the event log rebuilds is not checkpointed again after
    // it), with the call, its output and the answer — waits on the server, as behind a lock
    // nobody lets go, while the turn's heartbeat, on other connections, goes on renewing its
    // lease. The resumed run rebuilds the round from the log and asks for the answer again.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    let locked: Promise<unknown> | undefined;
    const lock = () => (locked ??= admin.query('BEGIN').then(() => admin.query('LOCK TABLE turn_items IN SHARE MODE')));
    try {
      model.push(todoThenAnswer({ onCall: lock }), todoThenAnswer({ onCall: lock }), todoThenAnswer({ onCall: lock }));
      const before = model.requests.length;
      const r = await api(svc.url, 'POST', '/v1/turns', { input: 'held statement', tools: ['todo'] });
      expect(r.status).toBe(202);
      const id = r.body.id as string;
      const end = Date.now() + 15_000;
      const stopped = () => logs.find((l) => l.turn_id === id && /storing the turn checkpoint failed/.test(l.msg ?? ''));
      while (!stopped()) {
        if (Date.now() > end) throw new Error(`the run did not stop while its statement was held: ${JSON.stringify(logs.filter((l) => l.turn_id === id))}`);
        await new Promise((res) => setTimeout(res, 50));
      }
      expect(stopped()!.err).toMatchObject({ code: 'database_unavailable', message: expect.stringMatching(/statement timeout/) });
      await locked;
      await admin.query('COMMIT');
      const done = Date.now() + 30_000;
      let rec: Record<string, unknown>;
      for (;;) {
        rec = (await api(svc.url, 'GET', `/v1/turns/${id}`)).body;
        if (rec.status === 'completed' || rec.status === 'failed' || Date.now() > done) break;
        await new Promise((res) => setTimeout(res, 50));
      }
      expect(rec.status, JSON.stringify(rec.error)).toBe('completed');
      expect(rec.output_text).toBe('done: held statement');
      const s = await readSse(`${svc.url}/v1/turns/${id}/events`, { timeoutMs: 20_000 });
      const types = s.events.map((e) => e.event);
      expect(types).toContain('turn.resumed');
      expect(types.filter((t) => t === 'turn.completed')).toHaveLength(1);
      expect(types.at(-1)).toBe('turn.completed');
      expect(types.filter((t) => t === 'tool.started')).toHaveLength(1); // the round's call ran once
      expect(model.requests.length - before).toBe(3); // the call, the answer cut by the stop, the answer again
      // The stopped run had asked for the answer after its last stored checkpoint: that request's
      // tokens were spent and never counted, so usage is unknown — never 2 requests' worth of 3.
      expect(rec.usage).toBeNull();
    } finally {
      await admin.end();
    }
  }, 60_000);
});
