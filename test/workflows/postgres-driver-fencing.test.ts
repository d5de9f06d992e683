/**
 * A workflow driver that lost its lease without knowing it (its heartbeat could not renew: its
 * database connection hung longer than TURN_LEASE_MS) while another instance took the workflow
 * over: its next write of the workflow's state is refused (Postgres, the workflow's claim epoch),
 * so it does not start a task the new driver knows nothing of; it stops driving the workflow,
 * saying so once. The real workflow service on real Postgres stores; the turn service is real too
 * (without a model: no task turn may be created here). The other instance's takeover is its claim
 * through the real store, the agent's only running-task slot is held by another workflow's task
 * until then, so the stale driver's first write comes after the takeover.
 */
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { TurnEvent } from '../../src/runtime/events.js';
import { TERMINAL_EVENT_TYPES } from '../../src/runtime/events.js';
import { runTurn } from '../../src/runtime/loop.js';
import { InProcessEventNotifier } from '../../src/store/in-process-notifier.js';
import { PgCheckpointStore } from '../../src/store/postgres/pg-checkpoint-store.js';
import { PgEventLog } from '../../src/store/postgres/pg-event-log.js';
import { PgTurnQueue } from '../../src/store/postgres/pg-turn-queue.js';
import { PgTurnStore } from '../../src/store/postgres/pg-turn-store.js';
import { PgWorkflowStore } from '../../src/store/postgres/pg-workflow-store.js';
import { PublishedEventLog } from '../../src/store/published-event-log.js';
import { DefaultTurnService } from '../../src/turns/turn-service.js';
import type { WorkflowEvent } from '../../src/workflows/events.js';
import { DefaultWorkflowService } from '../../src/workflows/workflow-service.js';
import type { WorkflowRecord } from '../../src/workflows/types.js';
import { uuidv7 } from 'uuidv7';
import { describePostgres, migratedSchema } from '../support/postgres.js';

const LEASE_MS = 1000;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const TAKEN_OVER = 'another instance took this workflow over; no longer driving it here';
const SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };

/**
 * Real stores on a fresh schema, a real turn service without a model, and a workflow of agent
 * `fenced` holding its only running-task slot (driven by an instance elsewhere), so no task of another
 * workflow of the agent starts until {@link freeSlot}.
 */
async function setup() {
  const { db } = await migratedSchema();
  closers.push(() => db.close());
  const store = new PgWorkflowStore(db);
  const turnLog = new PgEventLog<TurnEvent>(db, { terminalTypes: TERMINAL_EVENT_TYPES });
  const config = loadConfig({ TURN_LEASE_MS: String(LEASE_MS), WORKFLOW_MAX_RUNNING_TASKS_PER_AGENT: '1' });
  const turns = new DefaultTurnService({
    config,
    store: new PgTurnStore(db, turnLog),
    queue: new PgTurnQueue(db),
    checkpoints: new PgCheckpointStore(db),
    events: new PublishedEventLog(turnLog, new InProcessEventNotifier<TurnEvent>()),
    registry: {},
    modelClient: undefined,
    runTurn,
  });
  const events = new PublishedEventLog(new PgEventLog<WorkflowEvent>(db), new InProcessEventNotifier<WorkflowEvent>());
  const warnings: string[] = [];
  const errors: unknown[] = [];
  const log = { warn: (_o: object, m?: string) => void warnings.push(m ?? ''), error: (o: object) => void errors.push(o), info: () => undefined };
  const occupant: WorkflowRecord = {
    id: uuidv7(), agent_id: 'fenced', title: 'busy', status: 'running', concurrency: 1, brain: false, model: null,
    created_at: new Date().toISOString(), completed_at: null, summary: null,
    tasks: [{ index: 0, label: 'busy', prompt: 'holds the slot', result_schema: { type: 'object' }, status: 'running', attempts: 1, turn_ids: [] }],
  };
  await store.insert(occupant, { owner: 'elsewhere', until: Date.now() + 600_000 }); // driven by a live instance elsewhere
  /** An instance of the workflow service (not started: no heartbeat, as if its connection hung). */
  const instance = (id: string) => {
    const svc = new DefaultWorkflowService({ config, instanceId: id, store, events, turns, log });
    closers.push(() => svc.stop());
    return svc;
  };
  return {
    store,
    events,
    warnings,
    errors,
    instance,
    freeSlot: () => store.updateTask(occupant.id, 0, { status: 'succeeded', result: { n: 0 } }),
    types: async (id: string) => (await events.read(id, 0, 100)).map((e) => e.event.type),
  };
}

describePostgres('a workflow driver whose lease another instance took over (Postgres)', () => {
  it('starts no task after the takeover: its write is refused, it stops driving the workflow and says so once', async () => {
    const s = await setup();
    const a = s.instance('a');
    const wf = await a.create({ title: 'fenced', agent_id: 'fenced', tasks: [{ label: 'waits', prompt: 'waits for the slot', result_schema: SCHEMA }] });
    expect(wf.tasks[0].status).toBe('queued');
    await new Promise((r) => setTimeout(r, 700)); // A looks again (its agent at the limit) every 500 ms
    expect((await s.store.getTask(wf.id, 0))!.status).toBe('queued');

    // B takes the workflow over (A's lease ran out); then the slot frees.
    expect(await s.store.claimWorkflow(wf.id, 'b', Date.now() + 2 * LEASE_MS, Date.now() + 60_000)).toEqual({ epoch: 2 });
    await s.freeSlot();

    const until = Date.now() + 5000;
    while (!s.warnings.includes(TAKEN_OVER) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1200)); // two more looks, had it gone on driving
    expect(s.warnings.filter((w) => w === TAKEN_OVER)).toHaveLength(1);
    expect((await s.store.getTask(wf.id, 0))!).toMatchObject({ status: 'queued', attempts: 0, turn_ids: [] });
    expect((await s.store.get(wf.id))!.status).toBe('running');
    expect(await s.types(wf.id)).toEqual(['workflow.started']);
    expect(s.errors).toEqual([]);
  });

  it('a cancel sent to the stale driver is carried out by the new one: the client gets the cancelled workflow, not lease_lost', async () => {
    const s = await setup();
    const a = s.instance('a');
    const wf = await a.create({ title: 'cancel me', agent_id: 'fenced', tasks: [{ label: 'waits', prompt: 'waits too', result_schema: SCHEMA }] });
    await new Promise((r) => setTimeout(r, LEASE_MS + 100)); // A's lease runs out (nothing renews it)
    const b = s.instance('b');
    await b.start(); // takes the workflow up
    expect((await s.store.claimWorkflow(wf.id, 'b', Date.now(), Date.now() + 60_000))?.epoch).toBe(2); // B holds it (its own claim again keeps the epoch)

    const cancelled = await a.cancel(wf.id);
    expect(cancelled).toMatchObject({ id: wf.id, status: 'cancelled', tasks: [{ status: 'cancelled' }] });
    expect(s.warnings.filter((w) => w === TAKEN_OVER)).toHaveLength(1); // A learnt it from its refused write
    expect(await s.types(wf.id), JSON.stringify(await s.events.read(wf.id, 0, 100))).toEqual(['workflow.started', 'task.cancelled', 'workflow.cancelled']);
    expect(s.errors).toEqual([]);
  });
});
