import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool, textResult, type AnyWorkerAgentTool } from '../../src/runtime/tool.js';
import type { TurnEvent } from '../../src/runtime/events.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';

/** function_call_output items of request `body`, in order, as [call_id, output]. */
function outputList(body: ResponsesRequestBody): [string, unknown][] {
  return body.input.filter((i: any) => i.type === 'function_call_output').map((i: any) => [i.call_id, i.output]);
}

function completedEvents(events: TurnEvent[]) {
  return events.filter((e) => e.type === 'tool.completed') as Extract<TurnEvent, { type: 'tool.completed' }>[];
}

function recordingTool(name: string, ran: string[], executionMode: 'parallel' | 'sequential' = 'parallel'): AnyWorkerAgentTool {
  return defineWorkerTool({
    name, description: name, schema: z.object({ v: z.string() }), executionMode, isReadOnly: executionMode === 'parallel',
    describeActivity: (p) => `${name} ${p.v}`,
    execute: async (p) => {
      ran.push(`${name}:${p.v}`);
      return textResult(`${name} got ${p.v}`);
    },
  });
}

describe('limits on the function calls of one response', () => {
  it('executes at most 64 calls per response by default and tells the model to split the rest', async () => {
    const ran: string[] = [];
    const calls = Array.from({ length: 66 }, (_, k) => functionCall('echo', { v: String(k) }, { callId: `c${k}` }));
    const { result, server, events } = await runScriptedTurn({
      tools: [recordingTool('echo', ran)],
      script: [{ output: calls }, { output: [message('ok')] }],
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'stop' });
    expect(ran).toHaveLength(64);
    expect(ran).not.toContain('echo:64');
    expect(ran).not.toContain('echo:65');
    const outs = outputList(server.requests[1].body);
    expect(outs.map(([id]) => id)).toEqual(calls.map((c) => c.callId));
    expect(outs[63]).toEqual(['c63', 'echo got 63']);
    for (const [id, out] of outs.slice(64)) {
      expect(out, id).toMatch(/^Error: this response contained 66 function calls, over the limit of 64 per response; .*not executed\. Split the work/);
    }
    const completed = completedEvents(events);
    expect(completed).toHaveLength(66);
    expect(completed.filter((e) => e.is_error).map((e) => e.call_id)).toEqual(['c64', 'c65']);
    const started = events.filter((e) => e.type === 'tool.started') as { call_id: string; label: string | null }[];
    expect(started).toHaveLength(66);
    expect(started.filter((e) => e.label === 'Calling echo').map((e) => e.call_id)).toEqual(['c64', 'c65']);
  });

  it('honours RuntimeOptions.maxToolCallsPerResponse, also for sequential tools', async () => {
    const ran: string[] = [];
    const { server, events } = await runScriptedTurn({
      tools: [recordingTool('write', ran, 'sequential')],
      options: { maxToolCallsPerResponse: 2 },
      script: [
        { output: ['a', 'b', 'c', 'd'].map((v, k) => functionCall('write', { v }, { callId: `w${k}` })) },
        { output: [message('ok')] },
      ],
    });
    expect(ran).toEqual(['write:a', 'write:b']);
    const outs = outputList(server.requests[1].body);
    expect(outs).toHaveLength(4);
    expect(outs.slice(0, 2)).toEqual([['w0', 'write got a'], ['w1', 'write got b']]);
    expect(outs[2][1]).toMatch(/^Error: .*over the limit of 2 per response; call #3 was not executed/);
    expect(outs[3][1]).toMatch(/^Error: .*call #4 was not executed/);
    expect(completedEvents(events).filter((e) => e.is_error)).toHaveLength(2);
  });
});

describe('tool restriction from a final-answer guard', () => {
  it('refuses calls to tools outside onlyTools instead of running them', async () => {
    const ran: string[] = [];
    let guardCalls = 0;
    const { result, server, events } = await runScriptedTurn({
      tools: [recordingTool('search', ran), recordingTool('submit_result', ran, 'sequential')],
      finalAnswerGuard: () => {
        guardCalls++;
        return { instruction: 'Submit your result with submit_result.', onlyTools: ['submit_result'] };
      },
      script: [
        { output: [message('here is my answer')] },
        {
          output: [
            functionCall('search', { v: 'more' }, { callId: 's1' }),
            functionCall('submit_result', { v: 'final' }, { callId: 'r1' }),
          ],
        },
        { output: [message('done')] },
      ],
    });
    expect(result).toMatchObject({ status: 'completed' });
    expect(guardCalls).toBe(1);
    // only submit_result was offered …
    expect((server.requests[1].body.tools ?? []).map((t: any) => t.name)).toEqual(['submit_result']);
    // … and only submit_result ran
    expect(ran).toEqual(['submit_result:final']);
    expect(outputList(server.requests[2].body)).toEqual([
      ['s1', 'Error: tool search cannot be called now; only these tools are allowed: submit_result.'],
      ['r1', 'submit_result got final'],
    ]);
    expect(completedEvents(events).find((e) => e.call_id === 's1')).toMatchObject({ is_error: true });
  });
});

describe('duplicate call_ids within one response', () => {
  it('runs the first call only and answers each function_call item with exactly one output', async () => {
    const ran: string[] = [];
    const { result, server, events } = await runScriptedTurn({
      tools: [recordingTool('write', ran, 'sequential')],
      script: [
        {
          output: [
            functionCall('write', { v: 'a' }, { callId: 'dup', id: 'fc_1' }),
            functionCall('write', { v: 'b' }, { callId: 'dup', id: 'fc_2' }),
            functionCall('write', { v: 'c' }, { callId: 'other', id: 'fc_3' }),
          ],
        },
        { output: [message('ok')] },
      ],
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'stop' });
    expect(ran).toEqual(['write:a', 'write:c']);
    const input = server.requests[1].body.input as any[];
    const fcs = input.filter((i) => i.type === 'function_call').map((i) => i.call_id);
    expect(fcs).toEqual(['dup', 'dup', 'other']);
    const outs = outputList(server.requests[1].body);
    expect(outs.map(([id]) => id)).toEqual(['dup', 'dup', 'other']);
    expect(outs[0][1]).toBe('write got a');
    expect(outs[1][1]).toMatch(/^Error: call_id dup was already used by an earlier function call in this response; this call was not executed/);
    expect(outs[2][1]).toBe('write got c');
    expect(completedEvents(events).map((e) => [e.call_id, e.is_error])).toEqual([['dup', false], ['dup', true], ['other', false]]);
  });
});
