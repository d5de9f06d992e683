/**
 * Steering messages that arrive during a turn's last round: every message the service accepted
 * (202) is either applied (`input.applied`, and the next model request carries it) or reported
 * (`input.not_applied`, before the terminal event); a message sent once the turn is ending is
 * refused with 409 `turn_finished`, never silently dropped. Real service, scripted Responses model
 * server (its request log is the proof); the final response is held until a message is accepted.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody, type ScriptedStep } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateComponent } from '../e2e/support/spec.js';

const harness = useScriptedService();

function userMessages(body: ResponsesRequestBody, text: string): number {
  return (body.input as { role?: string; content?: unknown }[]).filter((i) => i.role === 'user' && JSON.stringify(i.content).includes(text)).length;
}

/** A script entry whose response waits until `release()` is called. */
function held(step: ScriptedStep) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let asked!: () => void;
  const requested = new Promise<void>((r) => (asked = r));
  const entry = async () => {
    asked();
    await gate;
    return step;
  };
  return { entry, requested, release };
}

async function startTurn(body: object): Promise<string> {
  const created = await api(harness.svc.url, 'POST', '/v1/turns', body);
  expect(created.status).toBe(202);
  return created.body.id;
}

const steer = (id: string, content: string) => api(harness.svc.url, 'POST', `/v1/turns/${id}/messages`, { content });

async function events(id: string) {
  const sse = await readSse(`${harness.svc.url}/v1/turns/${id}/events`, { timeoutMs: 30_000 });
  for (const ev of sse.events) expect(validateComponent('TurnEvent', ev.json), ev.event).toEqual([]);
  return sse.events;
}

