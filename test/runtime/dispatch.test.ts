import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool, textResult, type AnyWorkerAgentTool } from '../../src/runtime/tool.js';
import type { TurnEvent } from '../../src/runtime/events.js';
import { isStoppedWhileRunning } from '../../src/runtime/dispatch.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** function_call_output items the model received in request `body`, as {call_id: output}. */
function outputs(body: ResponsesRequestBody): Record<string, unknown> {
  return Object.fromEntries(body.input.filter((i: any) => i.type === 'function_call_output').map((i: any) => [i.call_id, i.output]));
}

function of<T extends TurnEvent['type']>(events: TurnEvent[], type: T): Extract<TurnEvent, { type: T }>[] {
  return events.filter((e) => e.type === type) as Extract<TurnEvent, { type: T }>[];
}

function tracker() {
  let running = 0;
  let max = 0;
  const log: string[] = [];
  return {
    log,
    get max() { return max; },
    async run<T>(name: string, ms: number, fn: () => T): Promise<T> {
      running++;
      max = Math.max(max, running);
      log.push(`start ${name}`);
      try {
        await sleep(ms);
        return fn();
      } finally {
        running--;
        log.push(`end ${name}`);
      }
    },
  };
}

function parallelTool(name: string, impl: (p: { v: string }, signal: AbortSignal) => Promise<string>): AnyWorkerAgentTool {
  return defineWorkerTool({
    name, description: name, schema: z.object({ v: z.string() }), executionMode: 'parallel', isReadOnly: true,
    describeActivity: (p) => `${name} ${p.v}`,
    execute: async (p, ctx) => textResult(await impl(p, ctx.signal)),
  });
}

function sequentialTool(name: string, impl: (p: { v: string }, signal: AbortSignal) => Promise<string>, extra: Record<string, unknown> = {}): AnyWorkerAgentTool {
  return defineWorkerTool({
    name, description: name, schema: z.object({ v: z.string() }), executionMode: 'sequential',
    describeActivity: (p) => `${name} ${p.v}`,
    execute: async (p, ctx) => textResult(await impl(p, ctx.signal)),
    ...extra,
  });
}

