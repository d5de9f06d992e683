/**
 * On Postgres, a workflow's and a job's event log store nothing after the stream's terminal event,
 * as a turn's log does: a late append (a stale instance's, or any other) is refused with
 * `stream_closed` and takes no seq, so a client that saw `workflow.completed` or `job.succeeded`
 * never misses an event stored after it. Exercised on the real service's engine.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { describePostgres, freshSchema } from '../support/postgres.js';
import { startTestService, type TestService } from '../e2e/support/service.js';
import type { WorkflowEvent } from '../../src/workflows/events.js';
import type { JobEvent } from '../../src/jobs/events.js';

describePostgres('terminal events close workflow and job streams on Postgres', () => {
  let svc: TestService;
  beforeAll(async () => {
    const { url } = await freshSchema();
    svc = await startTestService({ env: { DATABASE_URL: url, STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters' } });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('refuses a workflow event after workflow.completed', async () => {
    const log = svc.services.workflowEvents;
    const id = uuidv7();
    await log.append(id, { type: 'workflow.started' } as unknown as WorkflowEvent);
    const done = await log.append(id, { type: 'workflow.completed' } as unknown as WorkflowEvent);
    expect(done.seq).toBe(2);
    await expect(log.append(id, { type: 'workflow.task.completed' } as unknown as WorkflowEvent)).rejects.toMatchObject({ code: 'stream_closed' });
    expect((await log.read(id, 0)).map((e) => e.event.type)).toEqual(['workflow.started', 'workflow.completed']);
  });

  it('refuses a job event after job.succeeded', async () => {
    const log = svc.services.jobEvents;
    const id = uuidv7();
    await log.append(id, { type: 'job.started' } as unknown as JobEvent);
    await log.append(id, { type: 'job.succeeded' } as unknown as JobEvent);
    await expect(log.append(id, { type: 'job.progress' } as unknown as JobEvent)).rejects.toMatchObject({ code: 'stream_closed' });
    expect(await log.lastSeq(id)).toBe(2);
  });
});
