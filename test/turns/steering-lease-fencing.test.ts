/**
 * A run that lost its turn's lease (another instance claimed it: the run's connection hung past
 * TURN_LEASE_MS) makes no steering-queue write: it neither marks a message applied that the new
 * holder has yet to apply — whose `input.applied` would then never be stored — nor closes the
 * queue of a turn the new holder still runs, which would refuse every later message with
 * `turn_finished`. The real run (runClaimedTurn with the real loop) on real Postgres stores, a
 * scripted Responses server; the other instance's claim is made through the real turn queue at
 * the moment the run's write is on its way (the store call is wrapped to claim first).
 */
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createOpenAIResponsesClient } from '../../src/model/openai-responses-client.js';
import { createResponsesModel } from '../../src/model/responses-model.js';
import { TERMINAL_EVENT_TYPES, type TurnEvent } from '../../src/runtime/events.js';
import { runTurn } from '../../src/runtime/loop.js';
import type { LeaseFence } from '../../src/store/lease-fence.js';
import { PgCheckpointStore } from '../../src/store/postgres/pg-checkpoint-store.js';
import type { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { PgEventLog } from '../../src/store/postgres/pg-event-log.js';
import { PgTurnInputStore } from '../../src/store/postgres/pg-turn-input-store.js';
import { PgTurnQueue } from '../../src/store/postgres/pg-turn-queue.js';
import { PgTurnStore } from '../../src/store/postgres/pg-turn-store.js';
import { TurnInputs } from '../../src/turns/inputs/turn-inputs.js';
import { runClaimedTurn, type RunControl, type RunEnd, type TurnRunDeps } from '../../src/turns/turn-run.js';
import { newTurn } from '../store/contracts/turn-stores.contract.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';

const LEASE = 1000;

interface Rig {
  db: PgDatabase;
  id: string;
  messages: PgTurnInputStore;
  inputs: TurnInputs;
  model: ScriptedResponsesServer;
  /** Instance `owner` claims the turn `after` ms from the test's start; its fence. */
  claim(owner: string, after: number): Promise<LeaseFence>;
  /** Run the claimed turn as instance `fence.owner` does (no heartbeat: only the fence tells it the lease is gone). */
  run(fence: LeaseFence, previousRun: RunControl['previousRun']): Promise<RunEnd>;
  /** The turn's stored events, in order. */
  events(): Promise<TurnEvent[]>;
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function rig(): Promise<Rig> {
  const { db } = await migratedSchema();
  const model = await startScriptedResponsesServer();
  open.push(async () => {
    await model.close();
    await db.close();
  });
  const log = new PgEventLog<TurnEvent>(db, { terminalTypes: TERMINAL_EVENT_TYPES });
  const store = new PgTurnStore(db, log);
  const queue = new PgTurnQueue(db);
  const messages = new PgTurnInputStore(db);
  const inputs = new TurnInputs({ store: messages, turns: store, events: log });
  const t = newTurn({ request: { input: 'start', agent_id: 'a' } });
  await store.insert(t);
  const start = Date.now();
  const deps: TurnRunDeps = {
    config: loadConfig({}),
    store,
    checkpoints: new PgCheckpointStore(db),
    events: log,
    registry: {},
    model: createResponsesModel(createOpenAIResponsesClient({ baseURL: model.baseURL, apiKey: 'test-key', maxRetries: 0 })),
    runTurn,
    assemble: async () => ({ tools: [], unavailable: [], instructions: [] }),
    inputs,
  };
  return {
    db,
    id: t.id,
    messages,
    inputs,
    model,
    claim: async (owner, after) => {
      const c = await queue.claim(owner, start + after, LEASE);
      expect(c?.id).toBe(t.id);
      return { turnId: t.id, owner, epoch: c!.epoch!, lost: false };
    },
    run: (fence, previousRun) =>
      runClaimedTurn(deps, t.id, {
        controller: new AbortController(),
        previousRun,
        cancelRequested: () => false,
        detached: () => false,
        leaseLost: () => false,
        fence,
        waitFinished: async () => undefined,
      }),
    events: async () => (await log.read(t.id, 0, 1000)).map((e) => e.event),
  };
}

/** The user messages of request `i` to the model. */
const usersOf = (model: ScriptedResponsesServer, i: number) =>
  (model.requests[i].body.input as { role?: string; content?: unknown }[]).filter((x) => x.role === 'user').map((x) => x.content);

describePostgres('steering writes of a run that lost its lease (Postgres)', () => {
  it('the stale run does not mark a message applied that it read just before losing the turn: the new holder applies it and stores its input.applied', async () => {
    const r = await rig();
    const a = await r.claim('a', 0);
    const sent = await r.inputs.send(r.id, 'use the staging database');
    // A reads the message at its first boundary; B claims the turn right then (A's connection hung).
    const listAfter = r.messages.listAfter.bind(r.messages);
    let claimed = false;
    r.messages.listAfter = async (turnId, after) => {
      const read = await listAfter(turnId, after);
      if (!claimed && read.length > 0) {
        claimed = true;
        await r.claim('b', 2 * LEASE);
      }
      return read;
    };
    r.model.push({ output: [message('answered by B')] });
    expect(await r.run(a, 'none')).toBe('detached');
    expect(claimed).toBe(true);
    expect(r.model.requests).toHaveLength(0); // A stopped on its refused checkpoint, before any request
    expect((await r.messages.listAfter(r.id, 0)).map((m) => m.applied_at)).toEqual([null]);

    r.messages.listAfter = listAfter;
    const b = { turnId: r.id, owner: 'b', epoch: a.epoch + 1, lost: false };
    expect(await r.run(b, 'lost')).toBe('finished');
    const events = await r.events();
    expect(events.filter((e) => e.type === 'input.applied')).toEqual([{ type: 'input.applied', message_id: sent.message_id }]);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', output_text: 'answered by B' });
    expect((await r.messages.listAfter(r.id, 0)).map((m) => m.applied_at !== null)).toEqual([true]);
    expect(r.model.requests).toHaveLength(1);
    expect(usersOf(r.model, 0)).toEqual(['start', 'use the staging database']);
  });

  it('the stale run does not close the queue of the turn the new holder runs: a message sent afterwards is taken and applied', async () => {
    const r = await rig();
    const a = await r.claim('a', 0);
    // A's model answers; B claims the turn just before A's conditional close reaches the database.
    const close = r.messages.close.bind(r.messages);
    let claimed = false;
    r.messages.close = async (...args) => {
      if (!claimed) {
        claimed = true;
        await r.claim('b', 2 * LEASE);
      }
      return close(...args);
    };
    r.model.push({ output: [message('answered by A')] }, { output: [message('answered by B')] });
    expect(await r.run(a, 'none')).toBe('detached');
    expect(claimed).toBe(true);
    r.messages.close = close;

    const sent = await r.inputs.send(r.id, 'one more thing'); // 409 turn_finished if A had closed the queue
    const b = { turnId: r.id, owner: 'b', epoch: a.epoch + 1, lost: false };
    expect(await r.run(b, 'lost')).toBe('finished');
    const events = await r.events();
    expect(events.filter((e) => e.type.startsWith('input.'))).toEqual([
      { type: 'input.queued', message_id: sent.message_id },
      { type: 'input.applied', message_id: sent.message_id },
    ]);
    expect(events.filter((e) => e.type === 'turn.completed')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', output_text: 'answered by B' });
    expect(usersOf(r.model, r.model.requests.length - 1)).toEqual(['start', 'one more thing']);
  });
});
