/**
 * The loop's behaviour as a contract over the model port: every test runs against both adapters —
 * Responses (scripted Responses server) and Chat Completions (scripted Chat Completions server) —
 * through the real `openai` SDK. Adapter-specific wire details are tested in test/model/.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TurnEvent } from '../../src/runtime/events.js';
import { EMPTY_RESPONSE_NUDGE, MAX_STEPS_INSTRUCTION } from '../../src/runtime/loop.js';
import { CUT_RESPONSE_INSTRUCTION } from '../../src/runtime/policies/cut-retry.js';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import { createSubmitResultTool } from '../../src/tools/submit-result/submit-result-tool.js';
import { createSubmitGuard } from '../../src/workflows/task-attempt.js';
import { ADAPTER_DRIVERS } from '../support/adapter-drivers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const types = (events: TurnEvent[]) => events.map((e) => e.type);

function concurrencyProbe() {
  let running = 0;
  let max = 0;
  const order: string[] = [];
  return {
    max: () => max,
    order,
    async run(label: string, ms: number) {
      running++;
      max = Math.max(max, running);
      order.push(`start:${label}`);
      await sleep(ms);
      order.push(`end:${label}`);
      running--;
    },
  };
}

describe.each(ADAPTER_DRIVERS)('runTurn over the $name adapter', (driver) => {
  const echo = defineWorkerTool({
    name: 'echo', description: 'Echo text', schema: z.object({ text: z.string() }), executionMode: 'parallel', isReadOnly: true,
    describeActivity: (p) => `Echo ${p.text}`, execute: async (p) => textResult(`echo:${p.text}`),
  });

  it('streams a text answer: started, deltas, message.completed, turn.completed with usage', async () => {
    const { result, events } = await driver.run({ tools: [echo], script: [{ text: 'Hello big world', usage: { input_tokens: 12, output_tokens: 3 } }] });
    for (const e of events) expect(TurnEvent.safeParse(e).success).toBe(true);
    expect(events.filter((e) => e.type === 'message.delta').map((e) => (e as { text: string }).text).join('')).toBe('Hello big world');
    expect(types(events).slice(-2)).toEqual(['message.completed', 'turn.completed']);
    expect(events.at(-1)).toEqual({ type: 'turn.completed', output_text: 'Hello big world', stop_reason: 'stop', steps: 1, usage: { input_tokens: 12, output_tokens: 3 } });
    expect(result).toMatchObject({ status: 'completed', outputText: 'Hello big world' });
  });

  it('streams reasoning as reasoning.delta events, apart from the answer text', async () => {
    const { events, result } = await driver.run({ script: [{ reasoning: 'Two plus two is four.', text: 'Four.' }] });
    const reasoningText = events.flatMap((e) => (e.type === 'reasoning.delta' ? [e.text] : [])).join('');
    expect(reasoningText.replace(/\s+/g, ' ')).toBe('Two plus two is four.');
    expect(types(events).indexOf('reasoning.delta')).toBeLessThan(types(events).indexOf('message.delta'));
    expect(result.outputText).toBe('Four.');
  });

  it('loops through tool rounds until an answer without calls; each output goes back paired with its call', async () => {
    const { result, requests } = await driver.run({
      tools: [echo],
      script: [{ calls: [{ name: 'echo', args: { text: 'a' }, id: 'c1' }] }, { calls: [{ name: 'echo', args: { text: 'b' }, id: 'c2' }] }, { text: 'done' }],
    });
    expect(result).toMatchObject({ status: 'completed', steps: 3, outputText: 'done', usage: { input_tokens: 30, output_tokens: 15 } });
    expect(requests[2].calls.map((c) => c.call_id)).toEqual(['c1', 'c2']);
    expect(requests[2].outputs).toEqual([{ call_id: 'c1', output: 'echo:a' }, { call_id: 'c2', output: 'echo:b' }]);
  });

  it('pairs every call of a response with exactly one output, also an unknown tool\'s', async () => {
    const { requests, events } = await driver.run({
      tools: [echo],
      script: [{ calls: [{ name: 'echo', args: { text: 'x' }, id: 'k1' }, { name: 'nope', args: {}, id: 'k2' }, { name: 'echo', args: { text: 'y' }, id: 'k3' }] }, { text: 'ok' }],
    });
    expect(requests[1].outputs.map((o) => o.call_id)).toEqual(['k1', 'k2', 'k3']);
    expect(requests[1].outputs[1].output).toMatch(/^Error: unknown tool nope/);
    expect(events.filter((e) => e.type === 'tool.completed')).toHaveLength(3);
  });

  it('repairs malformed arguments and says which step did', async () => {
    const { requests, events } = await driver.run({
      tools: [echo],
      script: [{ calls: [{ name: 'echo', args: '```json\n{"text":"fenced"}\n```', id: 'r1' }] }, { text: 'ok' }],
    });
    expect(requests[1].outputs).toEqual([{ call_id: 'r1', output: 'echo:fenced' }]);
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ repaired: 'code_fence', is_error: false });
  });

  it('runs read-only parallel tools concurrently and sequential tools one at a time, in the model\'s order', async () => {
    const probe = concurrencyProbe();
    const read = defineWorkerTool({ name: 'read', description: 'r', schema: z.object({ n: z.string() }), executionMode: 'parallel', isReadOnly: true, describeActivity: () => 'r', execute: async (p) => (await probe.run(p.n, 40), textResult(p.n)) });
    const write = defineWorkerTool({ name: 'write', description: 'w', schema: z.object({ n: z.string() }), executionMode: 'sequential', describeActivity: () => 'w', execute: async (p) => (await probe.run(p.n, 10), textResult(p.n)) });
    const par = await driver.run({ tools: [read], script: [{ calls: [{ name: 'read', args: { n: 'a' } }, { name: 'read', args: { n: 'b' } }] }, { text: 'ok' }] });
    expect(probe.max()).toBe(2);
    expect(par.requests[1].outputs.map((o) => o.output)).toEqual(['a', 'b']);
    const seqProbe = concurrencyProbe();
    const write2 = defineWorkerTool({ ...write, execute: async (p: { n: string }) => (await seqProbe.run(p.n, 10), textResult(p.n)) });
    await driver.run({ tools: [write2], script: [{ calls: [{ name: 'write', args: { n: '1' } }, { name: 'write', args: { n: '2' } }, { name: 'write', args: { n: '3' } }] }, { text: 'ok' }] });
    expect(seqProbe.max()).toBe(1);
    expect(seqProbe.order).toEqual(['start:1', 'end:1', 'start:2', 'end:2', 'start:3', 'end:3']);
  });

  it('after max_steps tool rounds asks once more without tools; stop reason max_steps', async () => {
    const { result, requests } = await driver.run({
      tools: [echo],
      maxSteps: 2,
      script: [{ calls: [{ name: 'echo', args: { text: '1' } }] }, { calls: [{ name: 'echo', args: { text: '2' } }] }, { text: 'final' }],
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'max_steps', outputText: 'final', steps: 3 });
    const last = requests[2];
    if (driver.name === 'chat') expect(last.tools).toEqual([]);
    else expect(last.toolChoice).toBe('none');
    expect(last.last).toMatchObject({ text: MAX_STEPS_INSTRUCTION });
  });

  it('does not run the calls of a response cut at the output limit; retries once telling the model, then fails with max_output_tokens', async () => {
    let ran = 0;
    const counting = defineWorkerTool({ ...echo, execute: async (p: { text: string }) => { ran++; return textResult(p.text); } });
    const cut = { calls: [{ name: 'echo', args: '{"text":"par' }], cut: true };
    const { result, requests } = await driver.run({ tools: [counting], script: [cut, cut] });
    expect(ran).toBe(0);
    expect(requests).toHaveLength(2);
    expect(requests[1].last).toMatchObject({ text: CUT_RESPONSE_INSTRUCTION });
    expect(result).toMatchObject({ status: 'failed', error: { code: 'max_output_tokens' } });
    expect(result.transcript.some((i) => i.type === 'function_call')).toBe(false);
  });

  it('nudges once after an empty answer following tool use, then accepts the next answer', async () => {
    const { result, requests } = await driver.run({
      tools: [echo],
      script: [{ calls: [{ name: 'echo', args: { text: 'x' } }] }, { text: '' }, { text: 'here it is' }],
    });
    expect(requests[2].last).toMatchObject({ text: EMPTY_RESPONSE_NUDGE });
    expect(result).toMatchObject({ stopReason: 'stop', outputText: 'here it is' });
  });

  it('fails with the provider\'s code after SDK retries; the transcript stays valid', async () => {
    const err = { status: 500, code: 'server_overloaded', message: 'overloaded' };
    const { result, events, requests } = await driver.run({
      tools: [echo],
      maxRetries: 1,
      script: [{ calls: [{ name: 'echo', args: { text: 'x' }, id: 'c1' }] }, { httpError: err }, { httpError: err }],
    });
    expect(requests).toHaveLength(3);
    expect(events.at(-1)).toEqual({ type: 'turn.failed', error: { code: 'server_overloaded', message: expect.stringMatching(/^the model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 500: overloaded$/) } });
    expect(result.transcript.map((i) => i.type)).toEqual(['message', 'function_call', 'function_call_output']);
  });

  it('cancels during the model stream: turn.cancelled, nothing partial kept', async () => {
    const turn = new AbortController();
    const { result, events } = await driver.run({
      signal: turn.signal,
      script: [{ text: 'one two three four five six seven', delayMs: 20 }],
      onEvent: (e) => { if (e.type === 'message.delta') turn.abort(); },
    });
    expect(result.status).toBe('cancelled');
    expect(events.at(-1)).toEqual({ type: 'turn.cancelled', calls: [] });
    expect(result.transcript).toEqual([{ type: 'message', role: 'user', content: 'hello' }]);
  });

  it('cancels during a tool: the running tool is aborted and every call gets an output', async () => {
    const turn = new AbortController();
    const slow = defineWorkerTool({
      name: 'slow', description: 's', schema: z.object({}), executionMode: 'sequential', describeActivity: () => 's',
      execute: async (_p, ctx) => { turn.abort(); await new Promise((r) => ctx.signal.addEventListener('abort', r)); return textResult('late'); },
    });
    const { result, events } = await driver.run({ signal: turn.signal, tools: [slow], script: [{ calls: [{ name: 'slow', args: {}, id: 's1' }, { name: 'slow', args: {}, id: 's2' }] }] });
    expect(result.status).toBe('cancelled');
    expect(events.at(-1)).toEqual({ type: 'turn.cancelled', calls: [{ call_id: 's1', state: 'cancelled' }, { call_id: 's2', state: 'not_started' }] });
    expect(result.transcript.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual(['s1', 's2']);
  });

  it('workflow task turns: the submit_result guard offers only submit_result once, and an accepted result ends the turn', async () => {
    const submitted: unknown[] = [];
    const submit = createSubmitResultTool({
      workflowId: 'wf1', taskIndex: 0,
      resultSchema: { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'], additionalProperties: false },
      submit: async (v) => {
        const ok = typeof (v as { answer?: unknown })?.answer === 'number';
        if (ok) submitted.push(v);
        return ok ? { ok: true } : { ok: false, errors: ['/answer: must be integer'] };
      },
    });
    const { guard } = createSubmitGuard();
    const { result, requests } = await driver.run({
      tools: [echo, submit],
      finalAnswerGuard: guard,
      script: [
        { text: 'The answer is 4.' },
        (view) => ({ calls: [{ name: view.tools.includes('submit_result') ? 'submit_result' : 'echo', args: { result: { answer: 'four' } } }] }),
        { calls: [{ name: 'submit_result', args: { result: { answer: 4 } } }] },
      ],
    });
    expect(requests[1].tools).toEqual(['submit_result']);
    expect(requests[2].outputs.at(-1)?.output).toMatch(/^Error: .*submit_result rejected: the result does not match/);
    expect(submitted).toEqual([{ answer: 4 }]);
    expect(result).toMatchObject({ status: 'completed', stopReason: 'terminated' });
  });
});