describe('steering messages in a turn\'s last round', () => {
  it('a message accepted while the final answer is held back is applied in one more round', async () => {
    const first = harness.model.requests.length;
    const answer = held({ output: [message('The long report.')] });
    harness.model.push(answer.entry, { output: [message('One line: all good.')] });
    const id = await startTurn({ input: 'write the report', agent_id: 'last-round', tools: ['todo'] });
    await answer.requested;
    const sent = await steer(id, 'Make it one line.');
    expect(sent.status).toBe(202);
    answer.release();

    const log = await events(id);
    const applied = log.findIndex((e) => e.event === 'input.applied' && e.json.message_id === sent.body.message_id);
    expect(applied).toBeGreaterThan(log.findIndex((e) => e.event === 'message.completed'));
    expect(log.at(-1)?.json).toMatchObject({ type: 'turn.completed', output_text: 'One line: all good.', stop_reason: 'stop' });
    const reqs = harness.model.requests.slice(first).map((r) => r.body);
    expect(reqs).toHaveLength(2);
    expect(userMessages(reqs[0], 'Make it one line.')).toBe(0);
    expect(userMessages(reqs[1], 'Make it one line.')).toBe(1);
  });

  it('the extra round counts against max_steps: at the limit it is the final request without tools', async () => {
    const first = harness.model.requests.length;
    const answer = held({ output: [message('Draft.')] });
    harness.model.push(answer.entry, { output: [message('Final, with the change.')] });
    const id = await startTurn({ input: 'draft it', agent_id: 'last-round', tools: ['todo'], max_steps: 1 });
    await answer.requested;
    expect((await steer(id, 'Add a title.')).status).toBe(202);
    answer.release();

    const log = await events(id);
    expect(log.at(-1)?.json).toMatchObject({ type: 'turn.completed', output_text: 'Final, with the change.', stop_reason: 'max_steps' });
    const reqs = harness.model.requests.slice(first).map((r) => r.body);
    expect(reqs).toHaveLength(2);
    expect(userMessages(reqs[1], 'Add a title.')).toBe(1);
    expect(reqs[1].tool_choice).toBe('none');
  });

  it('a message that arrives during the final answer after max_steps is reported not applied before the turn ends', async () => {
    const first = harness.model.requests.length;
    const final = held({ output: [message('Here is what I have.')] });
    harness.model.push({ output: [functionCall('todo', { todos: [{ id: '1', content: 'look' }] })] }, final.entry);
    const id = await startTurn({ input: 'investigate', agent_id: 'last-round', tools: ['todo'], max_steps: 1 });
    await final.requested;
    const sent = await steer(id, 'Also check the logs.');
    expect(sent.status).toBe(202);
    final.release();

    const log = await events(id);
    const types = log.map((e) => e.event);
    expect(log.filter((e) => e.event === 'input.not_applied').map((e) => e.json)).toEqual([
      expect.objectContaining({ message_id: sent.body.message_id, reason: 'max_steps' }),
    ]);
    expect(types.indexOf('input.not_applied')).toBe(types.length - 2);
    expect(types).not.toContain('input.applied');
    expect(log.at(-1)?.json).toMatchObject({ type: 'turn.completed', stop_reason: 'max_steps' });
    expect(harness.model.requests.slice(first)).toHaveLength(2);
    expect((await steer(id, 'later')).status).toBe(409);
  });

  it('messages sent without pause while the turn ends are each applied, reported, or refused with 409', async () => {
    const answer = held({ output: [message('Answer 1.')] });
    harness.model.push(answer.entry, ...Array.from({ length: 6 }, (_, i) => ({ output: [message(`Answer ${i + 2}.`)] })));
    const id = await startTurn({ input: 'go', agent_id: 'last-round', tools: ['todo'], max_steps: 3 });
    await answer.requested;
    const accepted: string[] = [];
    let refused: { status: number; body: any } | undefined;
    const sending = (async () => {
      const deadline = Date.now() + 30_000;
      for (let i = 0; !refused && Date.now() < deadline; i++) {
        const r = await steer(id, `note ${i}`);
        if (r.status === 202) accepted.push(r.body.message_id);
        else refused = r;
      }
    })();
    while (accepted.length === 0) await new Promise((r) => setTimeout(r, 5));
    answer.release();
    await sending;

    expect(refused?.status).toBe(409);
    expect(refused?.body.error.code).toBe('turn_finished');
    const log = await events(id);
    const outcome = new Map<string, string[]>();
    for (const e of log) if (e.event === 'input.applied' || e.event === 'input.not_applied') outcome.set(e.json.message_id, [...(outcome.get(e.json.message_id) ?? []), e.event]);
    for (const m of accepted) expect(outcome.get(m)?.length, m).toBe(1);
    expect(outcome.size).toBe(accepted.length);
    expect(log.at(-1)?.json.type).toBe('turn.completed');
    // As stored: each accepted message queued before its outcome, and nothing after the terminal event.
    const stored = (await harness.svc.services.eventLog.read(id, 0)).map((l) => l.event);
    expect(stored.at(-1)?.type).toBe('turn.completed');
    for (const m of accepted) {
      const at = (type: string) => stored.findIndex((e) => e.type === type && 'message_id' in e && e.message_id === m);
      expect(at('input.queued'), m).toBeGreaterThanOrEqual(0);
      expect(Math.max(at('input.applied'), at('input.not_applied')), m).toBeGreaterThan(at('input.queued'));
    }
    const turn = await api(harness.svc.url, 'GET', `/v1/turns/${id}`);
    expect(turn.body.steps).toBeLessThanOrEqual(4);
    // Answers the turn did not need (it ended before max_steps) go to throw-away turns.
    while (harness.model.remaining() > 0) await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'spare', agent_id: 'last-round', tools: ['todo'] });
  });

  it('a queued turn cancelled before it ran reports its messages not applied, and refuses later ones', async () => {
    harness.model.push({ output: [functionCall('command', { command: 'sleep 3' })] }, { output: [message('first done')] });
    const prev = await startTurn({ input: 'first', agent_id: 'last-round', tools: ['computer'] });
    await readSse(`${harness.svc.url}/v1/turns/${prev}/events`, { stopWhen: (e) => e.event === 'tool.started', timeoutMs: 30_000 });
    const queued = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'second', agent_id: 'last-round', tools: ['computer'], previous_turn_id: prev, multitask_strategy: 'enqueue' });
    expect(queued.body.status).toBe('queued');
    const sent = await steer(queued.body.id, 'and be brief');
    expect(sent.status).toBe(202);
    expect((await api(harness.svc.url, 'POST', `/v1/turns/${queued.body.id}/cancel`)).body.status).toBe('cancelled');

    const log = await events(queued.body.id);
    expect(log.map((e) => e.event)).toEqual(['input.queued', 'input.not_applied', 'turn.cancelled']);
    expect(log[1].json).toMatchObject({ message_id: sent.body.message_id, reason: 'cancelled' });
    expect((await steer(queued.body.id, 'too late')).status).toBe(409);
    await harness.svc.services.turns.waitForTerminal(prev);
  });
});
