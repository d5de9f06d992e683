import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TurnEvent } from '../../src/runtime/events.js';
import { MAX_STEPS_INSTRUCTION, EMPTY_RESPONSE_NUDGE } from '../../src/runtime/loop.js';
import { CUT_RESPONSE_INSTRUCTION } from '../../src/runtime/policies/cut-retry.js';
import { defineWorkerTool, textResult, type AnyWorkerAgentTool } from '../../src/runtime/tool.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';
import { functionCall, loadFixtureStreams, message, reasoning } from '../support/scripted-responses-server.js';

const echo = defineWorkerTool({
  name: 'echo', description: 'Echo text', schema: z.object({ text: z.string() }), executionMode: 'parallel', isReadOnly: true,
  describeActivity: (p) => `Echo ${p.text}`, execute: async (p) => textResult(`echo:${p.text}`),
});

const types = (events: TurnEvent[]) => events.map((e) => e.type);

describe('runTurn loop', () => {
  it('streams a text answer: started, deltas, completed message, turn.completed with usage', async () => {
    const { result, events } = await runScriptedTurn({
      tools: [echo],
      script: [{ output: [message('Hello big world')], usage: { input_tokens: 12, output_tokens: 3 } }],
    });
    for (const e of events) expect(TurnEvent.safeParse(e).success).toBe(true);
    expect(events[0]).toEqual({ type: 'turn.started', turn_id: 'turn_test', model: 'test-model', tools: ['echo'], unavailable: [] });
    expect(events.filter((e) => e.type === 'message.delta').map((e) => (e as { text: string }).text).join('')).toBe('Hello big world');
    expect(types(events).slice(-2)).toEqual(['message.completed', 'turn.completed']);
    expect(events.at(-1)).toEqual({ type: 'turn.completed', output_text: 'Hello big world', stop_reason: 'stop', steps: 1, usage: { input_tokens: 12, output_tokens: 3 } });
    expect(result).toMatchObject({ status: 'completed', outputText: 'Hello big world', stopReason: 'stop', steps: 1 });
  });

  it('loops through tool rounds until a response has no function calls, summing usage', async () => {
    const { result, server } = await runScriptedTurn({
      tools: [echo],
      script: [
        { output: [functionCall('echo', { text: 'a' })] },
        { output: [functionCall('echo', { text: 'b' })] },
        { output: [message('done')] },
      ],
    });
    expect(result).toMatchObject({ status: 'completed', steps: 3, usage: { input_tokens: 30, output_tokens: 15 } });
    expect(server.requests[2].body.input.filter((i: any) => i.type === 'function_call_output').map((i: any) => i.output)).toEqual(['echo:a', 'echo:b']);
    expect(result.transcript).toHaveLength(1 + 4 + 1);
  });

  it('after max_steps tool rounds makes one last request with tools disabled; stop reason max_steps', async () => {
    const { result, server } = await runScriptedTurn({
      tools: [echo],
      maxSteps: 2,
      script: [
        { output: [functionCall('echo', { text: '1' })] },
        { output: [functionCall('echo', { text: '2' })] },
        (body) => ({ output: [message(`final after ${body.tool_choice}`)] }),
      ],
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'max_steps', outputText: 'final after none', steps: 3 });
    const last = server.requests[2].body;
    expect(last.tool_choice).toBe('none');
    expect(last.input.at(-1)).toEqual({ type: 'message', role: 'developer', content: MAX_STEPS_INSTRUCTION });
    expect(server.requests[1].body.tool_choice).toBe('auto');
  });

  it('does not execute calls of a response cut by max_output_tokens; retries once saying it was cut off, then fails with max_output_tokens', async () => {
    let ran = 0;
    const counting = defineWorkerTool({ ...echo, execute: async (p: { text: string }) => { ran++; return textResult(p.text); } });
    const cut = { output: [functionCall('echo', '{"text":"par')], status: 'incomplete' as const, incompleteReason: 'max_output_tokens' as const };
    const { result, server, events } = await runScriptedTurn({ tools: [counting], script: [cut, cut] });
    expect(ran).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].body.input).toEqual([...server.requests[0].body.input, { type: 'message', role: 'developer', content: CUT_RESPONSE_INSTRUCTION }]);
    expect(result).toMatchObject({ status: 'failed', outputText: '', error: { code: 'max_output_tokens' } });
    expect(events.at(-1)).toMatchObject({ type: 'turn.failed', error: { code: 'max_output_tokens' } });
    expect(result.transcript.some((i: any) => i.type === 'function_call')).toBe(false);
  });

  it('continues normally when the retry after max_output_tokens completes', async () => {
    const { result } = await runScriptedTurn({
      tools: [echo],
      options: { maxOutputTokens: 100 },
      script: [{ output: [message('half')], status: 'incomplete', incompleteReason: 'max_output_tokens' }, { output: [message('whole answer')] }],
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'stop', outputText: 'whole answer', steps: 2 });
  });

  it('ends with the provider\'s reason for other incomplete responses (content_filter), without retry', async () => {
    const { result, server } = await runScriptedTurn({
      script: [{ output: [message('partial')], status: 'incomplete', incompleteReason: 'content_filter' }],
    });
    expect(server.requests).toHaveLength(1);
    expect(result).toMatchObject({ status: 'completed', stopReason: 'content_filter', outputText: 'partial' });
  });

  it('nudges once after an empty response following tool use, then fails with empty_response', async () => {
    const { result, server } = await runScriptedTurn({
      tools: [echo],
      script: [{ output: [functionCall('echo', { text: 'x' })] }, { output: [] }, { output: [] }],
    });
    expect(server.requests[2].body.input.at(-1)).toEqual({ type: 'message', role: 'developer', content: EMPTY_RESPONSE_NUDGE });
    expect(result).toMatchObject({ status: 'failed', outputText: '', error: { code: 'empty_response' } });
  });

  it('accepts the answer given after the nudge', async () => {
    const { result } = await runScriptedTurn({
      tools: [echo],
      script: [{ output: [functionCall('echo', { text: 'x' })] }, { output: [] }, { output: [message('here it is')] }],
    });
    expect(result).toMatchObject({ stopReason: 'stop', outputText: 'here it is' });
  });

  it('fails an empty first response with empty_response, never reporting it as a completed answer', async () => {
    const { result, events } = await runScriptedTurn({ script: [{ output: [] }] });
    expect(result).toMatchObject({ status: 'failed', outputText: '', error: { code: 'empty_response' } });
    expect(events.map((e) => e.type)).not.toContain('turn.completed');
  });

  it('fails with the provider code after SDK retries of 5xx are exhausted; the transcript stays valid', async () => {
    const err = { status: 500, body: { error: { message: 'overloaded', type: 'server_error', code: 'server_overloaded', param: null } } };
    const { result, events, server } = await runScriptedTurn({
      tools: [echo],
      maxRetries: 1,
      script: [{ output: [functionCall('echo', { text: 'x' }, { callId: 'c1' })] }, { httpError: err }, { httpError: err }],
    });
    expect(server.requests).toHaveLength(3);
    expect(events.at(-1)).toEqual({ type: 'turn.failed', error: { code: 'server_overloaded', message: `the model endpoint ${server.baseURL} answered HTTP 500: overloaded` } });
    expect(result.status).toBe('failed');
    expect(result.transcript.map((i: any) => i.role ?? i.type)).toEqual(['user', 'function_call', 'function_call_output']);
  });

  it('retries a 429 through the SDK and completes', async () => {
    const { result, server } = await runScriptedTurn({
      maxRetries: 2,
      script: [{ httpError: { status: 429, body: { error: { message: 'slow', type: 'rate_limit', code: 'rate_limit_exceeded', param: null } } } }, { output: [message('ok')] }],
    });
    expect(server.requests).toHaveLength(2);
    expect(result).toMatchObject({ status: 'completed', outputText: 'ok', steps: 1 });
  });

  it('fails with the provider code from a captured error stream (error + response.failed)', async () => {
    const { result, events } = await runScriptedTurn({ script: [{ fixture: 'openai-error.1.chunks.txt' }] });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('insufficient_quota');
    expect(events.at(-1)).toMatchObject({ type: 'turn.failed', error: { code: 'insufficient_quota', message: expect.stringMatching(/exceeded your current quota/) } });
  });

  it('fails as stream_interrupted when the stream is cut mid-way, without the partial items', async () => {
    for (const cutMode of ['destroy', 'end'] as const) {
      const { result } = await runScriptedTurn({
        tools: [echo],
        script: [{ output: [message('partial answer here'), functionCall('echo', { text: 'x' })], cutAfter: 6, cutMode }],
      });
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('stream_interrupted');
      expect(result.transcript).toEqual([{ type: 'message', role: 'user', content: 'hello' }]);
    }
  });

  it('fails as response_failed code from a response.failed stream event', async () => {
    const { result, server } = await runScriptedTurn({ script: [{ streamError: { code: 'server_error', message: 'model crashed' } }] });
    expect(result.error).toEqual({ code: 'server_error', message: `the model endpoint ${server.baseURL} sent an error in its stream: model crashed` });
  });

  it('cancels during the model stream: turn.cancelled with no calls, nothing partial in the transcript', async () => {
    const turn = new AbortController();
    const { result, events } = await runScriptedTurn({
      signal: turn.signal,
      script: [{ output: [message('one two three four five six seven')], delayMs: 20 }],
      onEvent: (e) => { if (e.type === 'message.delta') turn.abort(); },
    });
    expect(result.status).toBe('cancelled');
    expect(events.at(-1)).toEqual({ type: 'turn.cancelled', calls: [] });
    expect(result.transcript).toEqual([{ type: 'message', role: 'user', content: 'hello' }]);
  });

  it('fails before any model call when two tools share an identity', async () => {
    const { result, server, events } = await runScriptedTurn({ tools: [echo, echo], script: [] });
    expect(server.requests).toHaveLength(0);
    expect(result.error).toEqual({ code: 'invalid_tool_set', message: "two tools named echo in one turn's tool set" });
    expect(types(events)).toEqual(['turn.started', 'turn.failed']);
  });

  it('stateless mode: store false, encrypted reasoning requested and passed back unchanged and in order', async () => {
    const { server } = await runScriptedTurn({
      tools: [echo],
      script: [{ output: [reasoning('ENC-1', ['plan']), functionCall('echo', { text: 'x' }, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    const [first, second] = server.requests.map((r) => r.body);
    expect(first).toMatchObject({ store: false, include: ['reasoning.encrypted_content'], stream: true });
    expect(second.input.slice(1).map((i: any) => i.type)).toEqual(['reasoning', 'function_call', 'function_call_output']);
    expect(second.input[1]).toMatchObject({ type: 'reasoning', encrypted_content: 'ENC-1', summary: [{ type: 'summary_text', text: 'plan' }] });
  });

  it('replays the captured 4-stream reasoning run: reasoning and calls passed back, final answer 570', async () => {
    const streams = loadFixtureStreams('openai-reasoning-encrypted-content.1.chunks.txt');
    const doneItems = streams[0].map((l) => JSON.parse(l)).filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
    const calculator = defineWorkerTool({
      name: 'calculator', description: 'A minimal calculator', strict: true,
      schema: z.object({ a: z.number(), b: z.number(), op: z.enum(['add', 'subtract', 'multiply', 'divide']).default('add') }),
      executionMode: 'parallel', isReadOnly: true, describeActivity: (p) => `${p.a} ${p.op} ${p.b}`,
      execute: async (p) => textResult(String(p.op === 'add' ? p.a + p.b : p.op === 'multiply' ? p.a * p.b : NaN)),
    });
    const { result, server } = await runScriptedTurn({
      tools: [calculator],
      script: [0, 1, 2, 3].map((stream) => ({ fixture: 'openai-reasoning-encrypted-content.1.chunks.txt', stream })),
    });
    expect(result).toMatchObject({ status: 'completed', outputText: 'The final result is **570**.', steps: 4 });
    const second = server.requests[1].body.input;
    expect(second[1]).toEqual(doneItems[0]); // the reasoning item exactly as completed
    expect(second[1].encrypted_content).toMatch(/^gAAAA/);
    expect(second.slice(1).map((i: any) => i.type)).toEqual(['reasoning', 'function_call', 'function_call_output']);
    expect(second[3]).toEqual({ type: 'function_call_output', call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', output: '19' });
    const outs = server.requests[3].body.input.filter((i: any) => i.type === 'function_call_output').map((i: any) => i.output);
    expect(outs).toEqual(['19', '57', '570']);
    expect(result.usage?.input_tokens).toBeGreaterThan(0);
  });

  it('replays the captured gpt-5.1 tool call and answers its call_id', async () => {
    const weather = defineWorkerTool({
      name: 'get_weather', description: 'weather', schema: z.object({ city: z.string() }), executionMode: 'parallel', isReadOnly: true,
      describeActivity: (p) => `Weather in ${p.city}`, execute: async (p) => textResult(`sunny in ${p.city}`),
    });
    const { server, events } = await runScriptedTurn({
      tools: [weather],
      script: [{ fixture: 'issue-19493-gpt-5.1-tool-call.chunks.txt' }, { output: [message('It is sunny.')] }],
    });
    expect(server.requests[1].body.input.at(-1)).toEqual({ type: 'function_call_output', call_id: 'call_2FQdm3Br7Qb35YUBSkDR7kue', output: 'sunny in Beijing' });
    expect(events.find((e) => e.type === 'tool.started')).toMatchObject({ label: 'Weather in Beijing', arguments: { city: 'Beijing' } });
  });

  it('previous_response_id mode sends only new items and chains the response id', async () => {
    const { server, result } = await runScriptedTurn({
      tools: [echo],
      options: { conversationMode: 'previous_response_id' },
      script: [{ output: [functionCall('echo', { text: 'x' }, { callId: 'c1' })], responseId: 'resp_A' }, { output: [message('ok')], responseId: 'resp_B' }],
    });
    const [first, second] = server.requests.map((r) => r.body);
    expect(first.store).toBe(true);
    expect(first.previous_response_id).toBeUndefined();
    expect(first.include).toBeUndefined();
    expect(second.previous_response_id).toBe('resp_A');
    expect(second.input).toEqual([{ type: 'function_call_output', call_id: 'c1', output: 'echo:x' }]);
    expect(result.lastResponseId).toBe('resp_B');
  });

  it('previous_response_id mode does not chain a final answer whose calls were ignored after max_steps', async () => {
    const { result, events } = await runScriptedTurn({
      tools: [echo],
      maxSteps: 1,
      options: { conversationMode: 'previous_response_id' },
      script: [
        { output: [functionCall('echo', { text: 'x' }, { callId: 'c1' })], responseId: 'resp_A' },
        { output: [message('final'), functionCall('echo', { text: 'y' }, { callId: 'c2' })], responseId: 'resp_B' },
      ],
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'max_steps', outputText: 'final' });
    expect(events.find((e) => e.type === 'model.warning')).toMatchObject({ code: 'tool_calls_ignored', call_ids: ['c2'] });
    // resp_B holds c2 without an output at the provider: a continuation must start after resp_A.
    expect(result.lastResponseId).toBe('resp_A');
    expect(result.transcript.filter((i) => i.type === 'function_call').map((i) => (i as { call_id: string }).call_id)).toEqual(['c1']);
    expect(result.transcript.at(-1)).toMatchObject({ type: 'message', role: 'assistant' });
  });

  it('keeps the namespace on a namespaced function_call sent back in history', async () => {
    const create = defineWorkerTool({
      name: 'create_widget', namespace: 'widgets', namespaceDescription: 'Widget tools', description: 'create', schema: z.object({ name: z.string() }),
      executionMode: 'sequential', describeActivity: (p) => `Creating ${p.name}`, execute: async (p) => textResult(`created ${p.name}`),
    });
    const { server, events } = await runScriptedTurn({
      tools: [create],
      script: [{ output: [functionCall('create_widget', { name: 'w' }, { namespace: 'widgets', callId: 'c1' })] }, { output: [message('ok')] }],
    });
    const history = server.requests[1].body.input;
    expect(history[1]).toMatchObject({ type: 'function_call', name: 'create_widget', namespace: 'widgets' });
    expect(history[2]).toEqual({ type: 'function_call_output', call_id: 'c1', output: 'created w' });
    expect(events[0]).toMatchObject({ tools: ['widgets.create_widget'] });
    expect(events.find((e) => e.type === 'tool.started')).toMatchObject({ name: 'widgets.create_widget' });
  });

  it('answers an unexpected custom_tool_call (captured) with one error output and continues', async () => {
    const { server, result } = await runScriptedTurn({
      tools: [echo],
      script: [{ fixture: 'openai-custom-tool.1.chunks.txt' }, { output: [message('ok')] }],
    });
    expect(server.requests[1].body.input.slice(-2)).toEqual([
      expect.objectContaining({ type: 'custom_tool_call', call_id: 'call_custom_sql_001' }),
      { type: 'custom_tool_call_output', call_id: 'call_custom_sql_001', output: 'Error: unknown tool write_sql. Available tools: echo.' },
    ]);
    expect(result).toMatchObject({ status: 'completed', outputText: 'ok' });
  });

  it('sends instructions, and a forced tool_choice', async () => {
    const { server } = await runScriptedTurn({ instructions: 'Be brief.', toolChoice: 'required', tools: [echo], script: [{ output: [message('ok')] }] });
    expect(server.requests[0].body).toMatchObject({ instructions: 'Be brief.', tool_choice: 'required', model: 'test-model' });
  });
});

describe('finalAnswerGuard', () => {
  const submit: AnyWorkerAgentTool = defineWorkerTool({
    name: 'submit_result', description: 'submit', schema: z.object({ value: z.string() }), executionMode: 'sequential',
    describeActivity: () => 'Submitting', execute: async () => textResult('accepted', undefined, { terminate: true }),
  });

  it('sends the repair instruction once and restricts tools to onlyTools', async () => {
    const seen: string[] = [];
    const { result, server } = await runScriptedTurn({
      tools: [echo, submit],
      finalAnswerGuard: ({ outputText }) => { seen.push(outputText); return { instruction: 'Submit your result with submit_result.', onlyTools: ['submit_result'] }; },
      script: [{ output: [message('the answer is 4')] }, { output: [functionCall('submit_result', { value: '4' })] }],
    });
    expect(seen).toEqual(['the answer is 4']);
    const second = server.requests[1].body;
    expect(second.input.at(-1)).toEqual({ type: 'message', role: 'developer', content: 'Submit your result with submit_result.' });
    expect(second.tools.map((t: any) => t.name)).toEqual(['submit_result']);
    expect(result).toMatchObject({ stopReason: 'terminated' });
  });

  it('is called at most once unless repeatable', async () => {
    let calls = 0;
    const { result } = await runScriptedTurn({
      finalAnswerGuard: () => { calls++; return { instruction: 'again' }; },
      script: [{ output: [message('a')] }, { output: [message('b')] }],
    });
    expect(calls).toBe(1);
    expect(result).toMatchObject({ stopReason: 'stop', outputText: 'b' });
  });

  it('finishes normally when the guard returns null', async () => {
    const { result, server } = await runScriptedTurn({ finalAnswerGuard: async () => null, script: [{ output: [message('fine')] }] });
    expect(server.requests).toHaveLength(1);
    expect(result.outputText).toBe('fine');
  });
});
