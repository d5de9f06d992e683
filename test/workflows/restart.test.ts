/**
 * A workflow survives a service restart: the task turn that was running when the service stopped
 * resumes from its checkpoint on the next start (same DATA_DIR), its binding rebuilt from the
 * data stored with the turn, and the task finishes with a validated result in that same attempt.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService } from '../e2e/support/service.js';
import { firstUserText, routedEntries, SCHEMA, waitFor } from './support.js';

let model: ScriptedResponsesServer;
let dataDir: string;

beforeAll(async () => {
  model = await startScriptedResponsesServer();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'workflows-restart-'));
});
afterAll(async () => {
  await model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('finishes a workflow whose task turn was running when the service stopped, resuming that turn', async () => {
  const p = 'survive a restart';
  const result = { name: 'after restart', count: 2, tags: [] };
  model.push(
    ...routedEntries({
      [p]: [{ output: [message('too late')], holdMs: 20_000 }, { output: [functionCall('submit_result', { result })] }],
    }),
  );
  const first = await startTestService({ modelBaseURL: model.baseURL, dataDir });
  const created = await api(first.url, 'POST', '/v1/workflows', { title: 'restart', tasks: [{ label: 'l', prompt: p, result_schema: SCHEMA }] });
  const id = created.body.id as string;
  const workflows1 = first.services.registry.workflows!;
  const turnId = await waitFor(async () => (await workflows1.get(id))!.tasks[0].turn_ids[0]);
  await waitFor(async () => (await first.services.turns.get(turnId))?.status === 'running');
  await waitFor(() => model.requests.some((r) => firstUserText(r.body) === p)); // the held request is in flight
  await (workflows1 as unknown as { stop(): Promise<void> }).stop(); // as Services.stop does, before the turns stop
  await first.close({ keepData: true });

  const second = await startTestService({ modelBaseURL: model.baseURL, dataDir });
  try {
    const wf = await second.services.registry.workflows!.waitForTerminal(id);
    expect(wf.status).toBe('completed');
    expect(wf.tasks[0]).toMatchObject({ status: 'succeeded', attempts: 1, result });
    expect(wf.tasks[0].turn_ids).toEqual([turnId]);
    const types = (await second.services.registry.workflows!.events.read(id, 0)).map((e) => e.event);
    expect(types.map((e) => e.type)).toEqual(['workflow.started', 'task.started', 'task.succeeded', 'workflow.completed']);
    const turnEvents = (await second.services.eventLog.read(turnId, 0)).map((e) => e.event.type);
    expect(turnEvents).toContain('turn.resumed');
    expect(turnEvents.at(-1)).toBe('turn.completed');
  } finally {
    await second.close({ keepData: true });
  }
}, 30_000);
