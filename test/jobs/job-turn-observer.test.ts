/**
 * The job driver's turn-event observer answers synchronously (no promise) for every event of a
 * turn known to be no job's — every round's `tool.completed` of an ordinary turn after the first
 * lookup — so the event log's observers stay on their synchronous path; a job's turn still has its
 * events mirrored into the job stream.
 */
import { describe, expect, it } from 'vitest';
import { JobDriver, type JobServiceDeps } from '../../src/jobs/job-driver.js';
import type { JobEvent } from '../../src/jobs/events.js';
import { SqliteJobStore } from '../../src/jobs/sqlite-job-store.js';
import { openDatabase } from '../../src/store/database.js';
import type { LoggedEvent } from '../../src/store/event-log.js';
import { InProcessEventNotifier } from '../../src/store/in-process-notifier.js';
import { PublishedEventLog } from '../../src/store/published-event-log.js';
import { SqliteEventLog } from '../../src/store/sqlite-event-log.js';
import { SqliteTurnStore } from '../../src/store/sqlite-turn-store.js';
import { newTurn } from '../store/contracts/turn-stores.contract.js';

const toolCompleted = (turnId: string, seq: number): LoggedEvent => ({
  streamId: turnId, seq, createdAt: new Date().toISOString(), json: '{}',
  event: { type: 'tool.completed', call_id: `call_${seq}`, name: 'noop', label: null, output: 'ok', is_error: false } as never,
});

function driver() {
  const db = openDatabase(':memory:');
  const turnStore = new SqliteTurnStore(db);
  const events = new PublishedEventLog<JobEvent>(new SqliteEventLog<JobEvent>(db), new InProcessEventNotifier<JobEvent>());
  const deps = {
    config: { BACKGROUND_JOB_MAX_STEPS: 10, BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT: 1, BACKGROUND_JOB_MAX_QUESTIONS: 1 },
    store: new SqliteJobStore(db), events, turns: {} as JobServiceDeps['turns'], turnStore,
  } satisfies JobServiceDeps;
  return { db, turnStore, events, driver: new JobDriver(deps) };
}

describe('JobDriver.observeTurnEvent', () => {
  it('answers synchronously for the events of a turn known to be no job\'s', async () => {
    const { db, turnStore, driver: d } = driver();
    try {
      const turn = newTurn();
      await turnStore.insert(turn);
      // The first event of a turn it has not seen: one lookup of the turn's record.
      const first = d.observeTurnEvent(toolCompleted(turn.id, 1));
      expect(first).toBeInstanceOf(Promise);
      await first;
      for (let seq = 2; seq < 5; seq++) expect(d.observeTurnEvent(toolCompleted(turn.id, seq))).toBeUndefined();
      expect(d.observeTurnEvent({ ...toolCompleted(turn.id, 5), event: { type: 'turn.completed' } as never })).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it('still mirrors a job turn\'s tool calls into the job stream', async () => {
    const { db, turnStore, events, driver: d } = driver();
    try {
      const turn = newTurn({ kind: 'background_job', origin: { type: 'background_job', job_id: 'job_1' } as never });
      await turnStore.insert(turn);
      for (let seq = 1; seq <= 2; seq++) await d.observeTurnEvent(toolCompleted(turn.id, seq));
      const mirrored = (await events.read('job_1', 0)).map((l) => l.event);
      expect(mirrored).toEqual([
        expect.objectContaining({ type: 'job.activity', turn_id: turn.id, kind: 'tool' }),
        expect.objectContaining({ type: 'job.activity', turn_id: turn.id, kind: 'tool' }),
      ]);
    } finally {
      db.close();
    }
  });
});