describe('dispatch of function calls', () => {
  it('answers an unknown tool with an error naming the available tools and continues the turn', async () => {
    const { result, server, events } = await runScriptedTurn({
      tools: [parallelTool('alpha', async () => 'a'), parallelTool('beta', async () => 'b')],
      script: [{ output: [functionCall('gamma', { v: '1' }, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'stop' });
    expect(outputs(server.requests[1].body)).toEqual({ c1: 'Error: unknown tool gamma. Available tools: alpha, beta.' });
    expect(of(events, 'tool.completed')[0]).toMatchObject({ call_id: 'c1', is_error: true, label: 'Could not call gamma: no such tool' });
    expect(of(events, 'tool.started')).toEqual([{ type: 'tool.started', call_id: 'c1', name: 'gamma', label: 'Calling gamma', arguments: null }]);
  });

  it('runs two parallel calls to the same tool concurrently and pairs each output with its call_id', async () => {
    const t = tracker();
    const { server } = await runScriptedTurn({
      tools: [parallelTool('echo', (p) => t.run(p.v, 40, () => `echo:${p.v}`))],
      script: [
        { output: [functionCall('echo', { v: 'one' }, { callId: 'c1' }), functionCall('echo', { v: 'two' }, { callId: 'c2' })] },
        { output: [message('ok')] },
      ],
    });
    expect(t.max).toBe(2);
    expect(outputs(server.requests[1].body)).toEqual({ c1: 'echo:one', c2: 'echo:two' });
    const kinds = server.requests[1].body.input.slice(1).map((i: any) => `${i.type}:${i.call_id}`);
    expect(kinds).toEqual(['function_call:c1', 'function_call:c2', 'function_call_output:c1', 'function_call_output:c2']);
  });

  it('keeps the other outputs when one of three parallel tools throws', async () => {
    const { server, events } = await runScriptedTurn({
      tools: [
        parallelTool('ok1', async () => 'first'),
        parallelTool('boom', async () => { throw new Error('disk on fire'); }),
        parallelTool('ok2', async () => { await sleep(20); return 'third'; }),
      ],
      script: [
        { output: [functionCall('ok1', { v: 'a' }, { callId: 'c1' }), functionCall('boom', { v: 'b' }, { callId: 'c2' }), functionCall('ok2', { v: 'c' }, { callId: 'c3' })] },
        { output: [message('ok')] },
      ],
    });
    expect(outputs(server.requests[1].body)).toEqual({ c1: 'first', c2: 'Error: tool boom failed: disk on fire', c3: 'third' });
    expect(of(events, 'tool.completed').map((e) => [e.call_id, e.is_error])).toEqual(
      expect.arrayContaining([['c1', false], ['c2', true], ['c3', false]]),
    );
  });

  it('leaves the signal of a call that returned alone, and stops what a failed call left running', async () => {
    const signals: Record<string, AbortSignal> = {};
    const { result } = await runScriptedTurn({
      tools: [
        parallelTool('fine', async (p, signal) => ((signals.fine = signal), 'ok')),
        parallelTool('boom', async (p, signal) => {
          signals.boom = signal;
          throw new Error('broken');
        }),
      ],
      script: [
        { output: [functionCall('fine', { v: 'a' }, { callId: 'c1' }), functionCall('boom', { v: 'b' }, { callId: 'c2' })] },
        { output: [message('ok')] },
      ],
    });
    expect(result.status).toBe('completed');
    expect(signals.fine.aborted).toBe(false); // finished: nothing to stop
    expect(signals.boom.aborted).toBe(true); // failed: its leftovers are stopped
  });

  it('runs at most 4 parallel calls at once by default, and honours a configured limit', async () => {
    for (const [limit, expected] of [[undefined, 4], [2, 2]] as const) {
      const t = tracker();
      const calls = Array.from({ length: 7 }, (_, i) => functionCall('p', { v: String(i) }, { callId: `c${i}` }));
      const { server } = await runScriptedTurn({
        tools: [parallelTool('p', (p) => t.run(p.v, 30, () => p.v))],
        script: [{ output: calls }, { output: [message('ok')] }],
        options: limit ? { parallelLimit: limit } : {},
      });
      expect(t.max).toBe(expected);
      expect(Object.keys(outputs(server.requests[1].body))).toHaveLength(7);
    }
  });

  it('runs sequential calls one by one in the model\'s order', async () => {
    const t = tracker();
    const { server } = await runScriptedTurn({
      tools: [sequentialTool('w', (p) => t.run(p.v, 15, () => p.v)), parallelTool('r', (p) => t.run(`r${p.v}`, 15, () => p.v))],
      script: [
        { output: [functionCall('w', { v: '1' }), functionCall('r', { v: '2' }), functionCall('r', { v: '3' }), functionCall('w', { v: '4' })] },
        { output: [message('ok')] },
      ],
    });
    expect(t.log.slice(0, 2)).toEqual(['start 1', 'end 1']);
    expect(t.log.slice(-2)).toEqual(['start 4', 'end 4']);
    expect(t.log.slice(2, 4).sort()).toEqual(['start r2', 'start r3']);
    expect(Object.values(outputs(server.requests[1].body))).toEqual(['1', '2', '3', '4']);
  });

  it('on cancel during a sequential tool: aborts it, starts no later tool, and gives every call an output', async () => {
    const turn = new AbortController();
    let sawAbort = false;
    const started: string[] = [];
    const slow = sequentialTool('slow', (p, signal) => {
      started.push(p.v);
      return new Promise((_, reject) => signal.addEventListener('abort', () => { sawAbort = true; reject(new Error('aborted')); }));
    });
    const { result, events } = await runScriptedTurn({
      signal: turn.signal,
      tools: [slow],
      script: [{ output: [functionCall('slow', { v: 'a' }, { callId: 'c1' }), functionCall('slow', { v: 'b' }, { callId: 'c2' })] }],
      onEvent: (e) => { if (e.type === 'tool.started') setTimeout(() => turn.abort(), 20); },
    });
    expect(result.status).toBe('cancelled');
    expect(sawAbort).toBe(true);
    expect(started).toEqual(['a']);
    expect(events.at(-1)).toEqual({ type: 'turn.cancelled', calls: [{ call_id: 'c1', state: 'cancelled' }, { call_id: 'c2', state: 'not_started' }] });
    const outs = result.transcript.filter((i: any) => i.type === 'function_call_output').map((i: any) => [i.call_id, i.output]);
    expect(outs).toEqual([
      ['c1', 'Error: the turn was cancelled while this tool call was running'],
      ['c2', 'Error: the turn was cancelled before this tool call started'],
    ]);
    // Only the call cut while it ran is told apart (a run stopped without ending its turn withholds it).
    expect(events.filter(isStoppedWhileRunning)).toEqual([expect.objectContaining({ type: 'tool.completed', call_id: 'c1' })]);
  });

  it('tells apart no other tool.completed as stopped while running: results, failures, refusals', async () => {
    const ok = parallelTool('ok', async (p) => p.v);
    const bad = parallelTool('bad', async () => { throw new Error('the turn was cancelled while this tool call was running'); });
    const { events } = await runScriptedTurn({
      tools: [ok, bad],
      script: [
        { output: [functionCall('ok', { v: 'Error: the turn was cancelled while this tool call was running' }), functionCall('bad', { v: 'x' }), functionCall('nope', {})] },
        { output: [message('done')] },
      ],
    });
    expect(of(events, 'tool.completed')).toHaveLength(3);
    expect(events.filter(isStoppedWhileRunning)).toEqual([]);
  });

  it('ends the turn after a terminating tool; later calls of the round are not started', async () => {
    const ran: string[] = [];
    const stop = defineWorkerTool({
      name: 'finish', description: 'finish', schema: z.object({}), executionMode: 'sequential', describeActivity: () => 'Finishing',
      execute: async () => { ran.push('finish'); return textResult('done', undefined, { terminate: true }); },
    });
    const { result, server } = await runScriptedTurn({
      tools: [stop, sequentialTool('after', async (p) => { ran.push(p.v); return p.v; })],
      script: [{ output: [message('wrapping up'), functionCall('finish', {}, { callId: 'c1' }), functionCall('after', { v: 'x' }, { callId: 'c2' })] }],
    });
    expect(ran).toEqual(['finish']);
    expect(result).toMatchObject({ status: 'completed', stopReason: 'terminated', outputText: 'wrapping up', steps: 1 });
    expect(server.requests).toHaveLength(1);
    const outs = result.transcript.filter((i: any) => i.type === 'function_call_output').map((i: any) => [i.call_id, i.output]);
    expect(outs).toEqual([['c1', 'done'], ['c2', 'Error: a prior tool call already ended this turn']]);
  });

  it('times a tool out, aborting its signal, with an Error output', async () => {
    let aborted = false;
    const hang = sequentialTool('hang', (_p, signal) => new Promise(() => { signal.addEventListener('abort', () => { aborted = true; }); }), { timeoutMs: 50 });
    const { server, result } = await runScriptedTurn({
      tools: [hang],
      script: [{ output: [functionCall('hang', { v: 'x' }, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    expect(aborted).toBe(true);
    expect(outputs(server.requests[1].body)).toEqual({ c1: 'Error: tool hang timed out after 50 ms' });
    expect(result.status).toBe('completed');
  });

  it('uses the runtime default timeout when the tool sets none', async () => {
    const hang = sequentialTool('hang', () => new Promise(() => undefined));
    const { server } = await runScriptedTurn({
      tools: [hang], options: { toolTimeoutMs: 30 },
      script: [{ output: [functionCall('hang', { v: 'x' }, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    expect(outputs(server.requests[1].body)).toEqual({ c1: 'Error: tool hang timed out after 30 ms' });
  });

  it('refuses a tool after the same call failed the same way 3 times', async () => {
    let calls = 0;
    const flaky = sequentialTool('flaky', async () => { calls++; throw new Error('nope'); });
    const same = () => ({ output: [functionCall('flaky', { v: 'same' })] });
    const { server } = await runScriptedTurn({
      tools: [flaky],
      script: [same(), same(), same(), { output: [functionCall('flaky', { v: 'other' }, { callId: 'late' })] }, { output: [message('giving up')] }],
    });
    const third = Object.values(outputs(server.requests[3].body))[2] as string;
    expect(third).toMatch(/^Error: tool flaky failed: nope\nThis identical call has now failed the same way 3 times in this turn, so flaky is refused/);
    expect(outputs(server.requests[4].body).late).toMatch(/^Error: tool flaky is refused for the rest of this turn/);
    expect(calls).toBe(3);
  });

  it('takes call_id from output_item.done when output_item.added carried another one', async () => {
    const { server, events } = await runScriptedTurn({
      tools: [parallelTool('echo', async (p) => p.v)],
      script: [{ output: [functionCall('echo', { v: 'x' }, { addedCallId: 'call_added', callId: 'call_done' })] }, { output: [message('ok')] }],
    });
    expect(outputs(server.requests[1].body)).toEqual({ call_done: 'x' });
    expect(of(events, 'tool.started')[0].call_id).toBe('call_done');
  });

  it('does not run a tool with invalid arguments; its tool.started carries a generic label and no arguments', async () => {
    let ran = false;
    const { server, events } = await runScriptedTurn({
      tools: [parallelTool('echo', async () => { ran = true; return 'x'; })],
      script: [{ output: [functionCall('echo', { v: 42 }, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    expect(ran).toBe(false);
    expect(of(events, 'tool.started')).toEqual([{ type: 'tool.started', call_id: 'c1', name: 'echo', label: 'Calling echo', arguments: null }]);
    expect(outputs(server.requests[1].body).c1).toMatch(/^Error: invalid arguments for tool echo:\n- v: /);
  });

  it('reports the repair step on tool.completed and in the turn\'s tool stats', async () => {
    const { events, result } = await runScriptedTurn({
      tools: [parallelTool('echo', async (p) => p.v)],
      script: [
        { output: [functionCall('echo', '{"v":"x",', { callId: 'c1' }), functionCall('echo', '```json\n{"v":"y"}\n```', { callId: 'c2' }), functionCall('echo', '{}', { callId: 'c3' })] },
        { output: [message('ok')] },
      ],
    });
    expect(of(events, 'tool.completed').find((e) => e.call_id === 'c1')).toMatchObject({ is_error: false, repaired: 'close_truncated', output: 'x' });
    expect(result.toolStats).toEqual({ calls: 3, errors: 1, repairs: { close_truncated: 1, code_fence: 1 } });
  });

  it('uses labels, falls back when a label function throws, and streams progress and presentation', async () => {
    const fancy = defineWorkerTool({
      name: 'fancy', description: 'f', schema: z.object({ n: z.number() }), executionMode: 'sequential',
      describeActivity: (p) => `Working on ${p.n}`,
      describeCompletedActivity: (p, r) => `Worked on ${p.n}: ${(r.details as { size: number }).size}`,
      execute: async (p, ctx) => {
        ctx.emit({ message: 'half way', data: { pct: 50 } });
        return textResult('result', { size: p.n * 2 }, { presentation: [{ type: 'plan.snapshot', items: [] }] });
      },
    });
    const broken = defineWorkerTool({
      name: 'broken_label', description: 'b', schema: z.object({}), executionMode: 'sequential',
      describeActivity: () => { throw new Error('label bug'); },
      execute: async () => textResult('fine'),
    });
    const { events } = await runScriptedTurn({
      tools: [fancy, broken],
      script: [{ output: [functionCall('fancy', { n: 2 }, { callId: 'c1' }), functionCall('broken_label', {}, { callId: 'c2' })] }, { output: [message('ok')] }],
    });
    const kinds = events.filter((e) => 'call_id' in e).map((e) => `${e.type}:${(e as { call_id: string }).call_id}`);
    expect(kinds).toEqual(['tool.started:c1', 'tool.progress:c1', 'presentation:c1', 'tool.completed:c1', 'tool.started:c2', 'tool.completed:c2']);
    expect(of(events, 'tool.started')[0].label).toBe('Working on 2');
    expect(of(events, 'tool.completed')[0]).toMatchObject({ label: 'Worked on 2: 4', details: { size: 4 } });
    expect(of(events, 'tool.progress')[0]).toEqual({ type: 'tool.progress', call_id: 'c1', message: 'half way', data: { pct: 50 } });
    expect(of(events, 'presentation')[0]).toEqual({ type: 'presentation', call_id: 'c1', event: { type: 'plan.snapshot', items: [] } });
    expect(of(events, 'tool.started')[1].label).toBe('broken_label');
    expect(of(events, 'tool.completed')[1]).toMatchObject({ is_error: false, output: 'fine' });
  });

  it('sends image content as input_image parts of the function_call_output', async () => {
    const shot = defineWorkerTool({
      name: 'shot', description: 's', schema: z.object({}), executionMode: 'sequential', describeActivity: () => null,
      execute: async () => ({ content: [{ type: 'text', text: 'see image' }, { type: 'image', url: 'data:image/png;base64,AAAA' }] }),
    });
    const { server, events } = await runScriptedTurn({
      tools: [shot],
      script: [{ output: [functionCall('shot', {}, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    expect(outputs(server.requests[1].body).c1).toEqual([
      { type: 'input_text', text: 'see image' },
      { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
    ]);
    expect(of(events, 'tool.completed')[0]).toMatchObject({ output: 'see image', label: null });
  });
});
