/**
 * A `steer` double-text followed at once by an `interrupt` one: the interrupted turn never applies
 * the steering message (it is cancelled mid-round), so it reports it (`input.not_applied`, reason
 * `cancelled`, before `turn.cancelled`) and the interrupting turn starts with it — after the
 * interrupted transcript, before its own input. Real service, scripted model (its request log
 * shows what each turn saw), a real command in the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateComponent } from '../e2e/support/spec.js';

const harness = useScriptedService();
const AGENT = 'steer-interrupt';

const texts = (body: ResponsesRequestBody) =>
  (body.input as { role?: string; content?: unknown }[]).filter((i) => i.role === 'user').map((i) => (typeof i.content === 'string' ? i.content : JSON.stringify(i.content)));

// A steer takes no `tools` (it adds the input to the running turn); the interrupting turn does.
const doubleText = (previous: string, input: string, strategy: string) =>
  api(harness.svc.url, 'POST', '/v1/turns', { input, agent_id: AGENT, ...(strategy === 'steer' ? {} : { tools: ['computer'] }), previous_turn_id: previous, multitask_strategy: strategy });

async function log(id: string) {
  const sse = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { timeoutMs: 30_000 });
  for (const ev of sse.events) expect(validateComponent('TurnEvent', ev.json), ev.event).toEqual([]);
  return sse.events;
}

describe('steer, then interrupt', () => {
  it('the steering message is reported not applied by the interrupted turn and applied by the interrupting one', async () => {
    const first = harness.model.requests.length;
    harness.model.push({ output: [functionCall('command', { command: 'sleep 5; echo slow' })] }, { output: [message('Switched to staging.')] });
    const created = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'deploy it', agent_id: AGENT, tools: ['computer'] });
    const prev = created.body.id as string;
    await readSse(`${harness.svc.url}/v1/turns/${prev}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 30_000 });

    const steered = await doubleText(prev, 'use the staging database', 'steer');
    expect(steered.status).toBe(202);
    const next = await doubleText(prev, 'stop and just report', 'interrupt');
    expect(next.status).toBe(202);

    const prevLog = await log(prev);
    expect(prevLog.at(-1)?.event).toBe('turn.cancelled');
    expect(prevLog.map((e) => e.event).slice(-2)).toEqual(['input.not_applied', 'turn.cancelled']);
    expect(prevLog.at(-2)?.json).toMatchObject({ message_id: steered.body.message_id, reason: 'cancelled' });
    expect(prevLog.some((e) => e.event === 'input.applied')).toBe(false);

    const nextLog = await log(next.body.id);
    expect(nextLog.at(-1)?.json).toMatchObject({ type: 'turn.completed', output_text: 'Switched to staging.' });
    const reqs = harness.model.requests.slice(first).map((r) => r.body);
    expect(reqs).toHaveLength(2);
    expect(texts(reqs[0])).toEqual(['deploy it']);
    expect(texts(reqs[1])).toEqual(['deploy it', 'use the staging database', 'stop and just report']);
  });
});
