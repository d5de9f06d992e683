/**
 * Through the real loop (real openai SDK, scripted Responses server): a call never runs on a
 * shape other than what the model sent (unknown keys → Error naming them), and canonical
 * string literals are coerced to the number/boolean the schema wants, recorded as a repair.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineWorkerTool, textResult } from '../../src/runtime/tool.js';
import { runScriptedTurn } from '../support/run-turn-harness.js';
import { functionCall, message } from '../support/scripted-responses-server.js';

const outputOf = (body: any, callId: string) => body.input.find((i: any) => i.type === 'function_call_output' && i.call_id === callId)?.output;

function recording<S extends z.ZodType>(name: string, schema: S, extra: { allowUnknownKeys?: boolean } = {}) {
  const seen: unknown[] = [];
  const tool = defineWorkerTool({
    name, description: name, schema, executionMode: 'sequential', ...extra,
    describeActivity: () => name,
    execute: async (p) => { seen.push(p); return textResult(`ran ${JSON.stringify(p)}`); },
  });
  return { tool, seen };
}

describe('unknown keys in tool arguments', () => {
  const target = z.discriminatedUnion('mode', [
    z.object({ mode: z.literal('read'), path: z.string() }),
    z.object({ mode: z.literal('write'), path: z.string(), content: z.string() }),
  ]);

  it('answers a key that belongs to another discriminated-union branch with an Error naming it, without running the tool', async () => {
    const { tool, seen } = recording('file_op', z.object({ op: target }));
    const { server, events, result } = await runScriptedTurn({
      tools: [tool],
      script: [{ output: [functionCall('file_op', { op: { mode: 'read', path: 'a.txt', content: 'oops' } }, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    expect(seen).toEqual([]);
    const out = outputOf(server.requests[1].body, 'c1');
    expect(out).toMatch(/^Error: invalid arguments for tool file_op:\n- op\.content: unknown key/);
    expect(out).toContain('every key must belong to the one variant you mean');
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ is_error: true, label: 'Could not call file_op: invalid arguments' });
    expect(result.status).toBe('completed');
  });

  it('names unknown keys of a plain object and of a plain union too', async () => {
    const { tool, seen } = recording('find', z.object({ where: z.union([z.object({ path: z.string() }), z.object({ url: z.string() })]), limit: z.number().optional() }));
    const { server } = await runScriptedTurn({
      tools: [tool],
      script: [{ output: [functionCall('find', { where: { path: 'a', url: 'b' }, limt: 3 }, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    expect(seen).toEqual([]);
    const out = outputOf(server.requests[1].body, 'c1');
    expect(out).toContain('- where.url: unknown key');
    expect(out).toContain('- limt: unknown key');
  });

  it('runs a tool that opts into passthrough (allowUnknownKeys)', async () => {
    const { tool, seen } = recording('loose', z.object({ a: z.string() }), { allowUnknownKeys: true });
    await runScriptedTurn({
      tools: [tool],
      script: [{ output: [functionCall('loose', { a: 'x', b: 1 }, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    expect(seen).toEqual([{ a: 'x' }]);
  });
});

describe('string → number/integer/boolean coercion', () => {
  const schema = z.object({ count: z.int(), ratio: z.number(), force: z.boolean(), name: z.string() });

  it('gives the tool the coerced values and records the repair on tool.completed and in the stats', async () => {
    const { tool, seen } = recording('tune', schema);
    const { events, result } = await runScriptedTurn({
      tools: [tool],
      script: [{ output: [functionCall('tune', { count: '2', ratio: '0.25', force: 'true', name: '7' }, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    expect(seen).toEqual([{ count: 2, ratio: 0.25, force: true, name: '7' }]);
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ is_error: false, repaired: 'coerced_scalars' });
    expect(result.toolStats?.repairs).toEqual({ coerced_scalars: 1 });
  });

  it('refuses non-canonical literals with the usual validation error', async () => {
    const { tool, seen } = recording('tune', schema);
    const { server } = await runScriptedTurn({
      tools: [tool],
      script: [{ output: [functionCall('tune', { count: '1e999', ratio: '1,5', force: 'yes', name: 'x' }, { callId: 'c1' })] }, { output: [message('ok')] }],
    });
    expect(seen).toEqual([]);
    const out = outputOf(server.requests[1].body, 'c1');
    expect(out).toMatch(/^Error: invalid arguments for tool tune:/);
    for (const key of ['count', 'ratio', 'force']) expect(out).toContain(`- ${key}:`);
  });
});
