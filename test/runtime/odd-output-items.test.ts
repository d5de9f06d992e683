/**
 * A single odd item from the model never kills a turn or corrupts its history (real loop, real
 * openai SDK, scripted Responses server): object `arguments`, calls without `call_id`, items
 * without a type.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SYNTHETIC_CALL_ID_PREFIX } from '../../src/runtime/function-calls.js';
import { defineWorkerTool, textResult, type AgentToolResult } from '../../src/runtime/tool.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';
import { functionCall, message } from '../support/scripted-responses-server.js';

const echo = defineWorkerTool({
  name: 'echo', description: 'Echo text', schema: z.object({ text: z.string() }), executionMode: 'parallel', isReadOnly: true,
  describeActivity: (p) => `Echo ${p.text}`, execute: async (p) => textResult(`echo:${p.text}`),
});

const callsAndOutputs = (input: any[]) => ({
  calls: input.filter((i) => i.type === 'function_call'),
  outputs: input.filter((i) => i.type === 'function_call_output'),
});

describe('odd output items', () => {
  it('accepts function_call arguments sent as a JSON object, serializes them once, and keeps the sibling call', async () => {
    const { result, server, events } = await runScriptedTurn({
      tools: [echo],
      script: [
        { output: [functionCall('echo', '', { argumentsValue: { text: 'obj' }, callId: 'c1' }), functionCall('echo', { text: 'str' }, { callId: 'c2' })] },
        { output: [message('done')] },
      ],
    });
    expect(result).toMatchObject({ status: 'completed', outputText: 'done' });
    const { calls, outputs } = callsAndOutputs(server.requests[1].body.input);
    expect(calls.map((c) => c.arguments)).toEqual(['{"text":"obj"}', '{"text":"str"}']);
    expect(outputs).toEqual([
      { type: 'function_call_output', call_id: 'c1', output: 'echo:obj' },
      { type: 'function_call_output', call_id: 'c2', output: 'echo:str' },
    ]);
    expect(events.filter((e) => e.type === 'tool.completed').map((e) => (e as any).is_error)).toEqual([false, false]);
  });

  it('gives calls without call_id unique synthetic ids that pair calls and outputs in the history', async () => {
    const { result, server } = await runScriptedTurn({
      tools: [echo],
      script: [
        { output: [functionCall('echo', { text: 'a' }, { callId: null }), functionCall('echo', { text: 'b' }, { callId: null })] },
        { output: [message('done')] },
      ],
    });
    expect(result.status).toBe('completed');
    const { calls, outputs } = callsAndOutputs(server.requests[1].body.input);
    const ids = calls.map((c) => c.call_id);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(new RegExp(`^${SYNTHETIC_CALL_ID_PREFIX}[0-9a-f]{24}$`));
    expect(new Set(ids).size).toBe(2);
    expect(outputs.map((o) => [o.call_id, o.output])).toEqual([[ids[0], 'echo:a'], [ids[1], 'echo:b']]);
    expect(server.requests[1].rawBody).not.toContain('already used');
    // The stored transcript (what a continuation replays) carries the same ids.
    const t = callsAndOutputs(result.transcript as any[]);
    expect(t.calls.map((c) => c.call_id)).toEqual(ids);
    expect(t.outputs.map((o) => o.call_id)).toEqual(ids);
  });

  it('skips an output item without a type with a turn.warning and goes on', async () => {
    const { result, events, server } = await runScriptedTurn({
      tools: [echo],
      script: [
        {
          events: [
            { type: 'response.created', response: { id: 'resp_odd', status: 'in_progress', output: [] } },
            { type: 'response.output_item.done', output_index: 0, item: { id: 'x1', status: 'completed' } },
            { type: 'response.output_item.done', output_index: 1, item: { id: 'fc1', type: 'function_call', status: 'completed', call_id: 'c1', name: 'echo', arguments: '{"text":"ok"}' } },
            { type: 'response.completed', response: { id: 'resp_odd', status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 1 } } },
          ],
        },
        { output: [message('fine')] },
      ],
    });
    expect(result).toMatchObject({ status: 'completed', outputText: 'fine' });
    expect(events.find((e) => e.type === 'turn.warning')).toMatchObject({ code: 'invalid_output_item' });
    expect(server.requests[1].body.input.map((i: any) => (i.type === 'message' ? i.role : i.type))).toEqual(['user', 'function_call', 'function_call_output']);
  });
});

describe('activity labels', () => {
  const failing = defineWorkerTool({
    name: 'fetch_thing', description: 'x', schema: z.object({ id: z.string() }), executionMode: 'sequential',
    describeActivity: (p) => `Fetching ${p.id}`,
    execute: async (): Promise<AgentToolResult> => { throw new Error('backend down'); },
  });
  const own = defineWorkerTool({
    ...failing, name: 'read_thing',
    describeActivity: (p: { id: string }) => `Reading ${p.id}`,
    describeFailedActivity: (p: { id: string }) => `Could not read ${p.id}`,
  });

  it('gives every tool.completed a tool.started before it, with a generic label when arguments did not validate', async () => {
    const { events } = await runScriptedTurn({
      tools: [echo],
      script: [
        { output: [functionCall('echo', { nope: 1 }, { callId: 'bad' }), functionCall('missing', {}, { callId: 'unk' }), functionCall('echo', { text: 'ok' }, { callId: 'good' })] },
        { output: [message('done')] },
      ],
    });
    const toolEvents = events.filter((e) => e.type === 'tool.started' || e.type === 'tool.completed') as any[];
    for (const done of toolEvents.filter((e) => e.type === 'tool.completed')) {
      const startedAt = toolEvents.findIndex((e) => e.type === 'tool.started' && e.call_id === done.call_id);
      expect(startedAt, done.call_id).toBeGreaterThanOrEqual(0);
      expect(startedAt).toBeLessThan(toolEvents.indexOf(done));
    }
    expect(toolEvents.find((e) => e.type === 'tool.started' && e.call_id === 'bad')).toMatchObject({ label: 'Calling echo', arguments: null });
    expect(toolEvents.find((e) => e.type === 'tool.completed' && e.call_id === 'bad')).toMatchObject({ label: 'Could not call echo: invalid arguments', is_error: true });
    expect(toolEvents.find((e) => e.type === 'tool.completed' && e.call_id === 'unk')).toMatchObject({ label: 'Could not call missing: no such tool' });
    expect(toolEvents.find((e) => e.type === 'tool.started' && e.call_id === 'good')).toMatchObject({ label: 'Echo ok', arguments: { text: 'ok' } });
  });

  it('labels a failed call in completed form: the tool\'s own failure label, else "Failed: <activity>"', async () => {
    const { events } = await runScriptedTurn({
      tools: [failing, own],
      script: [
        { output: [functionCall('fetch_thing', { id: 'a' }, { callId: 'f1' }), functionCall('read_thing', { id: '/etc/shadow' }, { callId: 'f2' })] },
        { output: [message('done')] },
      ],
    });
    const completed = events.filter((e) => e.type === 'tool.completed') as any[];
    expect(completed.map((e) => [e.call_id, e.label, e.is_error])).toEqual([
      ['f1', 'Failed: Fetching a', true],
      ['f2', 'Could not read /etc/shadow', true],
    ]);
  });

  it('labels a call stopped by cancel "Stopped: <activity>"', async () => {
    const ac = new AbortController();
    const slow = defineWorkerTool({
      name: 'wait', description: 'x', schema: z.object({}), executionMode: 'sequential',
      describeActivity: () => 'Waiting',
      execute: (_p, ctx) => new Promise<AgentToolResult>((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    const { result, events } = await runScriptedTurn({
      tools: [slow],
      signal: ac.signal,
      onEvent: (e) => { if (e.type === 'tool.started') setTimeout(() => ac.abort(), 20); },
      script: [{ output: [functionCall('wait', {}, { callId: 'w1' })] }],
    });
    expect(result.status).toBe('cancelled');
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ call_id: 'w1', label: 'Stopped: Waiting', is_error: true });
  });
});

describe('odd custom tool calls', () => {
  it('answers a custom_tool_call without call_id under a synthetic id, never an empty one', async () => {
    const { server, result } = await runScriptedTurn({
      tools: [echo],
      script: [
        {
          events: [
            { type: 'response.created', response: { id: 'resp_c', status: 'in_progress', output: [] } },
            { type: 'response.output_item.done', output_index: 0, item: { id: 'ct1', type: 'custom_tool_call', status: 'completed', name: 'grammar', input: 'x' } },
            { type: 'response.completed', response: { id: 'resp_c', status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 1 } } },
          ],
        },
        { output: [message('ok')] },
      ],
    });
    expect(result.status).toBe('completed');
    const input = server.requests[1].body.input as any[];
    const call = input.find((i) => i.type === 'custom_tool_call');
    const out = input.find((i) => i.type === 'custom_tool_call_output');
    expect(call.call_id).toMatch(new RegExp(`^${SYNTHETIC_CALL_ID_PREFIX}`));
    expect(out.call_id).toBe(call.call_id);
  });
});
