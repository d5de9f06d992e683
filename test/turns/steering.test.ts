/**
 * Steering a running turn over HTTP: POST /v1/turns/{id}/messages stores the message at once
 * (`input.queued`) and the runner adds it as a user message before the next model request —
 * after the running round's calls are answered, never inside the round — with `input.applied`.
 * Real service, scripted model (its request log is the proof), a real command in the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateComponent, validateResponse } from '../e2e/support/spec.js';

const harness = useScriptedService();

/** How often `text` is the content of a user message in a model request. */
function userMessages(body: ResponsesRequestBody, text: string): number {
  return (body.input as { role?: string; content?: unknown }[]).filter((i) => i.role === 'user' && JSON.stringify(i.content).includes(text)).length;
}

async function startTurn(body: object): Promise<string> {
  const created = await api(harness.svc.url, 'POST', '/v1/turns', body);
  expect(created.status).toBe(202);
  return created.body.id;
}

async function steer(id: string, content: string) {
  const r = await api(harness.svc.url, 'POST', `/v1/turns/${id}/messages`, { content });
  expect(validateResponse('/v1/turns/{id}/messages', 'post', r.status, r.body)).toEqual([]);
  return r;
}

describe('steering a running turn', () => {
  it('a message sent during a long command reaches the model exactly once, in the next request, in order', async () => {
    const first = harness.model.requests.length;
    harness.model.push(
      { output: [functionCall('command', { command: 'sleep 2; echo built' }, { callId: 'call_build' })] },
      { output: [functionCall('todo', { todos: [{ id: '1', content: 'deploy to staging' }] })] },
      { output: [message('Deployed to staging.')] },
    );
    const id = await startTurn({ input: 'build and deploy', agent_id: 'steerer', tools: ['computer', 'todo'] });
    await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'tool.started' && e.json.name === 'command', timeoutMs: 30_000 });

    const a = await steer(id, 'Deploy to staging, not production.');
    const b = await steer(id, 'And keep the answer short.');
    expect(a.status).toBe(202);
    expect(a.body).toMatchObject({ turn_id: id, position: 1, status: 'queued', message_id: expect.stringMatching(/^msg_[0-9a-f]{32}$/) });
    expect(b.body.position).toBe(2);

    const sse = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { timeoutMs: 30_000 });
    // `seq` is the SSE id of the message's input.queued event: Last-Event-ID resumes right after it.
    for (const sent of [a, b]) {
      const queued = sse.events.find((e) => e.event === 'input.queued' && e.json.message_id === sent.body.message_id)!;
      expect(sent.body.seq).toBe(Number(queued.id));
      expect(queued.json.seq).toBe(sent.body.seq);
      const after = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { headers: { 'last-event-id': String(sent.body.seq) }, timeoutMs: 30_000 });
      expect(after.events.map((e) => e.id)).toEqual(sse.events.filter((e) => Number(e.id) > sent.body.seq).map((e) => e.id));
    }
    for (const ev of sse.events) expect(validateComponent('TurnEvent', ev.json), ev.event).toEqual([]);
    expect(sse.events.at(-1)?.json).toMatchObject({ type: 'turn.completed', output_text: 'Deployed to staging.' });

    // Stored at once, applied after the command's round, before the next model request, in order.
    const types = sse.events.map((e) => (e.event === 'input.queued' || e.event === 'input.applied' ? `${e.event}:${e.json.message_id}` : e.event));
    const at = (t: string) => types.indexOf(t);
    const commandDone = sse.events.findIndex((e) => e.event === 'tool.completed' && e.json.call_id === 'call_build');
    expect(at(`input.queued:${a.body.message_id}`)).toBeLessThan(commandDone);
    expect(at(`input.queued:${b.body.message_id}`)).toBeLessThan(commandDone);
    expect(at(`input.applied:${a.body.message_id}`)).toBeGreaterThan(commandDone);
    expect(at(`input.applied:${b.body.message_id}`)).toBe(at(`input.applied:${a.body.message_id}`) + 1);
    expect(types.filter((t) => t?.startsWith('input.applied'))).toHaveLength(2);

    // The request log: the request during the command has no message; the next one has each once,
    // after the command's output; later requests carry them once (history), never again.
    const reqs = harness.model.requests.slice(first).map((r) => r.body);
    expect(reqs).toHaveLength(3);
    expect(userMessages(reqs[0], 'Deploy to staging')).toBe(0);
    for (const body of reqs.slice(1)) {
      expect(userMessages(body, 'Deploy to staging, not production.')).toBe(1);
      expect(userMessages(body, 'And keep the answer short.')).toBe(1);
    }
    const input = reqs[1].input as { type?: string; role?: string; call_id?: string; content?: unknown }[];
    const output = input.findIndex((i) => i.type === 'function_call_output' && i.call_id === 'call_build');
    const steered = input.findIndex((i) => i.role === 'user' && JSON.stringify(i.content).includes('Deploy to staging'));
    expect(steered).toBe(output + 1);
    expect(JSON.stringify(input[steered + 1].content)).toContain('And keep the answer short.');
  });

  it('a message sent while the model writes its final answer makes the turn go on for one more round', async () => {
    const first = harness.model.requests.length;
    harness.model.push(
      { output: [message('Here is the long report', { chunks: ['Here ', 'is ', 'the ', 'long ', 'report'] })], delayMs: 150 },
      { output: [message('Short version: all good.')] },
    );
    const id = await startTurn({ input: 'write the report', agent_id: 'steerer', tools: ['todo'] });
    await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { stopWhen: (e) => e.event === 'message.delta', timeoutMs: 30_000 });
    await steer(id, 'Make it one line.');
    const turn = await harness.svc.services.turns.waitForTerminal(id);
    expect(turn).toMatchObject({ status: 'completed', output_text: 'Short version: all good.', steps: 2 });
    const reqs = harness.model.requests.slice(first).map((r) => r.body);
    expect(reqs).toHaveLength(2);
    expect(userMessages(reqs[1], 'Make it one line.')).toBe(1);
  });

  it('refuses a finished turn with 409 turn_finished and a hint, an unknown turn with 404, an empty message with 400', async () => {
    harness.model.push({ output: [message('done')] });
    const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi', agent_id: 'steerer', tools: ['todo'] });
    const finished = await steer(created.body.id, 'too late');
    expect(finished.status).toBe(409);
    expect(finished.body.error).toMatchObject({ code: 'turn_finished', details: { turn_id: created.body.id, status: 'completed', hint: { previous_turn_id: created.body.id } } });
    expect(finished.body.error.message).toContain('previous_turn_id');
    expect((await steer('no-such-turn', 'hello')).status).toBe(404);
    const empty = await steer(created.body.id, '');
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('invalid_request');
  });
});
