/**
 * One SSE connection follows a turn through its pause for approval: the POST's own stream stays
 * open while the turn waits (heartbeat comments keep it alive), carries `approval.requested`,
 * then — after another client decided — `approval.resolved`, `turn.resumed`, the call and the
 * answer, and closes after `turn.completed`.
 */
import { expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { readSse } from './support/sse-client.js';

const harness = useScriptedService({ env: { SSE_HEARTBEAT_MS: '100' } });

it('keeps the stream open with heartbeats while waiting, and streams the rest of the turn after the decision', async () => {
  harness.model.push(
    { output: [functionCall('todo', { todos: [{ id: '1', content: 'wait for me', status: 'pending' }] }, { callId: 'call_h1' })] },
    { output: [message('continued on the same stream')] },
  );
  let requestedAt = 0;
  let decided: Promise<{ status: number }> | undefined;
  const r = await readSse(`${harness.svc.url}/v1/turns`, {
    method: 'POST',
    body: { input: 'wait', tools: ['todo'], approvals: { todo: 'always' } },
    onEvent: (e) => {
      if (e.event !== 'approval.requested') return;
      requestedAt = Date.now();
      const id = e.json.turn_id as string;
      decided = new Promise((resolve) => setTimeout(resolve, 800)).then(() => api(harness.svc.url, 'POST', `/v1/turns/${id}/approvals`, { call_id: 'call_h1', decision: 'approve' }));
    },
    timeoutMs: 20_000,
  });
  expect((await decided!).status).toBe(200);
  expect(r.serverClosed).toBe(true);
  expect(requestedAt).toBeGreaterThan(0);
  expect(r.comments.filter((c) => c.includes('heartbeat')).length).toBeGreaterThanOrEqual(3);
  const types = r.events.map((e) => e.event);
  expect(types.slice(types.indexOf('approval.requested'))).toEqual([
    'approval.requested', 'approval.resolved', 'turn.resumed', 'tool.started', 'presentation', 'tool.completed', 'message.delta', 'message.completed', 'turn.completed',
  ]);
  expect(r.events.map((e) => Number(e.id))).toEqual(r.events.map((_, i) => i + 1));
  expect(r.events.at(-1)!.json.output_text).toBe('continued on the same stream');
});
