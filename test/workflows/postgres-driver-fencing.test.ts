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

describePostgres('a workflow driver whose lease another instance took over (Postgres)', () => {
  it('starts no task after the takeover: its write is refused, it stops driving the workflow and says so once', async () => {
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
    // Another workflow of the agent holds its only running-task slot (nobody drives it here).
    const occupant: WorkflowRecord = {
      id: uuidv7(), agent_id: 'fenced', title: 'busy', status: 'running', concurrency: 1, brain: false, model: null,
      created_at: new Date().toISOString(), completed_at: null, summary: null,
      tasks: [{ index: 0, label: 'busy', prompt: 'holds the slot', result_schema: { type: 'object' }, status: 'running', attempts: 1, turn_ids: [] }],
    };
    await store.insert(occupant);

    // Instance A, whose heartbeat never renews its lease (not started: as if its connection hung).
    const a = new DefaultWorkflowService({ config, instanceId: 'a', store, events, turns, log });
    closers.push(() => a.stop());
    const wf = await a.create({ title: 'fenced', agent_id: 'fenced', tasks: [{ label: 'waits', prompt: 'waits for the slot', result_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } }] });
    expect(wf.tasks[0].status).toBe('queued');
    await new Promise((r) => setTimeout(r, 700)); // A looks again (its agent at the limit) every 500 ms
    expect((await store.getTask(wf.id, 0))!.status).toBe('queued');

    // B takes the workflow over (A's lease ran out); then the slot frees.
    expect(await store.claimWorkflow(wf.id, 'b', Date.now() + 2 * LEASE_MS, Date.now() + 60_000)).toEqual({ epoch: 2 });
    await store.updateTask(occupant.id, 0, { status: 'succeeded', result: { n: 0 } });

    const until = Date.now() + 5000;
    while (!warnings.includes('another instance took this workflow over; no longer driving it here') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1200)); // two more looks, had it gone on driving
    expect(warnings.filter((w) => w === 'another instance took this workflow over; no longer driving it here')).toHaveLength(1);
    expect((await store.getTask(wf.id, 0))!).toMatchObject({ status: 'queued', attempts: 0, turn_ids: [] });
    expect((await store.get(wf.id))!.status).toBe('running');
    expect((await events.read(wf.id, 0, 100)).map((e) => e.event.type)).toEqual(['workflow.started']);
    expect(errors).toEqual([]);
  });
});
