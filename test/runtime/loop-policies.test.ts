/**
 * The loop's policies through the real loop (real openai SDK, scripted Responses server):
 * repeated identical calls, tool-call markup written as text, the cut-response retry.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_CALL_TEXT_NUDGE } from '../../src/runtime/policies/tool-call-text.js';
import { CUT_RESPONSE_INSTRUCTION } from '../../src/runtime/policies/cut-retry.js';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';
import { functionCall, message } from '../support/scripted-responses-server.js';

function counter() {
  const runs: unknown[] = [];
  const tool = defineWorkerTool({
    name: 'status', description: 'Job status', schema: z.object({ job: z.string() }), executionMode: 'sequential',
    describeActivity: (p) => `Checking ${p.job}`,
    execute: async (p) => { runs.push(p); return textResult(`job ${p.job}: still running`); },
  });
  return { tool, runs };
}

const outputs = (body: any) => body.input.filter((i: any) => i.type === 'function_call_output').map((i: any) => i.output as string);

describe('repeated identical calls', () => {
  it('runs 3 identical calls with identical results, then answers further identical calls with an Error quoting the last result', async () => {
    const { tool, runs } = counter();
    const same = (n: number) => ({ output: [functionCall('status', { job: 'a' }, { callId: `c${n}` })] });
    const { result, server, events } = await runScriptedTurn({
      tools: [tool],
      script: [same(1), same(2), same(3), same(4), { output: [functionCall('status', { job: 'a' }, { callId: 'c5' })] }, { output: [message('it is still running')] }],
    });
    expect(runs).toHaveLength(3);
    const outs = outputs(server.requests[5].body);
    expect(outs.slice(0, 3)).toEqual(['job a: still running', 'job a: still running', 'job a: still running']);
    for (const out of outs.slice(3)) {
      expect(out).toMatch(/^Error: this call repeats the previous 3 calls exactly \(same tool status, same arguments\)/);
      expect(out).toContain('The last result was:\njob a: still running');
    }
    expect(result).toMatchObject({ status: 'completed', outputText: 'it is still running' });
    // The refused calls are visible to clients as not run.
    expect(events.filter((e) => e.type === 'tool.completed').map((e: any) => e.label)).toEqual(['Checking a', 'Checking a', 'Checking a', 'Did not run status', 'Did not run status']);
  });

  it('runs the call again once its arguments (or another call) break the row', async () => {
    const { tool, runs } = counter();
    const call = (job: string, n: number) => ({ output: [functionCall('status', { job }, { callId: `c${n}` })] });
    await runScriptedTurn({
      tools: [tool],
      script: [call('a', 1), call('a', 2), call('b', 3), call('a', 4), call('a', 5), { output: [message('done')] }],
    });
    expect(runs).toHaveLength(5);
  });
});

describe('tool-call markup written as text', () => {
  it('never runs it, nudges the model once to use a real function call, and takes the next answer', async () => {
    const { tool, runs } = counter();
    const { result, server } = await runScriptedTurn({
      tools: [tool],
      script: [
        { output: [message('<tool_call>\n{"name": "status", "arguments": {"job": "a"}}\n</tool_call>')] },
        { output: [functionCall('status', { job: 'a' }, { callId: 'real' })] },
        { output: [message('Job a is still running.')] },
      ],
    });
    expect(server.requests[1].body.input.at(-1)).toEqual({ type: 'message', role: 'developer', content: TOOL_CALL_TEXT_NUDGE });
    expect(runs).toEqual([{ job: 'a' }]); // only the real function call ran
    expect(result).toMatchObject({ status: 'completed', outputText: 'Job a is still running.', stopReason: 'stop' });
  });

  it('accepts a second markup answer as the answer (one nudge per turn)', async () => {
    const { tool, runs } = counter();
    const markup = '{"name": "status", "arguments": {"job": "a"}}';
    const { result, server } = await runScriptedTurn({ tools: [tool], script: [{ output: [message(markup)] }, { output: [message(markup)] }] });
    expect(server.requests).toHaveLength(2);
    expect(runs).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', outputText: markup });
  });
});

describe('a response cut by max_output_tokens', () => {
  it('is retried with an instruction that the previous answer was cut off; a complete answer then ends the turn normally', async () => {
    const { result, server } = await runScriptedTurn({
      options: { maxOutputTokens: 50 },
      script: [{ output: [message('A very long ans')], status: 'incomplete', incompleteReason: 'max_output_tokens' }, { output: [message('Short answer.')] }],
    });
    expect(server.requests[1].body.input.at(-1)).toEqual({ type: 'message', role: 'developer', content: CUT_RESPONSE_INSTRUCTION });
    expect(server.requests[1].rawBody).not.toContain('A very long ans');
    expect(result).toMatchObject({ status: 'completed', outputText: 'Short answer.', stopReason: 'stop' });
  });

  it('cut again with some text ends completed with that text and stop reason max_output_tokens', async () => {
    const cut = (t: string) => ({ output: [message(t)], status: 'incomplete' as const, incompleteReason: 'max_output_tokens' as const });
    const { result } = await runScriptedTurn({ script: [cut('first'), cut('second, also cut')] });
    expect(result).toMatchObject({ status: 'completed', outputText: 'second, also cut', stopReason: 'max_output_tokens' });
  });
});
