/**
 * Asking the user: a `clarify` call ends the turn after its round with stop reason `clarify`, a
 * `presentation` event carrying the question and choices, and the question as the turn's output;
 * the answer is the next turn (`previous_turn_id`). Real service, scripted model, SSE validated
 * against openapi.yaml.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../../support/scripted-responses-server.js';
import { api, useScriptedService } from '../../e2e/support/service.js';
import { readSse } from '../../e2e/support/sse-client.js';
import { validateComponent } from '../../e2e/support/spec.js';

const harness = useScriptedService();

describe('clarify', () => {
  it('is offered by default in main turns and described in the tools preview', async () => {
    const preview = await api(harness.svc.url, 'POST', '/v1/tools/preview', {});
    expect(preview.body.families).toContain('clarify');
    expect(preview.body.tools).toContain('clarify');
    const without = await api(harness.svc.url, 'POST', '/v1/tools/preview', { tools: ['todo'] });
    expect(without.body.tools).not.toContain('clarify');
    expect(without.body.unavailable).toContainEqual({ family: 'clarify', reason: 'not enabled for this turn' });
  });

  it('ends the turn with stop reason clarify, a clarify presentation event and the question as output', async () => {
    const question = 'Which database should the report use: staging or production?';
    harness.model.push({
      output: [
        message('I need to know one thing first.'),
        functionCall('clarify', { question, choices: ['staging', { label: 'production', description: 'live data, read-only' }] }, { callId: 'call_ask' }),
        functionCall('todo', { todos: [{ id: '1', content: 'never runs' }] }, { callId: 'call_after' }),
      ],
    });
    const before = harness.model.requests.length;
    const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'Make the weekly report', agent_id: 'asker' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: 'completed', stop_reason: 'clarify', output_text: question, steps: 1 });
    expect(harness.model.requests.length - before).toBe(1); // no model request after the question

    const sse = await readSse(`${harness.svc.url}/v1/turns/${created.body.id}/events`);
    for (const ev of sse.events) expect(validateComponent('TurnEvent', ev.json), ev.event).toEqual([]);
    const presentation = sse.events.find((e) => e.event === 'presentation');
    expect(presentation?.json).toMatchObject({
      call_id: 'call_ask',
      event: { type: 'clarify', question, choices: [{ label: 'staging' }, { label: 'production', description: 'live data, read-only' }] },
    });
    expect(validateComponent('ClarifyPresentation', presentation!.json.event)).toEqual([]);
    // The call after the question is not run, but it shows on the stream like any call that is
    // not run: a generic tool.started, then a tool.completed with the output the model reads.
    expect(sse.events.filter((e) => e.json.call_id === 'call_after').map((e) => [e.event, e.json])).toEqual([
      ['tool.started', expect.objectContaining({ name: 'todo', label: 'Calling todo', arguments: null })],
      ['tool.completed', expect.objectContaining({ name: 'todo', label: 'Did not run todo', is_error: true, output: 'Error: a prior tool call already ended this turn' })],
    ]);
    expect(sse.events.some((e) => e.event === 'presentation' && e.json.call_id === 'call_after')).toBe(false); // the todo never ran
    expect(sse.events.at(-1)).toMatchObject({ event: 'turn.completed', json: { stop_reason: 'clarify', output_text: question } });

    // The answer arrives as the next turn, on the clarify turn's transcript.
    harness.model.push({ output: [message('Using staging.')] });
    const answer = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'staging', agent_id: 'asker', previous_turn_id: created.body.id });
    expect(answer.body).toMatchObject({ status: 'completed', output_text: 'Using staging.' });
    const input = harness.model.requests.at(-1)!.body.input as any[];
    const output = (callId: string) => input.find((i) => i.type === 'function_call_output' && i.call_id === callId)?.output;
    expect(output('call_ask')).toMatch(/shown to the user/);
    expect(output('call_after')).toBe('Error: a prior tool call already ended this turn');
    expect(input.at(-1)).toMatchObject({ role: 'user', content: 'staging' });
  });

  it('refuses a question that is too long or has too many choices with an Error: output, and the turn goes on', async () => {
    harness.model.push(
      { output: [functionCall('clarify', { question: 'Pick one', choices: ['a', 'b', 'c', 'd', 'e'] }, { callId: 'call_bad' })] },
      { output: [message('I will pick a myself.')] },
    );
    const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'choose', agent_id: 'asker' });
    expect(created.body).toMatchObject({ status: 'completed', stop_reason: 'stop', output_text: 'I will pick a myself.' });
    const output = (harness.model.requests.at(-1)!.body.input as any[]).find((i) => i.type === 'function_call_output' && i.call_id === 'call_bad')?.output;
    expect(output).toMatch(/^Error:.*choices/s);
  });
});
